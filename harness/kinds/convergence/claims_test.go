package convergence

import (
	"strings"
	"testing"

	"privic/harness"
)

// TestBetaClaim: the paper's beta claim at beta 1 and 0.5, and the same
// claim between the largest and smallest beta of a spec that scales the
// paper's betas (to smaller cells): decided on hand-made final-cycle
// means, whichever beta is the more accurate.
func TestBetaClaim(t *testing.T) {
	mk := func(betas []float64, finals map[float64]float64) *finish {
		p := def{}.NewParams()
		p.Cities = []string{"paris"}
		p.Beta = harness.SweepOf(betas...)
		p.FirstMechanism, p.IBUStart, p.Mixing, p.Batches = []string{"ba-uniform"}, []string{"previous"}, []string{"weighted"}, []string{"iid"}
		p.EMDReference = []string{"population"}
		f := &finish{p: p, variants: p.variants(), curves: map[curveKey]*curve{}}
		v, ref := f.def()
		for b, last := range finals {
			// cycles 0..5; only the last one decides
			f.curves[curveKey{"paris", b, v, ref}] = &curve{byCycle: [][]float64{{2}, {1}, {0.9}, {0.8}, {0.7}, {last, last}}}
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		betas   []float64
		finals  map[float64]float64
		claim   string
		verdict string
		ev      string
	}{
		{"paper, larger beta better", []float64{0.5, 1}, map[float64]float64{0.5: 0.43, 1: 0.25},
			"for β = 1 than for β = 0.5", harness.Reproduced, "β=1 0.25 vs β=0.5 0.43"},
		{"paper, larger beta worse", []float64{0.5, 1}, map[float64]float64{0.5: 0.2, 1: 0.25},
			"for β = 1 than for β = 0.5", harness.NotReproduced, "β=1 0.25 vs β=0.5 0.2"},
		{"scaled, larger beta better", []float64{0.05213, 0.1043}, map[float64]float64{0.05213: 3.1, 0.1043: 2.2},
			"at the larger β", harness.Reproduced, "β=0.1043 2.2 vs β=0.05213 3.1"},
		{"scaled, larger beta worse", []float64{0.1001, 0.2002}, map[float64]float64{0.1001: 1, 0.2002: 1.5},
			"at the larger β", harness.NotReproduced, "β=0.2002 1.5 vs β=0.1001 1"},
	} {
		cl := mk(tc.betas, tc.finals).claims()
		if len(cl) != 2 {
			t.Fatalf("%s: %d claims, want 2", tc.name, len(cl))
		}
		c := cl[1]
		if !strings.Contains(c.Claim, tc.claim) || c.Verdict != tc.verdict || !strings.Contains(c.Evidence, tc.ev) {
			t.Errorf("%s: %q / %q / %q, want claim with %q, verdict %q, evidence with %q", tc.name, c.Claim, c.Verdict, c.Evidence, tc.claim, tc.verdict, tc.ev)
		}
	}
	if cl := mk([]float64{0.5}, map[float64]float64{0.5: 1}).claims(); len(cl) != 1 {
		t.Errorf("one beta: %d claims, want the convergence claim alone", len(cl))
	}
}
