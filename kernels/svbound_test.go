package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// svPrior is a random prior on an R x C grid with a deserted block (a
// fifth of the cells empty) and a few heavy cells, like the island priors.
func svPrior(rng *rand.Rand, R, C int) []float64 {
	p := make([]float64, R*C)
	for i := range p {
		r, c := i/C, i%C
		if r < R/3 && c < C/2 {
			continue
		}
		p[i] = rng.ExpFloat64()
		if rng.IntN(10) == 0 {
			p[i] *= 20
		}
	}
	return toDist(p)
}

// The certified bracket holds the smallest singular value of the dense SVD
// (an independent computation) on small grids, priors with deserted
// regions and betas from weak to strong, linear and log domain.
func TestSingularBoundsBracketSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct {
		R, C  int
		beta  float64
		iters int
	}{
		{4, 5, 0.2, 10}, {6, 6, 0.6, 10}, {8, 7, 1, 10}, {11, 15, 0.8, 10},
		{9, 12, 2.5, 5}, {10, 10, 5, 20}, {5, 9, 70, 10}, {12, 16, 0.05, 3},
	} {
		g, _ := NewGrid(tc.R, tc.C)
		prior := svPrior(rng, tc.R, tc.C)
		b := mustBA(t, g, prior, BAConfig{Beta: tc.beta, Iterations: tc.iters})
		lo, hi, err := b.SingularBounds()
		if err != nil {
			t.Fatal(err)
		}
		ch, err := b.Dense()
		if err != nil {
			t.Fatal(err)
		}
		a := mat.NewDense(g.Len(), g.Len(), append([]float64(nil), ch.P...))
		var svd mat.SVD
		if !svd.Factorize(a, mat.SVDNone) {
			t.Fatal("SVD failed")
		}
		v := svd.Values(nil)
		smin := v[len(v)-1]
		// The dense SVD's absolute error is about 1e-15 sigma_max.
		slack := 1e-14 * v[0]
		if !(lo <= smin+slack && smin <= hi+slack) {
			t.Errorf("%dx%d beta %v: bounds [%g, %g] do not hold the SVD's %g", tc.R, tc.C, tc.beta, lo, hi, smin)
		}
		if !(lo >= 0 && hi > 0 && hi <= 1) {
			t.Errorf("%dx%d beta %v: bounds [%g, %g] out of range", tc.R, tc.C, tc.beta, lo, hi)
		}
		if smin > 1e-10 && !(lo > 0) {
			t.Errorf("%dx%d beta %v: no positive lower bound for sigma_min = %g", tc.R, tc.C, tc.beta, smin)
		}
	}
}

// The lower bound on lambda_min(K) holds against the dense eigenvalues of
// K = exp(-beta d) on several grids, and is within a small factor of
// them on a large square (where the section approaches the operator).
func TestKernelEigenLowerBound(t *testing.T) {
	for _, tc := range []struct {
		R, C int
		beta float64
	}{{1, 2, 1}, {3, 3, 0.3}, {7, 9, 1}, {12, 12, 0.2}, {20, 20, 1}, {16, 24, 3}} {
		g, _ := NewGrid(tc.R, tc.C)
		m := g.Len()
		k := mat.NewSymDense(m, nil)
		for x := range m {
			for y := x; y < m; y++ {
				k.SetSym(x, y, math.Exp(-tc.beta*Dist(g, x, g, y)))
			}
		}
		var es mat.EigenSym
		if !es.Factorize(k, false) {
			t.Fatal("eigen failed")
		}
		lmin := es.Values(nil)[0]
		bound := 2 * math.Pi * tc.beta / math.Pow(tc.beta*tc.beta+2*math.Pi*math.Pi, 1.5)
		if bound > lmin*(1+1e-12) {
			t.Errorf("%dx%d beta %v: bound %g above lambda_min %g", tc.R, tc.C, tc.beta, bound, lmin)
		}
		if tc.R == 20 && lmin > 8*bound {
			t.Errorf("%dx%d beta %v: bound %g is loose against lambda_min %g", tc.R, tc.C, tc.beta, bound, lmin)
		}
	}
}

// On a large grid the bounds need only O(m) work and memory, and the
// upper bound agrees with the column norm summed independently.
func TestSingularBoundsLargeGrid(t *testing.T) {
	g, _ := NewGrid(150, 160) // 24,000 cells: beyond the dense cap
	prior := svPrior(rand.New(rand.NewPCG(1, 2)), g.Rows, g.Cols)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.7, Iterations: 3})
	if b.Channel() != nil {
		t.Fatal("the dense channel exists above MaxDenseCells")
	}
	lo, hi, err := b.SingularBounds()
	if err != nil {
		t.Fatal(err)
	}
	ymin := 0
	for y, v := range b.Marginal {
		if v < b.Marginal[ymin] {
			ymin = y
		}
	}
	col := make([]float64, g.Len())
	e := make([]float64, g.Len())
	e[ymin] = 1
	if err := b.Apply(col, e); err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for _, v := range col {
		s += v * v
	}
	if want := math.Sqrt(s); math.Abs(hi-want) > 1e-8*want {
		t.Errorf("upper bound %g, column norm %g", hi, want)
	}
	if !(lo > 0 && lo <= hi) {
		t.Errorf("bounds [%g, %g]", lo, hi)
	}
}
