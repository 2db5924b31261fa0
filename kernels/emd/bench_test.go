package emd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchCase is a synthetic stand-in for the EMD(prior, IBU estimate)
// workload: a heavy-tailed distribution with about 13% empty cells on an
// r x c grid against a blurred copy of itself (blur kernel exp(-d), as a
// BA channel at beta = 1 would spread it).
func benchCase(r, c int) (x, y, p, q []float64) {
	rng := rand.New(rand.NewPCG(uint64(r), uint64(c)))
	x, y = gridPoints(r, c)
	k := len(x)
	p = make([]float64, k)
	for i := range p {
		if rng.IntN(8) > 0 {
			p[i] = math.Exp(2 * rng.NormFloat64())
		}
	}
	normalise(p)
	return x, y, p, blurred(x, y, p)
}

// blurred is p spread over the points (x, y) by the kernel exp(-d), each
// row normalised, as a BA channel at beta = 1 would spread it; the result
// is normalised to a distribution.
func blurred(x, y, p []float64) []float64 {
	q := make([]float64, len(p))
	for i := range q {
		z := 0.0
		for j := range q {
			w := math.Exp(-math.Hypot(x[i]-x[j], y[i]-y[j]))
			q[i] += w * p[j]
			z += w
		}
		q[i] /= z
	}
	normalise(q)
	return q
}

// BenchmarkSolvePoints: the Paris-sized (11 x 15) and SF-sized (16 x 24)
// synthetic cases, reusing one Solver.
func BenchmarkSolvePoints(b *testing.B) {
	for _, sz := range []struct {
		name string
		r, c int
	}{{"11x15", 11, 15}, {"16x24", 16, 24}} {
		x, y, p, q := benchCase(sz.r, sz.c)
		b.Run(sz.name, func(b *testing.B) {
			var s Solver
			b.ReportAllocs()
			pivots := 0
			for b.Loop() {
				res, err := s.SolvePoints(x, y, p, x, y, q)
				if err != nil {
					b.Fatal(err)
				}
				pivots = res.Pivots
			}
			b.ReportMetric(float64(pivots), "pivots")
		})
	}
}

// BenchmarkSolveMatrix: the same 16 x 24 case as a full 384 x 384 problem
// with a precomputed cost matrix (no cancellation of shared mass), the form
// POT's ot.emd2 solves.
func BenchmarkSolveMatrix(b *testing.B) {
	x, y, p, q := benchCase(16, 24)
	cost := euclid(x, y, x, y)
	var s Solver
	b.ReportAllocs()
	pivots := 0
	for b.Loop() {
		res, err := s.SolveMatrix(p, q, cost)
		if err != nil {
			b.Fatal(err)
		}
		pivots = res.Pivots
	}
	b.ReportMetric(float64(pivots), "pivots")
}

// BenchmarkSolveOn: the cases of BenchmarkSolvePoints on tabulated points
// (NewPoints once), as PRIVIC measures its thousands of EMDs.
func BenchmarkSolveOn(b *testing.B) {
	for _, sz := range []struct {
		name string
		r, c int
	}{{"11x15", 11, 15}, {"16x24", 16, 24}} {
		x, y, p, q := benchCase(sz.r, sz.c)
		pts, err := NewPoints(x, y)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(sz.name, func(b *testing.B) {
			var s Solver
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.SolveOn(pts, p, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
