//go:build clp && cgo

package lp

/*
#cgo CFLAGS: -I/usr/include/coin -I/usr/local/include/coin
#cgo LDFLAGS: -lClp -lCoinUtils
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <Clp_C_Interface.h>

static Clp_Simplex *privic_clp_new(void) {
	Clp_Simplex *m = Clp_newModel();
	Clp_setLogLevel(m, 0);
	// The geo-ind rows are stated with coefficients in (0, 1]; a feasibility
	// tolerance of 1e-9 keeps the solution within what repairGeoInd may
	// move without costing the certified gap.
	Clp_setPrimalTolerance(m, 1e-9);
	Clp_setDualTolerance(m, 1e-9);
	Clp_scaling(m, 0);
	return m;
}

// fin maps ±Inf to CLP's infinity.
static double fin(double v) {
	if (isinf(v)) return v > 0 ? DBL_MAX : -DBL_MAX;
	return v;
}

static void privic_clp_rows(Clp_Simplex *m, int n, double *lo, double *up,
		const int *start, const int *idx, const double *val) {
	for (int k = 0; k < n; k++) { lo[k] = fin(lo[k]); up[k] = fin(up[k]); }
	if (sizeof(CoinBigIndex) == sizeof(int)) {
		Clp_addRows(m, n, lo, up, (const CoinBigIndex *)start, idx, val);
		return;
	}
	CoinBigIndex *s = malloc(((size_t)n + 1) * sizeof(CoinBigIndex));
	for (int k = 0; k <= n; k++) s[k] = start[k];
	Clp_addRows(m, n, lo, up, s, idx, val);
	free(s);
}

static void privic_clp_cols(Clp_Simplex *m, int n, const double *cost, double *lb, double *ub,
		const int *start, const int *idx, const double *val) {
	for (int k = 0; k < n; k++) { lb[k] = fin(lb[k]); ub[k] = fin(ub[k]); }
	if (sizeof(CoinBigIndex) == sizeof(int)) {
		Clp_addColumns(m, n, lb, ub, cost, (const CoinBigIndex *)start, idx, val);
		return;
	}
	CoinBigIndex *s = malloc(((size_t)n + 1) * sizeof(CoinBigIndex));
	for (int k = 0; k <= n; k++) s[k] = start[k];
	Clp_addColumns(m, n, lb, ub, cost, s, idx, val);
	free(s);
}

// privic_clp_solve re-optimises with the dual or primal simplex from the
// current basis. A highly degenerate pricing LP can make one simplex stall
// for minutes, so each attempt is capped at maxIter iterations; past the
// cap it tries the other simplex from the basis reached, then a fresh
// solve. Returns Clp_status (0 optimal) and adds the iterations to *iters.
static int privic_clp_solve(Clp_Simplex *m, int dual, double seconds, int maxIter, int *iters) {
	Clp_setMaximumSeconds(m, seconds > 0 ? seconds : -1.0);
	Clp_setMaximumIterations(m, maxIter);
	if (dual) Clp_dual(m, 0); else Clp_primal(m, 0);
	*iters += Clp_numberIterations(m);
	if (Clp_status(m) != 3 || !Clp_hitMaximumIterations(m)) return Clp_status(m);
	if (dual) Clp_primal(m, 0); else Clp_dual(m, 0);
	*iters += Clp_numberIterations(m);
	if (Clp_status(m) != 3 || !Clp_hitMaximumIterations(m)) return Clp_status(m);
	Clp_setMaximumIterations(m, 2147483647);
	Clp_initialSolve(m);
	*iters += Clp_numberIterations(m);
	return Clp_status(m);
}

static void privic_clp_copy(Clp_Simplex *m, double *x, double *y) {
	if (x != NULL) {
		const double *cs = Clp_getColSolution(m);
		for (int j = 0, n = Clp_getNumCols(m); j < n; j++) x[j] = cs[j];
	}
	if (y != NULL) {
		const double *rp = Clp_getRowPrice(m);
		for (int i = 0, n = Clp_getNumRows(m); i < n; i++) y[i] = rp[i];
	}
}
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// haveCLP reports whether the CLP solver is compiled in (build tag clp).
const haveCLP = true

// clpModel is a Model held by COIN-OR CLP. A CLP model keeps no
// thread-local state, so it may move between threads (one user at a time).
type clpModel struct {
	m     unsafe.Pointer // *Clp_Simplex
	iters int
}

func newCLPModel() (Model, error) {
	return &clpModel{m: unsafe.Pointer(C.privic_clp_new())}, nil
}

func (c *clpModel) AddRows(lo, up []float64, start, idx []int32, val []float64) error {
	if len(lo) == 0 {
		return nil
	}
	lo, up = append([]float64(nil), lo...), append([]float64(nil), up...)
	C.privic_clp_rows(c.m, C.int(len(lo)), dptr(lo), dptr(up), iptr(start), iptr(idx), dptr(val))
	return nil
}

func (c *clpModel) AddCols(cost, lb, ub []float64, start, idx []int32, val []float64) error {
	if len(cost) == 0 {
		return nil
	}
	lb, ub = append([]float64(nil), lb...), append([]float64(nil), ub...)
	C.privic_clp_cols(c.m, C.int(len(cost)), dptr(cost), dptr(lb), dptr(ub), iptr(start), iptr(idx), dptr(val))
	return nil
}

func (c *clpModel) DelCols(idx []int32) error {
	if len(idx) > 0 {
		C.Clp_deleteColumns(c.m, C.int(len(idx)), iptr(idx))
	}
	return nil
}

func (c *clpModel) SetObj(cost []float64) {
	C.Clp_chgObjCoefficients(c.m, dptr(cost))
}

func (c *clpModel) Solve(dual bool, seconds float64) error {
	d := C.int(0)
	if dual {
		d = 1
	}
	// CLP times itself in process CPU time, which runs ahead of the wall
	// clock when other goroutines of the process (other jobs) compute too:
	// a stop on time (status 3: the last attempt has no iteration cap)
	// before the wall-clock limit resumes from the basis reached, with the
	// time left.
	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	var st C.int
	for left := seconds; ; {
		var iters C.int
		st = C.privic_clp_solve(c.m, d, C.double(left), C.int(stallIterations(C.Clp_getNumRows(c.m), C.Clp_getNumCols(c.m))), &iters)
		c.iters += int(iters)
		if left = time.Until(deadline).Seconds(); st != 3 || seconds <= 0 || left <= 0 {
			break
		}
	}
	switch st {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("clp: primal infeasible")
	case 2:
		return fmt.Errorf("clp: dual infeasible (unbounded)")
	case 3:
		return fmt.Errorf("clp: stopped on iterations or time (%v s)", seconds)
	}
	return fmt.Errorf("clp: stopped with status %d (errors)", int(st))
}

func (c *clpModel) Solution(x, y []float64) {
	C.privic_clp_copy(c.m, dptr(x), dptr(y))
}

func (c *clpModel) Iterations() int { return c.iters }

func (c *clpModel) Free() {
	if c.m != nil {
		C.Clp_deleteModel(c.m)
		c.m = nil
	}
}
