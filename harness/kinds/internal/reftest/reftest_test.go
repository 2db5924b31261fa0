package reftest

import (
	"math"
	"testing"

	"privic/kernels"
)

// TestEMDClosedForm checks the reference EMD itself on cases with known
// answers, so the comparisons that use it rest on something.
func TestEMDClosedForm(t *testing.T) {
	g := kernels.Grid{Rows: 2, Cols: 2}
	cost := func(i, j int) float64 { return Dist(g, i, g, j) }
	// Point mass at (0,0) to point mass at (1,1): sqrt 2.
	if got := EMD(t, []float64{1, 0, 0, 0}, []float64{0, 0, 0, 1}, cost); !RelClose(got, math.Sqrt2, 1e-12) {
		t.Errorf("point masses: got %v, want sqrt 2", got)
	}
	// Half the mass moves one cell, from (0,1) to (1,1): 0.5.
	if got := EMD(t, []float64{0.5, 0.5, 0, 0}, []float64{0.5, 0, 0, 0.5}, cost); !RelClose(got, 0.5, 1e-12) {
		t.Errorf("half shift: got %v, want 0.5", got)
	}
}

// TestPlainKernelsByHand checks the plain BA, LAP, tight epsilon and IBU
// on a 1x2 grid worked out by hand.
func TestPlainKernelsByHand(t *testing.T) {
	g := kernels.Grid{Rows: 1, Cols: 2}
	// LAP at eps = ln 3: rows (3/4, 1/4) and (1/4, 3/4); tight eps ln 3.
	L := Laplace(g, g, math.Log(3))
	if !RelClose(L[0][0], 0.75, 1e-15) || !RelClose(L[1][0], 0.25, 1e-15) || !RelClose(TightEps(g, L), math.Log(3), 1e-15) {
		t.Errorf("LAP %v, tight eps %v", L, TightEps(g, L))
	}
	// One BA step from uniform on the prior (1/2, 1/2): c uniform, so LAP
	// at beta.
	C := BA(g, []float64{0.5, 0.5}, math.Log(3), 1)
	if !RelClose(C[0][0], 0.75, 1e-15) {
		t.Errorf("BA %v", C)
	}
	// IBU on exact reports of the prior (0.8, 0.2) through L converges to
	// it: q = (0.65, 0.35).
	th := IBU(L, []float64{0.65, 0.35}, 2000)
	if !RelClose(th[0], 0.8, 1e-6) {
		t.Errorf("IBU %v, want (0.8, 0.2)", th)
	}
}
