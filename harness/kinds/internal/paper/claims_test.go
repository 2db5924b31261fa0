package paper

import (
	"math"
	"strings"
	"testing"

	"privic/harness"
)

// With every exact value the bounds claim is the exact claim; with bounds
// a channel counts as invertible when its lower bound clears the
// threshold, as not when its upper bound does not, and as undecided
// otherwise.
func TestInvertibilityBoundsClaim(t *testing.T) {
	exact := []float64{4.8e-6, 1e-5}
	if a, b := InvertibilityBoundsClaim("x", exact, []float64{1e-7, 1e-7}, []float64{1e-4, 1e-4}), InvertibilityClaim("x", exact); a != b {
		t.Errorf("exact values: %+v, want %+v", a, b)
	}
	nan := math.NaN()
	c := InvertibilityBoundsClaim("x", []float64{nan, nan, nan, 3e-5}, []float64{2e-9, 1e-40, 1e-20, 1e-7}, []float64{1e-3, 1e-34, 1e-6, 1e-4})
	if c.Verdict != harness.Partly {
		t.Errorf("verdict %q, want %q", c.Verdict, harness.Partly)
	}
	if !strings.Contains(c.Evidence, "for 2 of 4 channels, at most 1e-12 for 1, undecided by the bounds for 1") {
		t.Errorf("evidence %q", c.Evidence)
	}
	c = InvertibilityBoundsClaim("x", []float64{nan}, []float64{1e-41}, []float64{1e-34})
	if c.Verdict != harness.NotReproduced {
		t.Errorf("certainly singular: verdict %q", c.Verdict)
	}
}
