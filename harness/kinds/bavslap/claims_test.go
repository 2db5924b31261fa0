package bavslap

import (
	"strings"
	"testing"

	"privic/harness"
)

// The paper's crossover rule on hand-made winners: both halves hold;
// BA's half fails (the committed result: LAP better everywhere); a tie in
// BA's range with nothing against the claim is undecided; a sweep without
// a beta in BA's range can only be partly; mixed halves are partly.
func TestCrossoverRule(t *testing.T) {
	betas := []float64{0.2, 0.4, 0.6, 0.8, 1.0, 1.2}
	claimed := []string{"ba", "ba", "ba", "lap", "lap", "lap"}
	for _, tc := range []struct {
		name   string
		won    []string
		claim  []string
		want   string
		reason string
	}{
		{"both halves hold", []string{"ba", "ba", "ba", "lap", "lap", "lap"}, claimed, harness.Reproduced, ""},
		{"LAP better everywhere", []string{"lap", "lap", "lap", "lap", "lap", "lap"}, claimed, harness.NotReproduced, ""},
		{"LAP or a tie in BA's range", []string{"lap", "", "lap", "lap", "lap", "lap"}, claimed, harness.NotReproduced, ""},
		{"a tie, nothing against", []string{"ba", "", "ba", "lap", "lap", ""}, claimed, harness.Undecided, "at 2 betas"},
		{"BA wins above its range", []string{"ba", "ba", "ba", "lap", "ba", "lap"}, claimed, harness.Partly, ""},
		{"LAP wins once in BA's range", []string{"ba", "lap", "ba", "lap", "lap", "lap"}, claimed, harness.Partly, ""},
		{"no beta in BA's range, LAP half holds", []string{"lap", "lap"}, []string{"lap", "lap"}, harness.Partly, ""},
		{"no beta in BA's range, LAP half tied", []string{"lap", ""}, []string{"lap", "lap"}, harness.Undecided, "at 1 betas"},
		{"no beta in BA's range, LAP half fails", []string{"ba", "ba"}, []string{"lap", "lap"}, harness.NotReproduced, ""},
		{"betas the paper says nothing of are ignored", []string{"lap", "ba", "ba", "lap", "lap", "lap"}, []string{"", "ba", "ba", "lap", "lap", "lap"}, harness.Reproduced, ""},
	} {
		v, reason, _ := crossoverRule(betas[:len(tc.won)], tc.won, tc.claim)
		if v != tc.want || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
			t.Errorf("%s: %q (%q), want %q (%q)", tc.name, v, reason, tc.want, tc.reason)
		}
	}
}

// The crossover rule without the paper's ranges.
func TestGeneralRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		won     []string
		want    string
		changes int
	}{
		{"BA then LAP", []string{"ba", "ba", "", "lap"}, harness.Reproduced, 1},
		{"LAP everywhere (the fine grids)", []string{"lap", "lap", "lap"}, harness.NotReproduced, 0},
		{"nothing separated", []string{"", "", ""}, harness.Undecided, 0},
		{"BA, LAP, BA", []string{"ba", "lap", "ba"}, harness.Partly, 2},
		{"starts with a tie", []string{"", "ba", "lap"}, harness.Partly, 1},
		{"BA everywhere", []string{"ba", "ba"}, harness.Partly, 0},
	} {
		v, _, ch := generalRule(tc.won)
		if v != tc.want || ch != tc.changes {
			t.Errorf("%s: %q with %d changes, want %q with %d", tc.name, v, ch, tc.want, tc.changes)
		}
	}
}

// Winners by Welch's test with Holm across the betas: far apart is a
// win; 2 standard errors from 3 simulations is not (the SF
// eps 0.5 pair, p = 0.15 by scipy); one simulation cannot be tested.
func TestWinners(t *testing.T) {
	ba := [][]float64{{1.6, 1.62, 1.59, 1.61, 1.6}, {0.6308, 0.6251, 0.6365}, {0.1}, {0.2, 0.21, 0.19}}
	lap := [][]float64{{0.64, 0.65, 0.63, 0.64, 0.66}, {0.6380, 0.6363, 0.6397}, {0.5}, {0.9, 0.91, 0.92}}
	got := winners(ba, lap)
	if want := []string{"lap", "", "", "ba"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("winners %q, want %q", got, want)
	}
}

// The falls-towards-0 rule, with the cases: Paris at 50 m falls
// at every step but stays at 13.7% of its start with 0.62 check-ins per
// cell (undecided: sparsity); San Francisco at 100 m (12.7 per cell) with
// one curve above the cut is partly.
func TestConvergeRule(t *testing.T) {
	// Curves as simulations per beta.
	curve := func(start, end float64) [][]float64 {
		return [][]float64{{start, start * 1.01, start * 0.99}, {(start + end) / 2, (start + end) / 2 * 1.01, (start + end) / 2 * 0.99}, {end, end * 1.01, end * 0.99}}
	}
	paris := []fallsTo0{fallRule(curve(16.4, 2.25)), fallRule(curve(6.79, 0.873))}
	if paris[0].below || !paris[0].above || !paris[0].monotone {
		t.Fatalf("Paris BA curve: %+v", paris[0])
	}
	for _, tc := range []struct {
		name    string
		curves  []fallsTo0
		perCell float64
		want    string
		reason  string
	}{
		{"Paris 50 m: sparse", paris, 0.62, harness.Undecided, "too few check-ins per cell"},
		{"the same curves on a dense grid", paris, 12.7, harness.NotReproduced, ""},
		{"both below, dense", []fallsTo0{fallRule(curve(21.9, 0.964)), fallRule(curve(3.86, 0.12))}, 12.7, harness.Reproduced, ""},
		{"one below, one above", []fallsTo0{fallRule(curve(1.62, 0.61)), fallRule(curve(0.463, 0.0254))}, 12.7, harness.Partly, ""},
		{"not monotone and sparse: no excuse", []fallsTo0{fallRule([][]float64{{10, 10.1, 9.9}, {0.5, 0.51, 0.49}, {3, 3.1, 2.9}})}, 0.5, harness.NotReproduced, ""},
		{"at the cut: not separated", []fallsTo0{fallRule([][]float64{{10, 10.5, 9.5}, {1, 1.2, 0.8}})}, 50, harness.Undecided, "too few simulations"},
	} {
		v, reason := convergeRule(tc.curves, tc.perCell)
		if v != tc.want || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
			t.Errorf("%s: %q (%q), want %q (%q)", tc.name, v, reason, tc.want, tc.reason)
		}
	}
}
