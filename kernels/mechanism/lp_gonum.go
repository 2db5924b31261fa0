package mechanism

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// solveGonum solves p with gonum's dense simplex. The standard form has one
// slack per geo-ind constraint:
//
//	rows 0..nIn-1:   sum_y C[x,y] = 1
//	rows nIn+k:      coef C[lo] - C[hi] + s_k = 0
//
// The right-hand sides of the geo-ind rows are relaxed by distinct amounts
// delta_k in [1e-9, 2e-9): without this the start vertex is massively
// degenerate and gonum's simplex ends on a singular basis for most eps
// (seen on 3x3 grids for eps >= 0.8). The solution may therefore exceed a
// constraint by 2e-9, which repairGeoInd removes afterwards.
//
// It starts from the constant channel that sends everyone to p.start,
// whose basis (those nIn entries plus every slack) is block triangular with
// unit diagonal blocks, hence non-singular and feasible. This skips gonum's
// phase one, which would add an artificial column per row.
func solveGonum(p *geoLP) (sol []float64, err error) {
	nVar := p.nIn * p.nOut
	nIneq := len(p.coef)
	rows, cols := p.nIn+nIneq, nVar+nIneq
	a := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	copy(c, p.cost)
	for x := 0; x < p.nIn; x++ {
		b[x] = 1
		for y := 0; y < p.nOut; y++ {
			a.Set(x, x*p.nOut+y, 1)
		}
	}
	for k := range p.coef {
		a.Set(p.nIn+k, p.lo[k], p.coef[k])
		a.Set(p.nIn+k, p.hi[k], -1)
		a.Set(p.nIn+k, nVar+k, 1)
		// Fractional parts of k times the golden ratio: distinct, spread.
		_, f := math.Modf(float64(k) * 0.6180339887498949)
		b[p.nIn+k] = 1e-9 * (1 + f)
	}
	basis := make([]int, 0, rows)
	for x := 0; x < p.nIn; x++ {
		basis = append(basis, x*p.nOut+p.start)
	}
	for k := 0; k < nIneq; k++ {
		basis = append(basis, nVar+k)
	}
	// gonum panics on inconsistent input; the input is built above, but a
	// panic must still not escape to the caller.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gonum simplex: %v", r)
		}
	}()
	_, x, err := gonumlp.Simplex(c, a, b, 1e-10, basis)
	if err != nil {
		return nil, fmt.Errorf("gonum simplex (%d rows x %d columns): %w", rows, cols, err)
	}
	return x[:nVar], nil
}
