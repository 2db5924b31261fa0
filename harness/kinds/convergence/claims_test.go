package convergence

import (
	"math"
	"strings"
	"testing"

	"privic/harness"
)

// The shape rule on rounds: a fall with an interval below 0 and a
// levelling within +-10% is reproduced (intervals as scipy's
// t.interval(0.95, 4, mean, sem): last - first in [-0.2154, -0.2086],
// change in [-3.5%, -2.0%]); a fall whose last 3 cycles change by about
// -30% is partly; a rise is not reproduced; a fall that 3 noisy rounds
// cannot separate from 0, or a change straddling -10% (the 100 m San
// Francisco full-batch curve's -11.3%), is undecided; one round gives no
// interval.
func TestShapeRule(t *testing.T) {
	for _, tc := range []struct {
		name                string
		first, before, last []float64
		want, reason        string
	}{
		{"falls and levels off", []float64{0.64, 0.65, 0.63, 0.645, 0.64}, []float64{0.44, 0.45, 0.43, 0.445, 0.44}, []float64{0.43, 0.44, 0.42, 0.43, 0.425},
			harness.Reproduced, ""},
		{"falls, still falling", []float64{1, 1.02, 0.98}, []float64{0.6, 0.61, 0.59}, []float64{0.42, 0.43, 0.41}, harness.Partly, ""},
		{"rises", []float64{0.4, 0.41, 0.39}, []float64{0.6, 0.61, 0.59}, []float64{0.6, 0.61, 0.6}, harness.NotReproduced, ""},
		{"noisy fall", []float64{1, 0.5, 1.5}, []float64{0.9, 0.7, 1.2}, []float64{0.9, 0.7, 1.2}, harness.Undecided, "falls"},
		{"change straddles -10%", []float64{4.1, 4.2, 4.0}, []float64{2.7, 2.6, 2.8}, []float64{2.4, 2.2, 2.6}, harness.Undecided, "levels off"},
		{"one round", []float64{1}, []float64{0.5}, []float64{0.5}, harness.Undecided, "no interval"},
	} {
		v, reason, s := shapeRule(tc.first, tc.before, tc.last)
		if v != tc.want || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
			t.Errorf("%s: %q (%q), want %q (%q); %s", tc.name, v, reason, tc.want, tc.reason, s.text())
		}
	}
	_, _, s := shapeRule([]float64{0.64, 0.65, 0.63, 0.645, 0.64}, []float64{0.44, 0.45, 0.43, 0.445, 0.44}, []float64{0.43, 0.44, 0.42, 0.43, 0.425})
	if math.Abs(s.fall[1]+0.21540043690329133) > 1e-9 || math.Abs(s.fall[2]+0.20859956309670877) > 1e-9 ||
		math.Abs(s.change[1]+0.03480891199622121) > 1e-9 || math.Abs(s.change[2]+0.01959272126875153) > 1e-9 {
		t.Errorf("intervals %v, %v; scipy gives [-0.2154, -0.2086], [-0.0348, -0.0196]", s.fall, s.change)
	}
}

// The values rule: within 10% of the paper's mean, or within two
// standard errors; cycle 0 is never compared; cycles only one side has
// are not compared.
func TestValuesRule(t *testing.T) {
	paper := [][]float64{{2.02}, {0.58, 0.58, 0.58, 0.58, 0.58}, {0.45, 0.46, 0.44, 0.45, 0.45}, {0.40, 0.40, 0.40, 0.40, 0.40}}
	for _, tc := range []struct {
		name   string
		ours   [][]float64
		want   string
		within int
		n      int
	}{
		{"within 10% everywhere", [][]float64{{9}, {0.62, 0.63}, {0.47, 0.48}, {0.42, 0.43}}, harness.Reproduced, 3, 3},
		{"+41% to +77% (the issue's default variant)", [][]float64{{2}, {0.82, 0.82}, {0.7, 0.71}, {0.71, 0.7}}, harness.NotReproduced, 0, 3},
		{"noisy: within two standard errors", [][]float64{{2}, {0.3, 1.3}, {0.1, 0.9}, {0.2, 1}}, harness.Reproduced, 3, 3},
		{"first cycle only", [][]float64{{2}, {0.6, 0.6}, {0.9, 0.9}}, harness.Partly, 1, 2},
		{"no common cycle", [][]float64{{2}}, harness.NotReproduced, 0, 0},
	} {
		v, within, n, _ := valuesRule(tc.ours, paper)
		if v != tc.want || within != tc.within || n != tc.n {
			t.Errorf("%s: %q, %d of %d; want %q, %d of %d", tc.name, v, within, n, tc.want, tc.within, tc.n)
		}
	}
}

