package harness

import "math"

// MeanSD returns the mean and the sample standard deviation (n-1
// denominator) of v: 0 for the sd of a single value, NaN for both when v
// is empty. A NaN in v makes both NaN; callers that mean to skip missing
// values filter them first.
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}
