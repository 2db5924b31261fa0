package elastic

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/reftest"
	"privic/kernels"
)

// TestTablesMatchDirectComputation checks the elastic job's tables
// against plain implementations of the island, BA, tight epsilon, LAP,
// singular values and the location statistics.
func TestTablesMatchDirectComputation(t *testing.T) {
	p := def{}.NewParams()
	if err := p.Validate(); err != nil { // fills A and B from the Paris preset
		t.Fatal(err)
	}
	const beta = 0.6
	s, err := p.Setup()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := def{}.Run(context.Background(), job{p: p, s: s, beta: beta}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("paris", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Grid
	wide := g.Widen(5)
	prior := reftest.ReferenceIsland(g, ds.Prior())
	C := reftest.BA(g, prior, beta, 10)
	tight := reftest.TightEps(g, C)
	if tight > 2*beta+1e-9 {
		t.Errorf("direct BA: tight eps %v > 2 beta", tight)
	}
	L := reftest.Laplace(g, wide, tight)
	// The paper's A and B: cells (6, 3) and (3, 7).
	a, b := g.IndexOf(6, 3), g.IndexOf(3, 7)
	checkDistributions(t, reftest.Table(t, ts, "report_distribution"), g, wide, C, L, tight, a, b)
	checkSingularValue(t, reftest.Table(t, ts, "channels"), C)
	checkStats(t, reftest.Table(t, ts, "location_stats"), g, wide, prior, C, L, a)
}

// checkDistributions checks every report probability of A and B against
// the plain channels C (BA) and L (LAP).
func checkDistributions(t *testing.T, rd *harness.Table, g, wide kernels.Grid, C, L [][]float64, tight float64, a, b int) {
	t.Helper()
	counts := map[string]int{}
	for _, r := range rd.Rows {
		mech, loc := reftest.Cell(t, rd, r, "mechanism"), reftest.Cell(t, rd, r, "location")
		counts[mech+loc]++
		if eps := reftest.Float(t, rd, r, "epsilon"); !reftest.RelClose(eps, tight, 1e-9) {
			t.Fatalf("epsilon %v, direct tight eps %v", eps, tight)
		}
		x := a
		if loc == "B" {
			x = b
		}
		row, col, pr := reftest.Int(t, rd, r, "row"), reftest.Int(t, rd, r, "col"), reftest.Float(t, rd, r, "probability")
		switch mech {
		case "ba":
			if want := C[x][g.IndexOf(row, col)]; !reftest.Close12(pr, want) {
				t.Fatalf("BA %s (%d,%d): %v, direct %v", loc, row, col, pr, want)
			}
		case "lap":
			if want := L[x][wide.IndexOf(row, col)]; math.Abs(pr-want) > 1e-10*want+1e-300 {
				t.Fatalf("LAP %s (%d,%d): %v, direct %v", loc, row, col, pr, want)
			}
		default:
			t.Fatalf("mechanism %q", mech)
		}
	}
	if counts["baA"] != g.Len() || counts["baB"] != g.Len() || counts["lapA"] != wide.Len() || counts["lapB"] != wide.Len() {
		t.Errorf("row counts %v, want %d per BA location and %d per LAP location", counts, g.Len(), wide.Len())
	}
}

// checkSingularValue checks the smallest singular value against gonum's
// SVD of the direct channel.
func checkSingularValue(t *testing.T, ch *harness.Table, C [][]float64) {
	t.Helper()
	dense := mat.NewDense(len(C), len(C), nil)
	for x := range C {
		dense.SetRow(x, C[x])
	}
	var svd mat.SVD
	if !svd.Factorize(dense, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	sv := svd.Values(nil)
	if got := reftest.Float(t, ch, ch.Rows[0], "ba_min_singular_value"); !reftest.RelClose(got, sv[len(sv)-1], 1e-6) {
		t.Errorf("min singular value %v, direct SVD %v", got, sv[len(sv)-1])
	}
}

// checkStats checks the location statistics of A under both mechanisms,
// counted directly from the plain channels and the island prior.
func checkStats(t *testing.T, st *harness.Table, g, wide kernels.Grid, prior []float64, C, L [][]float64, a int) {
	t.Helper()
	for _, r := range st.Rows {
		if reftest.Cell(t, st, r, "location") != "A" {
			continue
		}
		M, out := C, g
		if reftest.Cell(t, st, r, "mechanism") == "lap" {
			M, out = L, wide
		}
		desert, outside, block, ident := 0.0, 0.0, 0.0, 0.0
		for y, v := range M[a] {
			ar, ac := out.Row0+y/out.Cols, out.Col0+y%out.Cols
			bi := g.IndexOf(ar, ac)
			if bi < 0 {
				outside += v
			}
			if bi < 0 || prior[bi] == 0 {
				desert += v
			}
			if bi >= 0 && bi != a && ar >= 4 && ar <= 8 && ac >= 1 && ac <= 5 {
				block += v
			}
			best, arg := -1.0, -1
			for x := range M {
				if w := prior[x] * M[x][y]; w > best {
					best, arg = w, x
				}
			}
			if arg == a {
				ident += v
			}
		}
		for name, want := range map[string]float64{"p_deserted": desert, "p_outside_grid": outside,
			"p_island_block": block, "map_identification": ident} {
			if got := reftest.Float(t, st, r, name); math.Abs(got-want) > 1e-9 {
				t.Errorf("%s at A: %s = %v, direct %v", reftest.Cell(t, st, r, "mechanism"), name, got, want)
			}
		}
	}
}
