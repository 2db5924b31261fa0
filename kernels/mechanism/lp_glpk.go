//go:build glpk && cgo

package mechanism

/*
#cgo LDFLAGS: -lglpk
#include <glpk.h>
#include <stdlib.h>

// privic_geo_lp builds, solves and deletes the LP in one C call, so that all
// of GLPK's work happens on one OS thread: GLPK keeps its environment in
// thread-local storage, and a goroutine may move between threads between
// two cgo calls. Returns glp_simplex's code (0 = solved, -1 = out of
// memory) and stores the solution status in *status.
static int privic_geo_lp(int nIn, int nOut, const double *cost, int nIneq,
		const double *coef, const int *lo, const int *hi, int meth, int tmLim,
		double *x, int *status, double *obj) {
	int nVar = nIn * nOut;
	int nnz = nVar + 2 * nIneq;
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
	glp_add_rows(lp, nIn + nIneq);
	glp_add_cols(lp, nVar);
	for (int i = 1; i <= nIn; i++) glp_set_row_bnds(lp, i, GLP_FX, 1.0, 1.0);
	for (int k = 0; k < nIneq; k++) glp_set_row_bnds(lp, nIn + k + 1, GLP_UP, 0.0, 0.0);
	for (int j = 0; j < nVar; j++) {
		glp_set_col_bnds(lp, j + 1, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, j + 1, cost[j]);
	}
	int t = 1;
	for (int j = 0; j < nVar; j++, t++) {
		ia[t] = j / nOut + 1; ja[t] = j + 1; ar[t] = 1.0;
	}
	for (int k = 0; k < nIneq; k++) {
		ia[t] = nIn + k + 1; ja[t] = lo[k] + 1; ar[t] = coef[k]; t++;
		ia[t] = nIn + k + 1; ja[t] = hi[k] + 1; ar[t] = -1.0; t++;
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
			for (int j = 0; j < nVar; j++) x[j] = glp_ipt_col_prim(lp, j + 1);
			*obj = glp_ipt_obj_val(lp);
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
			for (int j = 0; j < nVar; j++) x[j] = glp_get_col_prim(lp, j + 1);
			*obj = glp_get_obj_val(lp);
		}
	}
	glp_delete_prob(lp);
	glp_free_env();
	return ret;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// haveGLPK reports whether the GLPK solver is compiled in (build tag glpk).
const haveGLPK = true

// solveGLPK solves p with GLPK's simplex (dual, falling back to primal,
// with GLPK's presolver and automatic scaling).
func solveGLPK(p *geoLP) ([]float64, error) {
	nVar := p.nIn * p.nOut
	nIneq := len(p.coef)
	if int64(nVar)+2*int64(nIneq) > 1<<31-2 {
		return nil, fmt.Errorf("glpk: %d non-zeros exceed C int", int64(nVar)+2*int64(nIneq))
	}
	lo := make([]C.int, nIneq)
	hi := make([]C.int, nIneq)
	for k := range lo {
		lo[k], hi[k] = C.int(p.lo[k]), C.int(p.hi[k])
	}
	x := make([]float64, nVar)
	var status C.int
	var obj C.double
	var coefPtr *C.double
	var loPtr, hiPtr *C.int
	if nIneq > 0 {
		coefPtr = (*C.double)(unsafe.Pointer(&p.coef[0]))
		loPtr, hiPtr = &lo[0], &hi[0]
	}
	tm := 0
	if p.timeLimitMS > 0 {
		tm = p.timeLimitMS
	}
	ret := C.privic_geo_lp(C.int(p.nIn), C.int(p.nOut), (*C.double)(unsafe.Pointer(&p.cost[0])), C.int(nIneq),
		coefPtr, loPtr, hiPtr, C.int(p.glpkMethod), C.int(tm),
		(*C.double)(unsafe.Pointer(&x[0])), &status, &obj)
	switch {
	case ret == -1:
		return nil, fmt.Errorf("glpk: out of memory for %d variables, %d constraints", nVar, nIneq)
	case ret == C.GLP_ETMLIM:
		return nil, fmt.Errorf("glpk: time limit of %d ms exceeded", tm)
	case ret != 0:
		return nil, fmt.Errorf("glpk: glp_simplex/glp_interior failed with code %d (e.g. 17: numerical instability)", int(ret))
	case status != C.GLP_OPT:
		return nil, fmt.Errorf("glpk: solution status %d, not optimal", int(status))
	}
	return x, nil
}
