package harness_test

import (
	"math"
	"testing"

	"privic/harness"
)

func TestMeanSD(t *testing.T) {
	for _, c := range []struct {
		name     string
		v        []float64
		mean, sd float64
		n        int
	}{
		// 2,4,4,4,5,5,7,9: mean 40/8 = 5, squared deviations sum to 32,
		// sample variance 32/7.
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7), 8},
		// 1, 3: mean 2, deviations ±1, sample variance 2/1.
		{"two", []float64{1, 3}, 2, math.Sqrt(2), 2},
		{"one", []float64{-3.5}, -3.5, 0, 1},
		// NaN marks a missing value: 1, 3 as above.
		{"missing", []float64{math.NaN(), 1, math.NaN(), 3}, 2, math.Sqrt(2), 2},
	} {
		mean, sd, n := harness.MeanSD(c.v)
		if math.Abs(mean-c.mean) > 1e-12 || math.Abs(sd-c.sd) > 1e-12 || n != c.n {
			t.Errorf("%s: MeanSD = %v, %v, %d; want %v, %v, %d", c.name, mean, sd, n, c.mean, c.sd, c.n)
		}
	}
	for _, v := range [][]float64{nil, {math.NaN()}} {
		if mean, sd, n := harness.MeanSD(v); !math.IsNaN(mean) || !math.IsNaN(sd) || n != 0 {
			t.Errorf("MeanSD(%v) = %v, %v, %d; want NaN, NaN, 0", v, mean, sd, n)
		}
	}
}
