package island

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"privic/harness"
	"privic/kernels"
)

// The invertibility rule, channel by channel and for the claim: exact
// values and bounds against the noise floor, with the edges (a value
// equal to the floor, bounds straddling it) and the cases (the
// 100 m San Francisco bounds straddle a floor of about 2e-12; a paper-grid
// value of 3e-14 under a floor of 9e-14 is numerically singular, not a
// refutation).
func TestInvertibilityRule(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name     string
		svs      []Singular
		verdicts []string
		verdict  string
		reason   string
	}{
		{"exact above the floor", []Singular{{Exact: 4.8e-6, Lo: 1e-9, Hi: 1e-3, Floor: 4e-14}},
			[]string{Invertible}, harness.Reproduced, ""},
		{"exact at the floor", []Singular{{Exact: 4e-14, Lo: 1e-20, Hi: 1e-3, Floor: 4e-14}},
			[]string{NumericallySingular}, harness.Undecided, "1 of 1 channels numerically singular"},
		{"paper grid: 3.2e-14 under 9e-14", []Singular{{Exact: 6e-9, Floor: 9e-14}, {Exact: 3.24e-14, Floor: 9e-14}},
			[]string{Invertible, NumericallySingular}, harness.Undecided, "1 of 2 channels numerically singular"},
		{"lower bound above the floor", []Singular{{Exact: nan, Lo: 3e-11, Hi: 1.8e-6, Floor: 4e-12}},
			[]string{Invertible}, harness.Reproduced, ""},
		{"fine San Francisco: bounds straddle", []Singular{{Exact: nan, Lo: 1.3e-13, Hi: 1.88e-8, Floor: 2.1e-12}},
			[]string{BoundsStraddle}, harness.Undecided, "bounds of 1 of 1 channels straddle"},
		{"upper bound at or below the floor", []Singular{{Exact: nan, Lo: 1e-20, Hi: 2e-12, Floor: 2e-12}},
			[]string{NumericallySingular}, harness.Undecided, "numerically singular"},
		{"no channel", nil, nil, harness.Undecided, "no channel measured"},
	} {
		for i, s := range tc.svs {
			if v := s.Verdict(); v != tc.verdicts[i] {
				t.Errorf("%s: channel %d: %q, want %q", tc.name, i, v, tc.verdicts[i])
			}
		}
		c := InvertibilityClaim("Paris", "island prior", tc.svs)
		if c.Verdict != tc.verdict || !strings.Contains(c.Reason, tc.reason) || (tc.reason == "") != (c.Reason == "") {
			t.Errorf("%s: %q (%q), want %q with reason %q", tc.name, c.Verdict, c.Reason, tc.verdict, tc.reason)
		}
		if c.Verdict == harness.NotReproduced {
			t.Errorf("%s: refuted an exact theorem from floating point", tc.name)
		}
		if c.Data != "Paris" || !strings.Contains(c.Rule, "noise floor") || c.Simulations != harness.Exact {
			t.Errorf("%s: data %q, rule %q, simulations %q", tc.name, c.Data, c.Rule, c.Simulations)
		}
	}
}

// The noise floor is m · eps_mach · sqrt(largest column sum), and it
// bounds m · eps_mach · sigma_max from above (sigma_max by gonum's SVD).
func TestNoiseFloor(t *testing.T) {
	g := kernels.Grid{Rows: 4, Cols: 5}
	prior := make([]float64, g.Len())
	for i := range prior {
		prior[i] = float64(1 + i%7)
	}
	s := 0.0
	for _, v := range prior {
		s += v
	}
	for i := range prior {
		prior[i] /= s
	}
	ba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: 0.7, Iterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ba.Dense()
	if err != nil {
		t.Fatal(err)
	}
	m, n := g.Len(), g.Len()
	big := 0.0
	for y := 0; y < n; y++ {
		c := 0.0
		for x := 0; x < m; x++ {
			c += ch.P[x*n+y]
		}
		big = math.Max(big, c)
	}
	floor, err := NoiseFloor(ba)
	if err != nil {
		t.Fatal(err)
	}
	want := float64(m) * 0x1p-52 * math.Sqrt(big)
	if math.Abs(floor-want) > 1e-12*want {
		t.Errorf("floor %v, want %v", floor, want)
	}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(m, n, ch.P), mat.SVDNone) {
		t.Fatal("SVD")
	}
	if smax := svd.Values(nil)[0]; floor < float64(m)*0x1p-52*smax*(1-1e-12) {
		t.Errorf("floor %v below m eps sigma_max = %v", floor, float64(m)*0x1p-52*smax)
	}
}
