package harness_test

import (
	"math"
	"testing"

	"privic/harness"
)

// TestMeanSD checks the mean and the sample sd against values worked out
// by hand.
func TestMeanSD(t *testing.T) {
	type want struct {
		mean, sd float64
		n        int
	}
	cases := map[string]struct {
		v []float64
		want
	}{
		// 2,4,4,4,5,5,7,9: mean 40/8 = 5, squared deviations sum to 32,
		// sample variance 32/7.
		"eight": {[]float64{2, 4, 4, 4, 5, 5, 7, 9}, want{5, math.Sqrt(32.0 / 7), 8}},
		// 1, 3: mean 2, deviations ±1, sample variance 2/1.
		"two": {[]float64{1, 3}, want{2, math.Sqrt(2), 2}},
		"one": {[]float64{-3.5}, want{-3.5, 0, 1}},
		// NaN marks a missing value: 1, 3 as above.
		"missing": {[]float64{math.NaN(), 1, math.NaN(), 3}, want{2, math.Sqrt(2), 2}},
	}
	for name, c := range cases {
		mean, sd, n := harness.MeanSD(c.v)
		if math.Abs(mean-c.mean) > 1e-12 || math.Abs(sd-c.sd) > 1e-12 || n != c.n {
			t.Errorf("%s: MeanSD = %v, %v, %d; want %+v", name, mean, sd, n, c.want)
		}
	}
	for _, v := range [][]float64{nil, {math.NaN()}} {
		if mean, sd, n := harness.MeanSD(v); !math.IsNaN(mean) || !math.IsNaN(sd) || n != 0 {
			t.Errorf("MeanSD(%v) = %v, %v, %d; want NaN, NaN, 0", v, mean, sd, n)
		}
	}
}
