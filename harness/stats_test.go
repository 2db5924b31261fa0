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
	}{
		// 2,4,4,4,5,5,7,9: mean 40/8 = 5, squared deviations sum to 32,
		// sample variance 32/7.
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
		// 1, 3: mean 2, deviations ±1, sample variance 2/1.
		{"two", []float64{1, 3}, 2, math.Sqrt(2)},
		{"one", []float64{-3.5}, -3.5, 0},
	} {
		mean, sd := harness.MeanSD(c.v)
		if math.Abs(mean-c.mean) > 1e-12 || math.Abs(sd-c.sd) > 1e-12 {
			t.Errorf("%s: MeanSD = %v, %v; want %v, %v", c.name, mean, sd, c.mean, c.sd)
		}
	}
	if mean, sd := harness.MeanSD(nil); !math.IsNaN(mean) || !math.IsNaN(sd) {
		t.Errorf("MeanSD(nil) = %v, %v; want NaN, NaN", mean, sd)
	}
	if mean, sd := harness.MeanSD([]float64{1, math.NaN()}); !math.IsNaN(mean) || !math.IsNaN(sd) {
		t.Errorf("MeanSD with a NaN = %v, %v; want NaN, NaN (NaN propagates)", mean, sd)
	}
}
