//go:build glpk && cgo

package lp

/*
#cgo LDFLAGS: -lglpk
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

static int bndType(double lo, double up) {
	int fl = isinf(lo), fu = isinf(up);
	if (fl && fu) return GLP_FR;
	if (fl) return GLP_UP;
	if (fu) return GLP_LO;
	if (lo == up) return GLP_FX;
	return GLP_DB;
}

// privic_lp_glpk builds, solves and deletes the LP in one C call, so that
// all of GLPK's work happens on one OS thread: GLPK keeps its environment
// in thread-local storage, and a goroutine may move between threads
// between two cgo calls. The matrix comes as nnz triplets with 0-based
// indices. Returns glp_simplex's or glp_interior's code (0 = solved, -1 =
// out of memory) and stores the solution status in *status.
static int privic_lp_glpk(int nRow, int nCol, const double *cost, const double *rlo, const double *rup,
		int nnz, const int *row, const int *col, const double *val, int meth, int tmLim,
		double *x, double *y, int *status) {
	int *ia = malloc(((size_t)nnz + 1) * sizeof(int));
	int *ja = malloc(((size_t)nnz + 1) * sizeof(int));
	double *ar = malloc(((size_t)nnz + 1) * sizeof(double));
	if (ia == NULL || ja == NULL || ar == NULL) {
		free(ia); free(ja); free(ar);
		return -1;
	}
	// Silence GLPK's terminal output (scaling reports) in this thread's
	// environment, which glp_free_env below discards.
	glp_term_out(GLP_OFF);
	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	if (nRow > 0) glp_add_rows(lp, nRow);
	if (nCol > 0) glp_add_cols(lp, nCol);
	for (int i = 0; i < nRow; i++) {
		glp_set_row_bnds(lp, i + 1, bndType(rlo[i], rup[i]), isinf(rlo[i]) ? 0 : rlo[i], isinf(rup[i]) ? 0 : rup[i]);
	}
	for (int j = 0; j < nCol; j++) {
		glp_set_col_bnds(lp, j + 1, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, j + 1, cost[j]);
	}
	for (int t = 0; t < nnz; t++) {
		ia[t + 1] = row[t] + 1; ja[t + 1] = col[t] + 1; ar[t + 1] = val[t];
	}
	glp_load_matrix(lp, nnz, ia, ja, ar);
	free(ia); free(ja); free(ar);
	int ret;
	if (meth == 0) {
		// Interior point (no time limit available in GLPK's API).
		glp_iptcp ipar;
		glp_init_iptcp(&ipar);
		ipar.msg_lev = GLP_MSG_OFF;
		ret = glp_interior(lp, &ipar);
		*status = glp_ipt_status(lp);
		if (ret == 0 && *status == GLP_OPT) {
			for (int j = 0; j < nCol; j++) x[j] = glp_ipt_col_prim(lp, j + 1);
			for (int i = 0; i < nRow; i++) y[i] = glp_ipt_row_dual(lp, i + 1);
		}
	} else {
		glp_smcp parm;
		glp_init_smcp(&parm);
		parm.msg_lev = GLP_MSG_OFF;
		parm.meth = meth;
		parm.presolve = GLP_ON;
		if (tmLim > 0) parm.tm_lim = tmLim;
		glp_scale_prob(lp, GLP_SF_AUTO);
		ret = glp_simplex(lp, &parm);
		*status = glp_get_status(lp);
		if (ret == 0 && *status == GLP_OPT) {
			for (int j = 0; j < nCol; j++) x[j] = glp_get_col_prim(lp, j + 1);
			for (int i = 0; i < nRow; i++) y[i] = glp_get_row_dual(lp, i + 1);
		}
	}
	glp_delete_prob(lp);
	glp_free_env();
	return ret;
}

// The incremental model behind glpkModel. GLPK numbers rows and columns
// from 1; the entries arrive 0-based.
static glp_prob *privic_glpk_new(void) {
	glp_term_out(GLP_OFF);
	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	return lp;
}

// privic_glpk_add appends n rows (cols = 0) or columns (cols = 1) to lp:
// entry k has bounds lo[k]..up[k] (an infinite bound is none), objective
// coefficient cost[k] (columns only; cost is NULL for rows) and the sparse
// vector idx, val[start[k]:start[k+1]] with 0-based indices.
static void privic_glpk_add(glp_prob *lp, int cols, int n, const double *cost, const double *lo,
		const double *up, const int *start, const int *idx, const double *val) {
	int first = cols ? glp_add_cols(lp, n) : glp_add_rows(lp, n);
	int maxLen = 0;
	for (int k = 0; k < n; k++) if (start[k + 1] - start[k] > maxLen) maxLen = start[k + 1] - start[k];
	int *ind = malloc(((size_t)maxLen + 1) * sizeof(int));
	double *v = malloc(((size_t)maxLen + 1) * sizeof(double));
	for (int k = 0; k < n; k++) {
		int type = bndType(lo[k], up[k]);
		double l = isinf(lo[k]) ? 0 : lo[k], u = isinf(up[k]) ? 0 : up[k];
		int len = start[k + 1] - start[k];
		for (int i = 0; i < len; i++) { ind[i + 1] = idx[start[k] + i] + 1; v[i + 1] = val[start[k] + i]; }
		if (cols) {
			glp_set_col_bnds(lp, first + k, type, l, u);
			glp_set_obj_coef(lp, first + k, cost[k]);
			glp_set_mat_col(lp, first + k, len, ind, v);
		} else {
			glp_set_row_bnds(lp, first + k, type, l, u);
			glp_set_mat_row(lp, first + k, len, ind, v);
		}
	}
	free(ind); free(v);
}

static void privic_glpk_obj(glp_prob *lp, const double *cost) {
	for (int j = 1, n = glp_get_num_cols(lp); j <= n; j++) glp_set_obj_coef(lp, j, cost[j - 1]);
}

// privic_glpk_solve re-optimises from the current basis (no presolve, which
// would discard it), capping each attempt at maxIter iterations and then
// switching simplex (see privic_clp_solve); returns glp_simplex's code,
// the status in *status.
static int privic_glpk_solve(glp_prob *lp, int dual, int tmLim, int maxIter, int *status) {
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.tol_bnd = 1e-9;
	parm.tol_dj = 1e-9;
	if (tmLim > 0) parm.tm_lim = tmLim;
	int ret = GLP_EITLIM;
	for (int attempt = 0; attempt < 3 && ret == GLP_EITLIM; attempt++) {
		parm.meth = (dual + attempt) % 2 ? GLP_DUALP : GLP_PRIMAL;
		parm.it_lim = attempt < 2 ? maxIter : INT_MAX;
		if (attempt == 2) glp_adv_basis(lp, 0);
		ret = glp_simplex(lp, &parm);
	}
	if (ret == GLP_EFAIL || ret == GLP_ESING || ret == GLP_ECOND) {
		// The tight tolerances can fail on an ill-conditioned basis:
		// restart from a fresh basis with GLPK's default ones.
		glp_adv_basis(lp, 0);
		parm.tol_bnd = 1e-7;
		parm.tol_dj = 1e-7;
		parm.it_lim = INT_MAX;
		parm.meth = GLP_PRIMAL;
		ret = glp_simplex(lp, &parm);
	}
	*status = glp_get_status(lp);
	return ret;
}

static void privic_glpk_copy(glp_prob *lp, double *x, double *y) {
	if (x != NULL) for (int j = 1, n = glp_get_num_cols(lp); j <= n; j++) x[j - 1] = glp_get_col_prim(lp, j);
	if (y != NULL) for (int i = 1, n = glp_get_num_rows(lp); i <= n; i++) y[i - 1] = glp_get_row_dual(lp, i);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"time"
)

// haveGLPK reports whether the GLPK solver is compiled in (build tag glpk).
const haveGLPK = true

// SolveGLPK solves p with GLPK's simplex (with its presolver and
// automatic scaling) or interior point, and returns the solution and the
// row duals. A timeLimit of 0 is none; GLPK's interior point has none.
func SolveGLPK(p *Problem, method Method, timeLimit time.Duration) (x, y []float64, err error) {
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	nRow, nCol := len(p.RowLo), len(p.Cost)
	x, y = make([]float64, nCol), make([]float64, nRow)
	var status C.int
	tm := 0
	if ms := int(timeLimit.Milliseconds()); ms > 0 {
		tm = ms
	}
	ret := C.privic_lp_glpk(C.int(nRow), C.int(nCol), dptr(p.Cost), dptr(p.RowLo), dptr(p.RowUp),
		C.int(len(p.Val)), iptr(p.Row), iptr(p.Col), dptr(p.Val), C.int(method), C.int(tm),
		dptr(x), dptr(y), &status)
	switch {
	case ret == -1:
		return nil, nil, fmt.Errorf("glpk: out of memory for %d variables, %d constraints", nCol, nRow)
	case ret == C.GLP_ETMLIM:
		return nil, nil, fmt.Errorf("glpk: time limit of %d ms exceeded", tm)
	case ret != 0:
		return nil, nil, fmt.Errorf("glpk: glp_simplex/glp_interior failed with code %d (e.g. 17: numerical instability)", int(ret))
	case status != C.GLP_OPT:
		return nil, nil, fmt.Errorf("glpk: solution status %d, not optimal", int(status))
	}
	return x, y, nil
}

// glpkModel is a Model held by GLPK. GLPK's environment is
// thread-local, so every call must come from the thread that created the
// model: newGLPKBackend locks the calling goroutine to its thread until the
// backend's close.
type glpkModel struct {
	lp    *C.glp_prob
	iters int
}

func newGLPKBackend() (*Backend, error) {
	runtime.LockOSThread()
	return &Backend{
		model: func() (Model, error) { return &glpkModel{lp: C.privic_glpk_new()}, nil },
		close: func() {
			C.glp_free_env()
			runtime.UnlockOSThread()
		},
	}, nil
}

func (g *glpkModel) AddRows(lo, up []float64, start, idx []int32, val []float64) error {
	if len(lo) > 0 {
		C.privic_glpk_add(g.lp, 0, C.int(len(lo)), nil, dptr(lo), dptr(up), iptr(start), iptr(idx), dptr(val))
	}
	return nil
}

func (g *glpkModel) AddCols(cost, lb, ub []float64, start, idx []int32, val []float64) error {
	if len(cost) > 0 {
		C.privic_glpk_add(g.lp, 1, C.int(len(cost)), dptr(cost), dptr(lb), dptr(ub), iptr(start), iptr(idx), dptr(val))
	}
	return nil
}

func (g *glpkModel) DelCols(idx []int32) error {
	if len(idx) == 0 {
		return nil
	}
	// GLPK numbers from 1 and ignores num[0].
	num := make([]C.int, len(idx)+1)
	for i, j := range idx {
		num[i+1] = C.int(j + 1)
	}
	C.glp_del_cols(g.lp, C.int(len(idx)), &num[0])
	return nil
}

func (g *glpkModel) SetObj(cost []float64) { C.privic_glpk_obj(g.lp, dptr(cost)) }

func (g *glpkModel) Solve(dual bool, seconds float64) error {
	d := C.int(0)
	if dual {
		d = 1
	}
	before := int(C.glp_get_it_cnt(g.lp))
	var status C.int
	ret := C.privic_glpk_solve(g.lp, d, C.int(seconds*1000), C.int(stallIterations(C.glp_get_num_rows(g.lp), C.glp_get_num_cols(g.lp))), &status)
	g.iters += int(C.glp_get_it_cnt(g.lp)) - before
	switch {
	case ret == C.GLP_ETMLIM:
		return fmt.Errorf("glpk: time limit of %v s exceeded", seconds)
	case ret != 0:
		return fmt.Errorf("glpk: glp_simplex failed with code %d (e.g. 17: numerical instability)", int(ret))
	case status != C.GLP_OPT:
		return fmt.Errorf("glpk: solution status %d, not optimal", int(status))
	}
	return nil
}

func (g *glpkModel) Solution(x, y []float64) { C.privic_glpk_copy(g.lp, dptr(x), dptr(y)) }

func (g *glpkModel) Iterations() int { return g.iters }

func (g *glpkModel) Free() {
	if g.lp != nil {
		C.glp_delete_prob(g.lp)
		g.lp = nil
	}
}
