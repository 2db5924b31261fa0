package kernels

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// IBU's work is two dense passes over the channel per iteration: den = theta^T C
// (an axpy of every row) and s = C r (a dot product with every row). The
// passes are fused per block of rows, so each iteration reads the channel
// from memory once.

// Dense pass mode bits (see densePass).
const (
	passDot   = 1 // w[x] = <C[x], r>
	passAxpy  = 2 // den += sum_x w[x] C[x] (after the dot, if any)
	passScale = 4 // with passDot: w[x] *= <C[x], r> instead of =

	passUpdate = passDot | passScale            // theta(x) *= <C[x], r>
	passFused  = passDot | passScale | passAxpy // one IBU step: update, then den of the next
)

// densePass runs one pass over the m x n row-major matrix p. r, den and w
// must have n, n and m entries; tmp (m entries) is scratch for the
// portable path. It uses the AVX2/FMA kernel when the CPU has one and
// gonum's BLAS otherwise.
func densePass(p []float64, m, n int, r, den, w, tmp []float64, mode int) {
	if hasAVX2FMA {
		densePassAVX2(p, m, n, r, den, w, mode)
		return
	}
	densePassBLAS(p, m, n, r, den, w, tmp, mode)
}

func densePassAVX2(p []float64, m, n int, r, den, w []float64, mode int) {
	_ = p[m*n-1]
	_, _, _ = r[n-1], den[n-1], w[m-1]
	x := 0
	for ; x+4 <= m; x += 4 {
		ibuRows4(&p[x*n], n, &r[0], &den[0], &w[x], mode)
	}
	if x < m {
		densePassGo(p[x*n:], m-x, n, r, den, w[x:], mode)
	}
}

// densePassBLAS is the portable pass: two gonum Dgemv calls (s = C r, then
// den += C^T w), which read the channel twice but measured about twice as
// fast as the four-way unrolled Go loops of densePassGo (BenchmarkDensePass:
// gonum's kernels are assembly on amd64).
func densePassBLAS(p []float64, m, n int, r, den, w, tmp []float64, mode int) {
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: p[:m*n]}
	if mode&passDot != 0 {
		s := w
		if mode&passScale != 0 {
			s = tmp[:m]
		}
		blas64.Gemv(blas.NoTrans, 1, a, blas64.Vector{N: n, Inc: 1, Data: r}, 0, blas64.Vector{N: m, Inc: 1, Data: s})
		if mode&passScale != 0 {
			w = w[:m]
			for x, v := range s {
				w[x] *= v
			}
		}
	}
	if mode&passAxpy != 0 {
		blas64.Gemv(blas.Trans, 1, a, blas64.Vector{N: m, Inc: 1, Data: w}, 1, blas64.Vector{N: n, Inc: 1, Data: den})
	}
}

// densePassGo is the pass in plain Go, row by row: a four-way unrolled dot
// product and axpy on the row while it is in cache. It serves the last
// rows of the assembly pass and is the reference the others are tested
// against.
func densePassGo(p []float64, m, n int, r, den, w []float64, mode int) {
	r, den, w = r[:n], den[:n], w[:m]
	for x := range w {
		row := p[x*n : (x+1)*n : (x+1)*n]
		if mode&passDot != 0 {
			s := dotUnroll(row, r)
			if mode&passScale != 0 {
				w[x] *= s
			} else {
				w[x] = s
			}
		}
		if mode&passAxpy != 0 {
			axpyUnroll(w[x], row, den)
		}
	}
}

// checkRows validates the m x n row-major matrix p as a channel: every
// entry finite and >= 0, every row summing to 1 within StochasticTol*n.
// It returns the index of the first bad row, or -1.
func checkRows(p []float64, m, n int) int {
	tol := StochasticTol * float64(n)
	for x := 0; x < m; x++ {
		row := p[x*n : (x+1)*n]
		var s, mn float64
		if hasAVX2FMA {
			s, mn = rowStats(&row[0], n)
		} else {
			s, mn = rowStatsGo(row)
		}
		// A NaN or infinite entry makes s non-finite; the comparison
		// below is false for NaN.
		if !(math.Abs(s-1) <= tol) || mn < 0 || math.IsNaN(mn) {
			return x
		}
	}
	return -1
}

func rowStatsGo(row []float64) (s, mn float64) {
	mn = row[0]
	for _, v := range row {
		s += v
		if v < mn || v != v {
			mn = v
		}
	}
	return s, mn
}