// The beta rule by Welch's test: separated (scipy p = 0.0035) or not
// (p = 0.65), and one round cannot be tested.
func TestBetaRule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hi, lo []float64
		want   string
	}{
		{"larger beta better", []float64{1.5, 1.52, 1.49}, []float64{2.4, 2.5, 2.3}, harness.Reproduced},
		{"larger beta worse", []float64{2.4, 2.5, 2.3}, []float64{1.5, 1.52, 1.49}, harness.NotReproduced},
		{"not separated", []float64{1.0, 1.3, 0.8}, []float64{1.1, 1.4, 0.9}, harness.Undecided},
		{"one round", []float64{1}, []float64{2}, harness.Undecided},
	} {
		if v, _, _ := betaRule(tc.hi, tc.lo); v != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, v, tc.want)
		}
	}
}

// TestBetaClaim: the paper's beta claim at beta 1 and 0.5, and the same
// claim between the largest and smallest beta of a spec that scales the
// paper's betas (to smaller cells), one claim per dataset, decided on
// hand-made final-cycle rounds.
func TestBetaClaim(t *testing.T) {
	mk := func(betas []float64, finals map[float64][]float64) *finish {
		p := def{}.NewParams()
		p.Cities = []string{"paris", "sf"}
		p.Beta = harness.SweepOf(betas...)
		p.FirstMechanism, p.IBUStart, p.Mixing, p.Batches = []string{"ba-uniform"}, []string{"previous"}, []string{"weighted"}, []string{"iid"}
		p.EMDReference = []string{"population"}
		f := &finish{p: p, variants: p.variants(), curves: map[curveKey]*curve{}}
		v, ref := f.def()
		for b, last := range finals {
			// cycles 0..5; only the last one decides
			f.curves[curveKey{"paris", b, v, ref}] = &curve{byCycle: [][]float64{{2, 2, 2}, {1, 1, 1}, {0.9, 0.9, 0.9}, {0.8, 0.8, 0.8}, {0.7, 0.7, 0.7}, last},
				rounds: [][]int{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}}
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		betas   []float64
		finals  map[float64][]float64
		claim   string
		verdict string
	}{
		{"paper, larger beta better", []float64{0.5, 1}, map[float64][]float64{0.5: {0.43, 0.44, 0.42}, 1: {0.25, 0.26, 0.24}}, "for β = 1 than for β = 0.5", harness.Reproduced},
		{"paper, larger beta worse", []float64{0.5, 1}, map[float64][]float64{0.5: {0.2, 0.21, 0.19}, 1: {0.25, 0.26, 0.24}}, "for β = 1 than for β = 0.5", harness.NotReproduced},
		{"scaled, larger beta better", []float64{0.05213, 0.1043}, map[float64][]float64{0.05213: {3.1, 3.2, 3.0}, 0.1043: {2.2, 2.3, 2.1}}, "at the larger β", harness.Reproduced},
		{"scaled, within noise", []float64{0.1001, 0.2002}, map[float64][]float64{0.1001: {1, 1.5, 0.5}, 0.2002: {1.1, 1.6, 0.6}}, "at the larger β", harness.Undecided},
	} {
		var c *harness.Claim
		for _, cl := range mk(tc.betas, tc.finals).claims() {
			if strings.Contains(cl.Claim, "more accurate") && cl.Data == "Paris" {
				c = &cl
			}
		}
		if c == nil {
			t.Fatalf("%s: no beta claim on Paris", tc.name)
		}
		if !strings.Contains(c.Claim, tc.claim) || c.Verdict != tc.verdict || (c.Verdict == harness.Undecided) != (c.Reason != "") {
			t.Errorf("%s: %q / %q (%q), want claim with %q, verdict %q", tc.name, c.Claim, c.Verdict, c.Reason, tc.claim, tc.verdict)
		}
	}
}
