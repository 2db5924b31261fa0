package mechanisms

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/verdict"
	"privic/kernels/mechanism"
	"privic/plots"
)

func TestRunHitsEveryFooting(t *testing.T) {
	// For every mechanism and footing, the job's metric columns (computed
	// by Measure on the calibrated channel) must show the level reached,
	// the identification values must be probabilities, and each simulation
	// must give a positive finite EMD.
	p := toyParams(t)
	levels := map[string]float64{"eps": 0.8, "distortion": 1.2, "mi": 0.6}
	column := map[string]string{"eps": "tight_epsilon", "distortion": "avg_distortion", "mi": "mutual_information"}
	for _, m := range p.reg.Names() {
		for _, cal := range []string{"eps", "distortion", "mi"} {
			fr, cb := runJob(t, p, m, cal, levels[cal])
			if len(cb.Rows) != 1 {
				t.Fatalf("%s %s: %d calibration rows", m, cal, len(cb.Rows))
			}
			if st := col(t, cb, cb.Rows[0], "status"); st != "ok" {
				t.Errorf("%s %s: status %q", m, cal, st)
				continue
			}
			if len(fr.Rows) != p.Sims {
				t.Fatalf("%s %s: %d frontier rows, want %d", m, cal, len(fr.Rows), p.Sims)
			}
			for i, r := range fr.Rows {
				if got := fcol(t, fr, r, column[cal]); math.Abs(got-levels[cal]) > 1e-6*levels[cal] {
					t.Errorf("%s %s: %s = %v, level %v", m, cal, column[cal], got, levels[cal])
				}
				if e := fcol(t, fr, r, "emd"); !(e > 0) || math.IsInf(e, 0) {
					t.Errorf("%s %s: emd %v", m, cal, e)
				}
				for _, c := range []string{"identification_A", "identification_A_map"} {
					if v := fcol(t, fr, r, c); !(v >= 0 && v <= 1) {
						t.Errorf("%s %s: %s = %v", m, cal, c, v)
					}
				}
				if s := col(t, fr, r, "sim"); s != fmt.Sprint(i) {
					t.Errorf("%s %s: sim %s at row %d", m, cal, s, i)
				}
			}
		}
	}
}

func TestRunRecordsSkipsAndUnreachableLevels(t *testing.T) {
	p := toyParams(t)
	p.LP.MaxConstraints = 10
	fr, cb := runJob(t, p, "optimal", "eps", 1)
	if len(fr.Rows) != 0 || !strings.HasPrefix(col(t, cb, cb.Rows[0], "status"), "skipped: ") {
		t.Errorf("LP above max_constraints: %d rows, status %q", len(fr.Rows), col(t, cb, cb.Rows[0], "status"))
	}
	// Randomized response cannot leak more than the prior's entropy.
	fr, cb = runJob(t, toyParams(t), "rr", "mi", 50)
	if len(fr.Rows) != 0 || !strings.HasPrefix(col(t, cb, cb.Rows[0], "status"), "out of reach: ") {
		t.Errorf("MI 50 nats: %d rows, status %q", len(fr.Rows), col(t, cb, cb.Rows[0], "status"))
	}
}

func TestRunIsDeterministic(t *testing.T) {
	p := toyParams(t)
	a, _ := runJob(t, p, "planar-laplace", "distortion", 1)
	b, _ := runJob(t, p, "planar-laplace", "distortion", 1)
	for i := range a.Rows {
		if strings.Join(a.Rows[i], ",") != strings.Join(b.Rows[i], ",") {
			t.Fatalf("row %d differs:\n%v\n%v", i, a.Rows[i], b.Rows[i])
		}
	}
}

