package kernels

import (
	"math"

	"privic/kernels/internal/asm"
)

// IBU's work is two dense passes over the channel per iteration: den = theta^T C
// (an axpy of every row) and s = C r (a dot product with every row). The
// passes are fused per block of rows, so each iteration reads the channel
// from memory once.

// Dense pass mode bits (see asm.DensePass).
const (
	passDot   = asm.PassDot
	passAxpy  = asm.PassAxpy
	passScale = asm.PassScale

	passUpdate = passDot | passScale            // theta(x) *= <C[x], r>
	passFused  = passDot | passScale | passAxpy // one IBU step: update, then den of the next
)

// checkRows validates the m x n row-major matrix p as a channel: every
// entry finite and >= 0, every row summing to 1 within StochasticTol*n.
// It returns the index of the first bad row, or -1.
func checkRows(p []float64, m, n int) int {
	tol := StochasticTol * float64(n)
	for x := 0; x < m; x++ {
		row := p[x*n : (x+1)*n]
		s, mn := asm.RowStats(row)
		// A NaN or infinite entry makes s non-finite; the comparison
		// below is false for NaN.
		if !(math.Abs(s-1) <= tol) || mn < 0 || math.IsNaN(mn) {
			return x
		}
	}
	return -1
}
