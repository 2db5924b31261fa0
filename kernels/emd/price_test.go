package emd

import (
	"math/rand/v2"
	"testing"
)

// TestArgminBelow checks the pricing scan (vector pre-scan where the CPU
// has it) against a plain loop with strict comparisons, on lengths around
// the vector widths, thresholds that many or no entries beat, and ties
// (the first of equal minima wins).
func TestArgminBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	plain := func(row, d []float64, thr float64) (float64, int) {
		bk := -1
		for k := range row {
			if r := row[k] - d[k]; r < thr {
				thr, bk = r, k
			}
		}
		return thr, bk
	}
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 200; trial++ {
			row, d := make([]float64, n), make([]float64, n+3)
			for k := range row {
				// Few distinct values, so ties are common.
				row[k] = float64(rng.IntN(6))
				d[k] = float64(rng.IntN(6))
			}
			thr := float64(rng.IntN(12) - 6)
			wv, wk := plain(row, d, thr)
			gv, gk := argminBelow(row, d, thr)
			if gv != wv || gk != wk {
				t.Fatalf("n=%d row=%v d=%v thr=%v: got (%v, %d), want (%v, %d)", n, row, d[:n], thr, gv, gk, wv, wk)
			}
			n4 := n &^ 3
			for k := 0; k <= n4; k += 4 {
				if g, w := scanBelow(row, d, k, n4, thr), scanBelowGo(row, d, k, n4, thr); g != w {
					t.Fatalf("n=%d k=%d thr=%v: scanBelow %d, portable %d", n, k, thr, g, w)
				}
			}
		}
	}
}

// TestSolveOn checks that the tabulated-distance path gives exactly
// SolveCommon's result (same costs, same pivots) on grid problems with
// empty cells and shared mass, and that it rejects mismatched input.
func TestSolveOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	x, y := gridPoints(7, 9)
	pts, err := NewPoints(x, y)
	if err != nil {
		t.Fatal(err)
	}
	var s1, s2 Solver
	for trial := 0; trial < 50; trial++ {
		a, b := make([]float64, len(x)), make([]float64, len(x))
		for i := range a {
			if rng.IntN(4) > 0 {
				a[i] = rng.Float64()
			}
			if rng.IntN(4) > 0 {
				b[i] = rng.Float64()
			}
			if rng.IntN(5) == 0 {
				b[i] = a[i] // shared mass cancels
			}
		}
		normalise(a)
		normalise(b)
		want, err := s1.SolveCommon(x, y, a, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s2.SolveOn(pts, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got.Cost != want.Cost || got.Pivots != want.Pivots {
			t.Fatalf("trial %d: SolveOn (%v, %d pivots), SolveCommon (%v, %d pivots)", trial, got.Cost, got.Pivots, want.Cost, want.Pivots)
		}
	}
	if _, err := s2.SolveOn(pts, make([]float64, 3), make([]float64, 3)); err == nil {
		t.Error("SolveOn accepted masses of the wrong length")
	}
	if _, err := NewPoints([]float64{0, 1}, []float64{0}); err == nil {
		t.Error("NewPoints accepted mismatched coordinates")
	}
}
