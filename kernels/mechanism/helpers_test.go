package mechanism

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"

	"privic/kernels"
)

// bruteTightEps is the definition of the tight epsilon, written out
// independently of kernels.Channel.TightEpsilon: max over y and x != x' of
// |ln C[x,y] - ln C[x',y]| / d(x,x'), skipping columns that are all zero
// and returning +Inf if a column mixes zero and non-zero entries.
func bruteTightEps(ch *kernels.Channel) float64 {
	m, n := ch.In.Len(), ch.Out.Len()
	best := 0.0
	for y := 0; y < n; y++ {
		for x := 0; x < m; x++ {
			a := ch.P[x*n+y]
			for x2 := x + 1; x2 < m; x2++ {
				b := ch.P[x2*n+y]
				if a == 0 && b == 0 {
					continue
				}
				if a == 0 || b == 0 {
					return math.Inf(1)
				}
				v := math.Abs(math.Log(a)-math.Log(b)) / kernels.Dist(ch.In, x, ch.In, x2)
				best = math.Max(best, v)
			}
		}
	}
	return best
}

// checkStochastic fails t unless every row of ch is a distribution within tol.
func checkStochastic(t *testing.T, name string, ch *kernels.Channel, tol float64) {
	t.Helper()
	if len(ch.P) != ch.In.Len()*ch.Out.Len() {
		t.Fatalf("%s: %d entries for %v -> %v", name, len(ch.P), ch.In, ch.Out)
	}
	for x := 0; x < ch.In.Len(); x++ {
		s := 0.0
		for y, v := range ch.Row(x) {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%s: C[%d,%d] = %v", name, x, y, v)
			}
			s += v
		}
		if math.Abs(s-1) > tol {
			t.Errorf("%s: row %d sums to %.17g (|1-s| = %.3g > %.3g)", name, x, s, math.Abs(s-1), tol)
		}
	}
}

func mustGrid(t *testing.T, rows, cols int) kernels.Grid {
	t.Helper()
	g, err := kernels.NewGrid(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// normalise scales p in place to sum to 1.
func normalise(p []float64) { floats.Scale(1/floats.Sum(p), p) }

func uniformPrior(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}
