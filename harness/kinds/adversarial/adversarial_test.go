package adversarial

import (
	"context"
	"math"
	"strings"
	"testing"

	"privic/datasets"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/reftest"
)

// TestMatchesDirectComputation checks the report distribution of A and
// its identification on a corrupted island prior against plain BA.
func TestMatchesDirectComputation(t *testing.T) {
	const beta, f = 0.4, 0.29
	ds, err := datasets.Load("paris", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := def{}.NewParams()
	var s *island.Setup
	if err = p.Validate(); err == nil { // fills A and B from the Paris preset
		s, err = p.Setup()
	}
	if err != nil {
		t.Fatal(err)
	}
	ts, err := def{}.Run(context.Background(), job{p: p, s: s, beta: beta, fraction: f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Grid
	a := g.IndexOf(6, 3)
	prior := reftest.ReferenceIsland(g, ds.Prior())
	corrupted := make([]float64, len(prior))
	for i, v := range prior {
		corrupted[i] = (1 - f) * v
	}
	corrupted[a] += f
	C := reftest.BA(g, corrupted, beta, 10)
	rd := reftest.Table(t, ts, "report_distribution")
	if len(rd.Rows) != g.Len() {
		t.Fatalf("%d rows, want %d", len(rd.Rows), g.Len())
	}
	within1 := 0.0
	for _, r := range rd.Rows {
		row, col, pr := reftest.Int(t, rd, r, "row"), reftest.Int(t, rd, r, "col"), reftest.Float(t, rd, r, "probability")
		y := g.IndexOf(row, col)
		if !reftest.Close12(pr, C[a][y]) {
			t.Fatalf("(%d,%d): %v, direct %v", row, col, pr, C[a][y])
		}
		if reftest.Float(t, rd, r, "fraction") != f || reftest.Float(t, rd, r, "epsilon") != 2*beta {
			t.Fatalf("row %v: wrong fraction or epsilon", r)
		}
		if reftest.Dist(g, a, g, y) <= 1 {
			within1 += C[a][y]
		}
	}
	id := reftest.Table(t, ts, "identification")
	if got := reftest.Float(t, id, id.Rows[0], "p_within1"); math.Abs(got-within1) > 1e-12 {
		t.Errorf("p_within1 = %v, direct %v", got, within1)
	}
}

func TestClockwise(t *testing.T) {
	got := clockwise([]string{"tl", "tr", "br", "bl"})
	if strings.Join(got, ",") != "tl,tr,bl,br" {
		t.Errorf("clockwise = %v, want row-major tl,tr,bl,br", got)
	}
}
