package adversarial

import (
	"strings"
	"testing"

	"privic/harness"
	"privic/harness/kinds/internal/island"
)

// The adversarial rules: weight around A (P(report within 500 m of A))
// non-decreasing in f and higher at the largest f, at every level
// (reproduced), some (partly) or none (not reproduced); a flat curve
// does not grow; the expected posterior of A non-decreasing at every
// level (reproduced) or rising above its f = 0 value somewhere (partly).
func TestAdversarialRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float64
		want bool
	}{
		{"rises", []float64{0.01, 0.1, 0.8}, true},
		{"flat", []float64{0.2, 0.2, 0.2}, false},
		{"dips", []float64{0.01, 0.3, 0.2, 0.8}, false},
		{"non-decreasing with a plateau", []float64{0.01, 0.3, 0.3, 0.8}, true},
	} {
		if got := grows(tc.v); got != tc.want {
			t.Errorf("grows %s: %v, want %v", tc.name, got, tc.want)
		}
	}
	p := def{}.NewParams()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Beta = harness.SweepOf(0.4, 0.6)
	level := func(beta float64, near, post []float64) []*point {
		var out []*point
		for i := range near {
			out = append(out, &point{beta: beta, f: 0.1 * float64(i), st: island.LocStats{PNear: near[i], ExpPosterior: post[i]},
				sv: island.Singular{Exact: 1e-6, Floor: 1e-13}, tight: beta})
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		pts        map[float64][]*point
		near, post string
	}{
		{"both grow", map[float64][]*point{0.4: level(0.4, []float64{0.01, 0.5}, []float64{0.01, 0.03}), 0.6: level(0.6, []float64{0.01, 0.8}, []float64{0.02, 0.05})},
			harness.Reproduced, harness.Reproduced},
		{"posterior rises then falls", map[float64][]*point{0.4: level(0.4, []float64{0.01, 0.5, 0.7}, []float64{0.016, 0.03, 0.024}), 0.6: level(0.6, []float64{0.01, 0.6, 0.4}, []float64{0.02, 0.086, 0.034})},
			harness.Partly, harness.Partly},
		{"nothing grows", map[float64][]*point{0.4: level(0.4, []float64{0.5, 0.5}, []float64{0.03, 0.01}), 0.6: level(0.6, []float64{0.5, 0.4}, []float64{0.05, 0.02})},
			harness.NotReproduced, harness.NotReproduced},
	} {
		cl := checkClaims(p, tc.pts, nil)
		if cl[0].Verdict != tc.near || cl[1].Verdict != tc.post || !strings.Contains(cl[0].Rule, "500 m") || cl[0].Data != "Paris" {
			t.Errorf("%s: %q and %q, want %q and %q (rule %q)", tc.name, cl[0].Verdict, cl[1].Verdict, tc.near, tc.post, cl[0].Rule)
		}
	}
}
