package harness_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"privic/harness"
)

func decodeSweep(t *testing.T, src string) (harness.Sweep, error) {
	t.Helper()
	var v struct {
		S harness.Sweep `toml:"s"`
	}
	_, err := toml.Decode("s = "+src, &v)
	return v.S, err
}

func TestSweepForms(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []float64
	}{
		{"0.5", []float64{0.5}},
		{"3", []float64{3}},
		{"[0.5, 1, 2e-3]", []float64{0.5, 1, 0.002}},
		{"{start = 1, stop = 1, step = 0.5}", []float64{1}},
		{"{start = 1, stop = 2.2, step = 0.5}", []float64{1, 1.5, 2}},
		{"{start = -1, stop = 1, step = 0.5}", []float64{-1, -0.5, 0, 0.5, 1}},
	} {
		s, err := decodeSweep(t, c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got := s.Values()
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: values %v, want %v", c.src, got, c.want)
		}
	}
}

// TestSweepRangeClean checks that range values are the decimals a reader
// expects (0.2*k written with one decimal, parsed independently), that
// stop is included, and that zero is exactly zero.
func TestSweepRangeClean(t *testing.T) {
	s, err := harness.SweepRange(0.2, 5.0, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	vals := s.Values()
	if len(vals) != 25 {
		t.Fatalf("0.2..5.0 step 0.2: %d values, want 25", len(vals))
	}
	for k, v := range vals {
		want, _ := strconv.ParseFloat(fmt.Sprintf("%.1f", 0.2*float64(k+1)), 64)
		if v != want {
			t.Errorf("value %d = %v, want %v", k, v, want)
		}
		if f := harness.FormatFloat(v); len(f) > 3 {
			t.Errorf("value %d prints as %q", k, f)
		}
	}
	s, err = harness.SweepRange(-0.3, 0.3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Values()[3]; v != 0 || math.Signbit(v) {
		t.Errorf("middle of -0.3..0.3 is %v, want exactly 0", v)
	}
	if s.Len() != 7 {
		t.Errorf("-0.3..0.3 step 0.1: %d values, want 7", s.Len())
	}
}

func TestSweepValuesIsACopy(t *testing.T) {
	s := harness.SweepOf(1, 2)
	s.Values()[0] = 99
	if s.Values()[0] != 1 {
		t.Error("Values exposes the sweep's storage")
	}
}

func TestSweepCheck(t *testing.T) {
	s := harness.SweepOf(1, 2, 3, -0.2)
	err := s.Check("params.beta", "beta must be > 0", func(v float64) bool { return v > 0 })
	if err == nil || err.Error() != "params.beta[3] = -0.2: beta must be > 0" {
		t.Fatalf("Check = %v", err)
	}
	if err := harness.SweepOf(1).Check("params.beta", "x", func(v float64) bool { return v > 0 }); err != nil {
		t.Fatal(err)
	}
}

func TestSweepCheckCounts(t *testing.T) {
	for _, tc := range []struct {
		s    harness.Sweep
		want string // "" for no error
	}{
		{harness.SweepOf(2, 5, 1024), ""},
		{harness.Sweep{}, "params.sides: give at least one side"},
		{harness.SweepOf(2, 1), "params.sides[1] = 1: integers in [2, 1024]"},
		{harness.SweepOf(1025), "params.sides[0] = 1025: integers in [2, 1024]"},
		{harness.SweepOf(4, 2.5), "params.sides[1] = 2.5: integers in [2, 1024]"},
	} {
		err := tc.s.CheckCounts("params.sides", "side", 2, 1024, "integers in [2, 1024]")
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%v: CheckCounts = %v, want %q", tc.s.Values(), err, tc.want)
		}
	}
}

func TestSweepStringRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(5)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
		}
		s := harness.SweepOf(vals...)
		back, err := decodeSweep(t, s.String())
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		for i, v := range back.Values() {
			if v != vals[i] {
				t.Fatalf("%s: value %d read back as %v, want %v", s, i, v, vals[i])
			}
		}
	}
	r, _ := harness.SweepRange(1, 3, 1)
	if !strings.HasPrefix(r.String(), "{start = 1.0,") {
		t.Errorf("range renders as %s", r)
	}
}

func TestFormatParseFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0.1, "0.1"}, {1, "1"}, {-2.5, "-2.5"}, {1e-5, "1e-05"}, {1e21, "1e+21"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Inf"}, {math.Inf(-1), "-Inf"},
		{math.Copysign(0, -1), "0"}, {math.Nextafter(0.3, 1), "0.30000000000000004"},
	} {
		if got := harness.FormatFloat(c.v); got != c.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		v := math.Float64frombits(rng.Uint64())
		s := harness.FormatFloat(v)
		back, err := harness.ParseFloat(s)
		if err != nil {
			t.Fatalf("ParseFloat(%q): %v", s, err)
		}
		if math.IsNaN(v) {
			if !math.IsNaN(back) {
				t.Fatalf("%q read back as %v", s, back)
			}
			continue
		}
		if back != v && !(v == 0 && back == 0) {
			t.Fatalf("%v -> %q -> %v", v, s, back)
		}
	}
	for _, bad := range []string{"", "abc", "1,5", "1e400"} {
		if _, err := harness.ParseFloat(bad); err == nil {
			t.Errorf("ParseFloat(%q) accepted", bad)
		}
	}
}
