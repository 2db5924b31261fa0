package verdict

import (
	"math"
	"testing"

	"privic/harness"
)

// Welch's test against scipy.stats.ttest_ind(a, b, equal_var=False)
// (scipy 1.10), including the SF eps 0.5 comparison from 3
// simulations each, which does not separate at 0.05.
func TestWelchTest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []float64
		ok     bool
		p      float64
		differ bool
	}{
		{"3 sims, 2 standard errors apart", []float64{0.6308, 0.6251, 0.6365}, []float64{0.6380, 0.6363, 0.6397}, true, 0.15153181309332092, false},
		{"5 and 6 sims, separated", []float64{1.2, 1.9, 1.4, 1.7, 1.1}, []float64{2.1, 2.4, 1.8, 2.6, 2.2, 2.0}, true, 0.005277481402547543, true},
		{"one value: no variance", []float64{1}, []float64{2, 3}, false, math.NaN(), false},
		{"NaN values left out", []float64{1, math.NaN()}, []float64{2, 3}, false, math.NaN(), false},
		{"no spread, different means", []float64{1, 1}, []float64{2, 2}, true, 0, true},
		{"no spread, equal means", []float64{1, 1, 1}, []float64{1, 1}, true, 1, false},
	} {
		w, ok := WelchTest(tc.a, tc.b)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if !ok {
			if !math.IsNaN(w.P) {
				t.Errorf("%s: P %v without a test", tc.name, w.P)
			}
			continue
		}
		if math.Abs(w.P-tc.p) > 1e-9 {
			t.Errorf("%s: P %.12g, want %.12g", tc.name, w.P, tc.p)
		}
		if (w.P < Alpha) != tc.differ {
			t.Errorf("%s: separated %v, want %v", tc.name, w.P < Alpha, tc.differ)
		}
	}
}

// Holm's adjustment by hand: sorted 0.005, 0.01, 0.03, 0.04 are
// multiplied by 4, 3, 2, 1 and made non-decreasing (0.04 becomes 0.06);
// NaN stays out of the family.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.03, 0.06, math.NaN(), 0.06, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15) {
			t.Errorf("Holm[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Holm([]float64{0.6, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("capped at 1: %v", got)
	}
}

// The Student interval against scipy.stats.t.interval(0.95, 4, mean,
// sem) for the same five values.
func TestInterval(t *testing.T) {
	m, lo, hi, ok := Interval([]float64{1.2, 1.9, 1.4, 1.7, 1.1})
	if !ok || math.Abs(m-1.46) > 1e-12 || math.Abs(lo-1.0426087785527876) > 1e-9 || math.Abs(hi-1.8773912214472124) > 1e-9 {
		t.Errorf("interval %v [%v, %v] ok %v", m, lo, hi, ok)
	}
	if _, _, _, ok := Interval([]float64{3}); ok {
		t.Error("one value gave an interval")
	}
}

// Compare: Holm across the family can undo a separation that one test
// alone would make.
func TestCompare(t *testing.T) {
	a := [][]float64{{1, 1.1, 0.9}, {1, 1.2, 0.8, 1.1, 0.9}, {5}}
	b := [][]float64{{2, 2.1, 1.9}, {1.1, 1.3, 0.9, 1.2, 1.0}, {1, 2}}
	order, tests, all := Compare(a, b)
	if all {
		t.Error("a one-value sample was tested")
	}
	if order[0] != Lower || order[1] != Tie || order[2] != Tie {
		t.Errorf("orders %v", order)
	}
	if !(tests[0].P < Alpha) || math.IsNaN(tests[0].P) {
		t.Errorf("adjusted p %v", tests[0].P)
	}
	// Alone, p = 0.0376 (scipy) separates; in a family of two such tests
	// Holm doubles the smaller p to 0.075, and neither separates.
	x, y := []float64{0, 0.1, 0.2}, []float64{0.25, 0.35, 0.45}
	if w, _ := WelchTest(x, y); math.Abs(w.P-0.03759011151114646) > 1e-9 {
		t.Fatalf("alone p = %v", w.P)
	}
	if order, _, _ := Compare([][]float64{x}, [][]float64{y}); order[0] != Lower {
		t.Errorf("a family of one: %v", order)
	}
	if order, _, _ := Compare([][]float64{x, x}, [][]float64{y, y}); order[0] != Tie || order[1] != Tie {
		t.Errorf("Holm did not apply: %v", order)
	}
}

// Combine over every mix of part verdicts that matters.
func TestCombine(t *testing.T) {
	R, P, N, U := harness.Reproduced, harness.Partly, harness.NotReproduced, harness.Undecided
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{R, R}, R},
		{[]string{R, U}, U},
		{[]string{U, U}, U},
		{nil, U},
		{[]string{N, N}, N},
		{[]string{N, U}, N},
		{[]string{R, N}, P},
		{[]string{R, P}, P},
		{[]string{P, U}, P},
		{[]string{P}, P},
	} {
		if got := Combine(tc.parts...); got != tc.want {
			t.Errorf("Combine(%q) = %q, want %q", tc.parts, got, tc.want)
		}
	}
}
