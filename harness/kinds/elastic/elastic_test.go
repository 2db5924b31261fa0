package elastic

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/reftest"
	"privic/kernels"
	"privic/kernels/mechanism"
	"privic/plots"
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
	ts, d := runWithDirect(t, p, beta)
	g, wide, C, L, tight := d.g, d.wide, d.C, d.L, d.tight
	if tight > 2*beta+1e-9 {
		t.Errorf("direct BA: tight eps %v > 2 beta", tight)
	}
	// The paper's A and B: cells (6, 3) and (3, 7).
	a, b := g.IndexOf(6, 3), g.IndexOf(3, 7)
	checkDistributions(t, reftest.Table(t, ts, "report_distribution"), g, wide, C, L, tight, a, b)
	checkSingularValue(t, reftest.Table(t, ts, "channels"), C)
	checkStats(t, reftest.Table(t, ts, "location_stats"), d, map[string][][]float64{"ba": C, "lap": L}, a)
	if em := reftest.Table(t, ts, "elastic_metric"); len(em.Rows) != 0 {
		t.Errorf("elastic_metric rows %v without the mechanism requested", em.Rows)
	}
}

// TestElasticMetricBesideBAAndLAP: with "elastic-metric" listed, its
// channel (the exponential mechanism over the elastic metric of the
// island prior) has the tight epsilon LAP gets, measured on the plain
// channel; its location statistics are counted directly from it; and the
// average distortions of the three channels match plain sums.
func TestElasticMetricBesideBAAndLAP(t *testing.T) {
	p := def{}.NewParams()
	p.Mechanisms = []string{"ba", "lap", "elastic-metric"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	const beta = 0.8
	ts, d := runWithDirect(t, p, beta)
	g, wide, prior, C, L, tight := d.g, d.wide, d.prior, d.C, d.L, d.tight
	em := reftest.Table(t, ts, "elastic_metric")
	if len(em.Rows) != 1 {
		t.Fatalf("elastic_metric: %d rows", len(em.Rows))
	}
	r := em.Rows[0]
	param := reftest.Float(t, em, r, "parameter")
	ch, err := mechanism.Elastic{}.Channel(g, g, prior, param)
	if err != nil {
		t.Fatal(err)
	}
	E := make([][]float64, g.Len())
	for x := range E {
		E[x] = ch.Row(x)
	}
	if got := reftest.TightEps(g, E); !reftest.RelClose(got, tight, 1e-6) || !reftest.RelClose(reftest.Float(t, em, r, "tight_epsilon"), got, 1e-9) {
		t.Errorf("elastic-metric at parameter %v: tight eps %v (table %v), LAP's eps %v", param, got, reftest.Float(t, em, r, "tight_epsilon"), tight)
	}
	distortion := func(M [][]float64, out kernels.Grid) float64 {
		d := 0.0
		for x, row := range M {
			for y, v := range row {
				d += prior[x] * v * reftest.Dist(g, x, out, y)
			}
		}
		return d
	}
	for name, want := range map[string]float64{"avg_distortion_ba": distortion(C, g), "avg_distortion_lap": distortion(L, wide),
		"avg_distortion_elastic_metric": distortion(E, g)} {
		if got := reftest.Float(t, em, r, name); !reftest.RelClose(got, want, 1e-6) {
			t.Errorf("%s = %v, direct %v", name, got, want)
		}
	}
	// LAP and the elastic-metric mechanism again at BA's average
	// distortion: their parameters give it on the plain channels.
	eq := reftest.Table(t, ts, "equal_distortion")
	chans := map[string][][]float64{"ba": C, "lap": L, "elastic-metric": E}
	for _, r := range eq.Rows {
		mech, param := reftest.Cell(t, eq, r, "mechanism"), reftest.Float(t, eq, r, "parameter")
		var M [][]float64
		out := g
		switch mech {
		case "lap":
			out, M = wide, reftest.Laplace(g, wide, param)
		case "elastic-metric":
			ch, err := mechanism.Elastic{}.Channel(g, g, prior, param)
			if err != nil {
				t.Fatal(err)
			}
			for x := range g.Len() {
				M = append(M, ch.Row(x))
			}
		default:
			t.Fatalf("equal_distortion: mechanism %q", mech)
		}
		if got, want := distortion(M, out), distortion(C, g); !reftest.RelClose(got, want, 2e-6) {
			t.Errorf("%s at parameter %v: distortion %v, BA's %v", mech, param, got, want)
		}
		chans[mech+"-equal-distortion"] = M
	}
	if len(eq.Rows) != 2 {
		t.Errorf("equal_distortion: %d rows, want lap and elastic-metric", len(eq.Rows))
	}
	checkStats(t, reftest.Table(t, ts, "location_stats"), d, chans, g.IndexOf(6, 3))
	for _, bad := range [][]string{{"ba"}, {"ba", "lap", "optimal"}, {"ba", "lap", "lap"}} {
		q := def{}.NewParams()
		q.Mechanisms = bad
		if err := q.Validate(); err == nil || !strings.Contains(err.Error(), "mechanisms") {
			t.Errorf("mechanisms %q: %v", bad, err)
		}
	}
}

// direct holds the plain computations the elastic job's tables are
// checked against: the Paris grid and its widening for LAP, the island
// prior, the BA channel C, its tight epsilon and the LAP channel L at it.
type direct struct {
	g, wide kernels.Grid
	prior   []float64
	C, L    [][]float64
	tight   float64
}

// runWithDirect runs the elastic job for the validated params p at beta
// and computes the same quantities directly, with the reference code.
func runWithDirect(t *testing.T, p *params, beta float64) ([]harness.Table, direct) {
	t.Helper()
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
	d := direct{g: ds.Grid, wide: ds.Grid.Widen(5)}
	d.prior = reftest.ReferenceIsland(d.g, ds.Prior())
	d.C = reftest.BA(d.g, d.prior, beta, 10)
	d.tight = reftest.TightEps(d.g, d.C)
	d.L = reftest.Laplace(d.g, d.wide, d.tight)
	return ts, d
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

// checkStats checks the location statistics of A under the mechanisms of
// chans, counted directly from the plain channels and the island prior;
// deserted cells by a quadrature of the prior within the deserted radius
// (cells within 2% of the uniform prior's mass are left out of the
// comparison, and their probability is the tolerance).
func checkStats(t *testing.T, st *harness.Table, d direct, chans map[string][][]float64, a int) {
	t.Helper()
	g, wide, prior := d.g, d.wide, d.prior
	desert, unsure := directDeserted(d, wide)
	seen := map[string]bool{}
	for _, r := range st.Rows {
		if reftest.Cell(t, st, r, "location") != "A" {
			continue
		}
		mech := reftest.Cell(t, st, r, "mechanism")
		M := chans[mech]
		if M == nil {
			continue // the uniform baseline, tested in package island
		}
		seen[mech] = true
		out := g
		if len(M[a]) == wide.Len() {
			out = wide
		}
		pDes, tol, outside, block, ident := 0.0, 1e-9, 0.0, 0.0, 0.0
		for y, v := range M[a] {
			ar, ac := out.Row0+y/out.Cols, out.Col0+y%out.Cols
			bi := g.IndexOf(ar, ac)
			if bi < 0 {
				outside += v
			}
			wi := wide.IndexOf(ar, ac)
			if desert[wi] {
				pDes += v
			}
			if unsure[wi] {
				tol += v
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
		for name, want := range map[string]float64{"p_deserted": pDes, "p_outside_grid": outside,
			"p_island_block": block, "map_identification": ident} {
			lim := 1e-9
			if name == "p_deserted" {
				lim = tol
			}
			if got := reftest.Float(t, st, r, name); math.Abs(got-want) > lim {
				t.Errorf("%s at A: %s = %v, direct %v", mech, name, got, want)
			}
		}
	}
	if len(seen) != len(chans) {
		t.Errorf("location_stats has A for %v, want %d mechanisms", seen, len(chans))
	}
}

// TestFiguresShowElasticMetric: when the elastic-metric mechanism ran,
// the report distributions get a third column for it (the figures had
// BA and LAP only), titled with its tight epsilon.
func TestFiguresShowElasticMetric(t *testing.T) {
	width := func(mechs ...string) float64 {
		p := def{}.NewParams()
		p.Mechanisms = mechs
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		s, err := p.Setup()
		if err != nil {
			t.Fatal(err)
		}
		l := &level{beta: 0.5, eps: 1, tight: 1, dist: map[string][]island.CellProb{}, elastic: &elasticRow{param: 2, tight: 0.98}}
		for _, m := range mechs {
			for _, loc := range []string{"A", "B"} {
				l.dist[m+"/"+loc] = []island.CellProb{{Row: 6, Col: 3, P: 0.7}, {Row: 3, Col: 7, P: 0.3}}
			}
		}
		figs, err := figures(p, s, []*level{l})
		if err != nil {
			t.Fatal(err)
		}
		if len(figs) != 2 {
			t.Fatalf("%d figures, want A's and B's", len(figs))
		}
		w, _ := figs[0].Fig.(*plots.Figure).Size()
		return float64(w)
	}
	two, three := width("ba", "lap"), width("ba", "lap", "elastic-metric")
	if three < 1.4*two {
		t.Errorf("with the elastic-metric mechanism the figure is %.0f pt wide, without %.0f: want a third column", three, two)
	}
}

// directDeserted marks the deserted cells of out (which contains the
// city grid) by summing the island prior over a 40 x 40 lattice of points
// in every cell near the centre, each carrying its cell's mass spread
// evenly, within the default radius; unsure marks the cells within 2%
// of the uniform prior's mass, where the quadrature cannot decide.
func directDeserted(d direct, out kernels.Grid) (desert, unsure []bool) {
	ds, err := datasets.Load("paris", datasets.LoadOptions{})
	if err != nil {
		panic(err)
	}
	h, w, r := ds.CellHeightM, ds.CellWidthM, 250.0
	const k = 40
	g := d.g
	desert, unsure = make([]bool, out.Len()), make([]bool, out.Len())
	for j := range desert {
		yr, yc := out.Abs(j)
		if g.IndexOf(yr, yc) < 0 {
			desert[j] = true
			continue
		}
		mass, uni := 0.0, 0.0
		for x := range g.Len() {
			xr, xc := g.Abs(x)
			if abs(xr-yr) > 2 || abs(xc-yc) > 2 {
				continue
			}
			in := 0
			for i := 0; i < k; i++ {
				for l := 0; l < k; l++ {
					dx := (float64(xc-yc) - 0.5 + (float64(l)+0.5)/k) * w
					dy := (float64(xr-yr) - 0.5 + (float64(i)+0.5)/k) * h
					if dx*dx+dy*dy <= r*r {
						in++
					}
				}
			}
			f := float64(in) / (k * k)
			mass += f * d.prior[x]
			uni += f / float64(g.Len())
		}
		desert[j] = mass < uni
		unsure[j] = math.Abs(mass-uni) <= 0.02*uni
	}
	return desert, unsure
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
