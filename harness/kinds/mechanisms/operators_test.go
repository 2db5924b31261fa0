package mechanisms

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"privic/datasets"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
	"privic/kernels/mechanism"
)

// bigToy is a city of 32 x 33 cells (above kernels.DenseOpCells), with a
// deserted corner and a hotspot.
func bigToy() *datasets.Dataset {
	g := kernels.Grid{Rows: 32, Cols: 33}
	rng := rand.New(rand.NewPCG(8, 9))
	counts := make([]int, g.Len())
	n := 0
	for x := range counts {
		r, c := g.Cell(x)
		if r < 10 && c < 10 {
			continue
		}
		counts[x] = rng.IntN(30)
		if (r-20)*(r-20)+(c-18)*(c-18) < 16 {
			counts[x] += 300
		}
		n += counts[x]
	}
	return &datasets.Dataset{Name: "paris", Grid: g, Counts: counts, N: n}
}

// On a grid above kernels.DenseOpCells the mechanisms with a structured
// form run on operators: their frontier rows reach the calibrated level
// (checked against the dense channel built at the calibrated parameter),
// the Bayes error is the dense channel's, and the LP mechanism, dense by
// nature, stays on the dense path. (The planar Laplace's operator is
// checked against its dense channel in package mechanism.)
func TestRunOnOperators(t *testing.T) {
	p := toyParams(t)
	p.Sims = 1
	p.A = map[string]param.Loc{"paris": param.CellOf(20, 18)}
	p.aCells = map[string]param.Cell{"paris": {20, 18}}
	ds := bigToy()
	prior := ds.Prior()
	for _, tc := range []struct {
		mech, cal string
		level     float64
	}{{"ba", "eps", 1}, {"lap", "distortion", 1.5}, {"rr", "mi", 0.5}} {
		j := job{p: p, ds: ds, mech: tc.mech, calibration: tc.cal, level: tc.level}
		e, _ := p.reg.Lookup(tc.mech)
		if !useOperators(newMechanism(p, "paris", e), ds.Grid) {
			t.Fatalf("%s does not run on operators on %v", tc.mech, ds.Grid)
		}
		ts, err := def{p.reg}.Run(context.Background(), j, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatalf("%s: %v", tc.mech, err)
		}
		fr, cal := ts[0], ts[1]
		if len(fr.Rows) != 1 || col(t, cal, cal.Rows[0], "status") != "ok" {
			t.Fatalf("%s: %d frontier rows, calibration %v", tc.mech, len(fr.Rows), cal.Rows)
		}
		row := fr.Rows[0]
		par := fcol(t, fr, row, "parameter")
		s := build(p, "paris", tc.mech, ds.Grid)
		ch, err := s.m.Channel(s.in, s.out, prior, par)
		if err != nil {
			t.Fatal(err)
		}
		target, _ := mechanism.ParseTarget(tc.cal)
		var want float64
		if target == mechanism.TargetEps {
			want, err = mechanism.TightEpsOf(s.m, par, ch)
		} else {
			want, err = mechanism.TargetValue(target, prior, ch)
		}
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(want-tc.level) > 2e-6*tc.level {
			t.Errorf("%s: the dense channel at the calibrated %v has %s %v, want %v", tc.mech, par, tc.cal, want, tc.level)
		}
		// The Bayes error is dense by nature; on this grid it is within
		// mechanism.BayesErrorMaxOps, so computed on the dense channel.
		be, err := kernels.BayesError(prior, ch)
		if err != nil {
			t.Fatal(err)
		}
		if got := fcol(t, fr, row, "bayes_error"); got != be {
			t.Errorf("%s: bayes_error %v, dense %v", tc.mech, got, be)
		}
		if emd := fcol(t, fr, row, "emd"); !(emd > 0 && emd < 5) {
			t.Errorf("%s: emd %v", tc.mech, emd)
		}
		if id := fcol(t, fr, row, "identification_A"); !(id > 0 && id <= 1) {
			t.Errorf("%s: identification_A %v", tc.mech, id)
		}
	}
	e, _ := p.reg.Lookup("optimal")
	if useOperators(newMechanism(p, "paris", e), ds.Grid) {
		t.Error("the LP mechanism runs on operators")
	}
}