func TestPlanAndValidate(t *testing.T) {
	p := defaultParams(builtin())
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	jobs, err := def{p.reg}.Plan(p)
	if err != nil {
		t.Fatal(err)
	}
	want := len(p.Cities) * len(p.Mechanisms) * (p.Eps.Len() + p.Distortion.Len() + p.MI.Len())
	if len(jobs) != want {
		t.Errorf("%d jobs, want %d", len(jobs), want)
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		if seen[j.Key] {
			t.Errorf("duplicate key %s", j.Key)
		}
		seen[j.Key] = true
	}
	bad := []func(p *params){
		func(p *params) { p.Cities = []string{"rome"} },
		func(p *params) { p.Mechanisms = []string{"ba", "ba"} },
		func(p *params) { p.Mechanisms = []string{"exponential"} },
		func(p *params) { p.Calibrations = []string{"qos"} },
		func(p *params) { p.Eps = harness.SweepOf(-1) },
		func(p *params) { p.MI = harness.Sweep{} },
		func(p *params) { p.Sims = 0 },
		func(p *params) { p.PlanarPoint = "corner" },
		func(p *params) { p.CalibrationTol = 0 },
		func(p *params) { p.CalibrationMethod = "newton" },
		func(p *params) { p.LP.Solver = "cplex" },
		func(p *params) { p.LP.Coarsen = map[string]int{"paris": 0} },
		func(p *params) { p.LP.Method = "simplex" },
		func(p *params) { p.LP.Spanners = map[string]int{"paris": 11} },
		func(p *params) { p.LP.Spanners = map[string]int{"rome": 1} },
		func(p *params) { p.LP.CalibrationTol = 0.5 },
		func(p *params) { p.LP.Calibrations = []string{"qos"} },
		func(p *params) { p.LP.Calibrations = []string{"eps", "eps"} },
		func(p *params) { p.A = map[string]param.Loc{"paris": {Cell: param.Cell{1}}} },
		func(p *params) { p.A = map[string]param.Loc{"paris": param.CellOf(11, 0)} },
		func(p *params) { p.A = map[string]param.Loc{"sf": {Place: "A"}} },
		func(p *params) { p.A = map[string]param.Loc{"rome": param.CellOf(1, 1)} },
		func(p *params) { p.Island.AMass = 1 },
	}
	for i, f := range bad {
		q := defaultParams(builtin())
		f(q)
		if err := q.Validate(); err == nil {
			t.Errorf("bad params %d accepted", i)
		}
	}
}

