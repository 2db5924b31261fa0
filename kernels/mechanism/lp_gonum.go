package mechanism

import (
	"math"

	"privic/kernels/lp"
)

// solveGonum solves p with gonum's dense simplex (lp.SolveGonum). The
// standard form has one slack per geo-ind constraint:
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
	q := p.problem()
	for k := range p.coef {
		// Fractional parts of k times the golden ratio: distinct, spread.
		_, f := math.Modf(float64(k) * 0.6180339887498949)
		q.RowUp[p.nIn+k] = 1e-9 * (1 + f)
	}
	start := make([]int, p.nIn)
	for x := range start {
		start[x] = x*p.nOut + p.start
	}
	return lp.SolveGonum(q, start)
}
