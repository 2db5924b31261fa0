package betasweep

import (
	"strings"
	"testing"

	"privic/harness"
)

// The beta-sweep rule on rounds: every step separated; a step of 3.56 ->
// 3.40 that 3 noisy rounds separate alone (scipy p = 0.025) but not after
// Holm across 3 steps, beside a noisier one (0.025 x 2 > 0.05:
// undecided); a significant rise in the
// middle of an overall fall (partly); a rise overall (not reproduced);
// an overall change within noise (undecided).
func TestSweepRule(t *testing.T) {
	for _, tc := range []struct {
		name         string
		sims         [][]float64
		want, reason string
	}{
		{"every step falls", [][]float64{{14.3, 14.4, 14.2}, {7.8, 7.9, 7.7}, {4.8, 4.7, 4.9}, {3.56, 3.55, 3.57}, {3.40, 3.42, 3.38}}, harness.Reproduced, ""},
		{"last steps within noise after Holm", [][]float64{{14.3, 14.4, 14.2}, {3.56, 3.50, 3.62}, {3.40, 3.45, 3.35}, {3.25, 3.35, 3.15}}, harness.Reproduced, ""},
		{"a rise in the middle", [][]float64{{14.3, 14.4, 14.2}, {7.8, 7.9, 7.7}, {9.1, 9.0, 9.2}, {3.40, 3.42, 3.38}}, harness.Partly, ""},
		{"rises overall", [][]float64{{1, 1.1, 0.9}, {2, 2.1, 1.9}}, harness.NotReproduced, ""},
		{"within noise overall", [][]float64{{1, 1.5, 0.5}, {0.9, 1.4, 0.4}}, harness.Undecided, "largest beta"},
		{"one beta", [][]float64{{1, 2}}, harness.Undecided, "fewer than 2"},
	} {
		v, reason, falls, _ := sweepRule(tc.sims)
		if v != tc.want || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
			t.Errorf("%s: %q (%q), want %q (%q)", tc.name, v, reason, tc.want, tc.reason)
		}
		if tc.name == "last steps within noise after Holm" && falls != 1 {
			t.Errorf("%s: %d steps separated, want 1", tc.name, falls)
		}
	}
}
