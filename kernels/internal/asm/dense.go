package asm

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Mode bits of DensePass.
const (
	PassDot   = 1 // w[x] = <C[x], r>
	PassAxpy  = 2 // den += sum_x w[x] C[x] (after the dot, if any)
	PassScale = 4 // with PassDot: w[x] *= <C[x], r> instead of =
)

// DensePass runs one pass of IBU over the m x n row-major matrix p (rows
// C[x] = p[x*n:(x+1)*n]): with PassDot, w[x] = <C[x], r> (times w[x] with
// PassScale); then, with PassAxpy, den += sum_x w[x] C[x]. Its reference is
// the row-by-row loop
//
//	for x := range m {
//		s := dot(C[x], r)
//		w[x] = s            // PassDot; w[x] *= s with PassScale
//		den += w[x] * C[x]  // PassAxpy
//	}
//
// which the assembly runs on four rows at a time, reading each block of
// rows from memory once for both steps. r and den have n entries, w m;
// with PassScale, tmp has m entries too (scratch for the portable path,
// which makes the two steps two calls of gonum's Dgemv: about twice as
// fast as plain Go loops), otherwise it may be nil.
func DensePass(p []float64, m, n int, r, den, w, tmp []float64, mode int) {
	if m < 1 || n < 1 || len(p) < m*n || len(r) < n || len(den) < n || len(w) < m || (mode&PassScale != 0 && len(tmp) < m) {
		panic(fmt.Sprintf("asm: DensePass on %d x %d with %d entries, r %d, den %d, w %d, tmp %d", m, n, len(p), len(r), len(den), len(w), len(tmp)))
	}
	densePass(p[:m*n], m, n, r[:n], den[:n], w[:m], tmp, mode)
}

// densePassBLAS is the portable pass: s = C r, then den += C^T w, two
// gonum Dgemv calls (its kernels are assembly on amd64).
func densePassBLAS(p []float64, m, n int, r, den, w, tmp []float64, mode int) {
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: p[:m*n]}
	if mode&PassDot != 0 {
		s := w
		if mode&PassScale != 0 {
			s = tmp[:m]
		}
		blas64.Gemv(blas.NoTrans, 1, a, blas64.Vector{N: n, Inc: 1, Data: r}, 0, blas64.Vector{N: m, Inc: 1, Data: s})
		if mode&PassScale != 0 {
			w = w[:m]
			for x, v := range s {
				w[x] *= v
			}
		}
	}
	if mode&PassAxpy != 0 {
		blas64.Gemv(blas.Trans, 1, a, blas64.Vector{N: m, Inc: 1, Data: w}, 1, blas64.Vector{N: n, Inc: 1, Data: den})
	}
}

// densePassGo is DensePass's reference loop in plain Go: a four-way
// unrolled dot product and axpy on each row while it is in cache. It also
// serves the last rows of the assembly pass.
func densePassGo(p []float64, m, n int, r, den, w []float64, mode int) {
	r, den, w = r[:n], den[:n], w[:m]
	for x := range w {
		row := p[x*n : (x+1)*n : (x+1)*n]
		if mode&PassDot != 0 {
			s := DotUnroll(row, r)
			if mode&PassScale != 0 {
				w[x] *= s
			} else {
				w[x] = s
			}
		}
		if mode&PassAxpy != 0 {
			AxpyUnroll(w[x], row, den)
		}
	}
}

// RowStats returns the sum and the minimum of p (len(p) >= 1), for
// validating channel rows at memory speed: a NaN or infinite entry makes
// the sum non-finite (and a NaN the minimum NaN). Its reference is
//
//	for _, v := range p { sum += v; if v < minv || v != v { minv = v } }
func RowStats(p []float64) (sum, minv float64) {
	if len(p) == 0 {
		panic("asm: RowStats of an empty row")
	}
	return rowStats(p)
}

func rowStatsGo(p []float64) (s, mn float64) {
	mn = p[0]
	for _, v := range p {
		s += v
		if v < mn || v != v {
			mn = v
		}
	}
	return s, mn
}

// AxpyUnroll sets y += a*x for len(y) <= len(x), unrolled by four with the
// bounds checks hoisted.
func AxpyUnroll(a float64, x, y []float64) {
	n := len(y)
	x = x[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		xs := x[i : i+4 : i+4]
		ys := y[i : i+4 : i+4]
		ys[0] += a * xs[0]
		ys[1] += a * xs[1]
		ys[2] += a * xs[2]
		ys[3] += a * xs[3]
	}
	for ; i < n; i++ {
		y[i] += a * x[i]
	}
}

// DotUnroll returns sum x[i]*y[i] for len(x) <= len(y), with four
// independent accumulators.
func DotUnroll(x, y []float64) float64 {
	n := len(x)
	y = y[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		xs := x[i : i+4 : i+4]
		ys := y[i : i+4 : i+4]
		s0 += xs[0] * ys[0]
		s1 += xs[1] * ys[1]
		s2 += xs[2] * ys[2]
		s3 += xs[3] * ys[3]
	}
	for ; i < n; i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}