func TestFinishRanksAndDraws(t *testing.T) {
	// Run three mechanisms at two eps levels on the toy data, store the
	// job tables as the harness would, and check that Finish's leaders are
	// the mechanisms of least mean EMD recomputed here from frontier.csv,
	// named winners only when Welch's test separates them from the others
	// (recomputed with Holm's correction as well).
	p := toyParams(t)
	p.Sims = 5
	p.Mechanisms = []string{"ba", "lap", "rr"}
	p.Calibrations = []string{"eps"}
	p.Eps = harness.SweepOf(0.5, 2)
	dir := t.TempDir()
	var fr, cb harness.Table
	for _, m := range p.Mechanisms {
		for _, l := range p.Eps.Values() {
			f, c := runJob(t, p, m, "eps", l)
			fr.Name, fr.Header = f.Name, f.Header
			cb.Name, cb.Header = c.Name, c.Header
			fr.Rows = append(fr.Rows, f.Rows...)
			cb.Rows = append(cb.Rows, c.Rows...)
		}
	}
	writeTables(t, dir, fr, cb)
	out, err := harness.NewOutput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := (def{p.reg}).Finish(context.Background(), p, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Figures) != 1 || sec.Figures[0].Base != "frontier-paris" {
		t.Errorf("figures %v, want frontier-paris", sec.Figures)
	}
	for _, f := range []string{"frontier_summary.csv", "winners.csv", "mechanisms.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	mean := map[string]float64{}
	sims := map[string][]float64{}
	for _, r := range fr.Rows {
		k := col(t, fr, r, "mechanism") + "@" + col(t, fr, r, "level")
		mean[k] += fcol(t, fr, r, "emd") / float64(p.Sims)
		sims[k] = append(sims[k], fcol(t, fr, r, "emd"))
	}
	wt, err := out.ReadTable("winners")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range wt.Rows {
		if col(t, *wt, r, "criterion") != "emd" {
			continue
		}
		lv := col(t, *wt, r, "level")
		best, bestV := "", math.Inf(1)
		for _, m := range []string{"ba", "lap", "rr"} {
			if v := mean[m+"@"+lv]; v < bestV {
				best, bestV = m, v
			}
		}
		if got := fcol(t, *wt, r, "value"); math.Abs(got-bestV) > 1e-12*bestV {
			t.Errorf("level %s: leader's value %v, recomputed %v (%s)", lv, got, bestV, best)
		}
		var ps []float64
		for _, m := range []string{"ba", "lap", "rr"} {
			if m != best {
				w, _ := verdict.WelchTest(sims[best+"@"+lv], sims[m+"@"+lv])
				ps = append(ps, w.P)
			}
		}
		adj := verdict.Holm(ps)
		separated := adj[0] < verdict.Alpha && adj[1] < verdict.Alpha
		got, outcome := col(t, *wt, r, "winner"), col(t, *wt, r, "outcome")
		if separated && (got != best || outcome != "winner") || !separated && (got != "" || outcome != "tie" || !strings.Contains(col(t, *wt, r, "tied"), best)) {
			t.Errorf("level %s: winner %q (%s, tied %q), recomputed leader %s separated %v", lv, got, outcome, col(t, *wt, r, "tied"), best, separated)
		}
		checked++
	}
	if checked != 2 {
		t.Errorf("%d EMD rankings, want 2", checked)
	}
	if !strings.Contains(sec.Markdown, "frontier-paris.png") {
		t.Error("the section does not show the figure")
	}
}

// frontierCells are made-up frontier levels of the mechanisms named, at
// tight epsilon 0.5 to 4, with identification of A from near 0 to near
// 1 (so that data fill every corner of the identification panel).
func frontierCells(mechs ...string) []*cell {
	var cells []*cell
	for i, m := range mechs {
		for k, eps := range []float64{0.5, 1, 2, 4} {
			id := float64(k) / 3
			if i%2 == 1 {
				id = 1 - id
			}
			cells = append(cells, &cell{city: "paris", mech: m, cal: "eps", level: eps, eps: eps,
				emdMean: 1 / eps, emdSD: 0.1, dist: 2 / eps, idA: id})
		}
	}
	return cells
}

// TestFrontierStyles: each mechanism is drawn in its registry style
// whatever others run beside it: with planar Laplace and the optimal
// mechanism alone, the frontier shows their colours and not BA's (it
// used to give them the first colours of the palette: BA's blue to
// planar Laplace, LAP's vermillion to the optimal one).
func TestFrontierStyles(t *testing.T) {
	p := toyParams(t)
	ba, _ := mechanism.StyleOf("ba")
	opt, _ := mechanism.StyleOf("optimal")
	pl, _ := mechanism.StyleOf("planar-laplace")
	count := func(img image.Image, c color.RGBA) int {
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bl>>8) == c.B {
					n++
				}
			}
		}
		return n
	}
	for _, mechs := range [][]string{{"planar-laplace", "optimal-spanner1-coarse2"}, {"ba", "lap", "rr", "planar-laplace", "optimal-spanner1-coarse2"}} {
		fig, err := frontierFigure(p, "paris", frontierCells(mechs...))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := fig.Encode(&buf, "png"); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]color.RGBA{"optimal": opt.Color, "planar-laplace": pl.Color} {
			if n := count(img, c); n < 100 {
				t.Errorf("%v: %d pixels in %s's colour", mechs, n, name)
			}
		}
		if n := count(img, ba.Color); len(mechs) == 2 && n > 0 {
			t.Errorf("%v: %d pixels in BA's colour, which does not run", mechs, n)
		}
		for _, pn := range frontierPanels(p, "paris", frontierCells(mechs...)) {
			for _, s := range pn.Series {
				want, _ := mechanism.StyleOf(s.Name)
				if !reflect.DeepEqual(s.Style, plots.Style(want)) {
					t.Errorf("%v, panel %q: %s drawn in %+v, not its registry style", mechs, pn.Title, s.Name, s.Style)
				}
			}
		}
	}
}

// TestFrontierIdentificationIsAProbability: the identification panel's
// axis is a probability's, kept within [0, 1] by the plots (it ran to
// 1.5-2.0 when the legend needed room).
func TestFrontierIdentificationIsAProbability(t *testing.T) {
	found := false
	for _, pn := range frontierPanels(toyParams(t), "paris", frontierCells("ba", "lap", "rr", "planar-laplace")) {
		if strings.HasPrefix(pn.Title, "Identification of A") {
			found = true
			if !pn.Opt.Probability {
				t.Error("the identification panel's axis is not a probability's")
			}
		} else if pn.Opt.Probability {
			t.Errorf("panel %q is marked a probability", pn.Title)
		}
	}
	if !found {
		t.Error("no identification panel")
	}
}
