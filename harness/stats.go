package harness

import "math"

// MeanSD returns the mean and the sample standard deviation (n-1
// denominator) of the values of v that are not NaN, and their count n:
// the sd of a single value is 0, and both are NaN when n is 0. NaN marks
// a value that was not measured (a cycle a trajectory did not reach, for
// example), so it is left out rather than propagated.
func MeanSD(v []float64) (mean, sd float64, n int) {
	for _, x := range v {
		if !math.IsNaN(x) {
			mean += x
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0, n
	}
	ss := 0.0
	for _, x := range v {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	return mean, math.Sqrt(ss / float64(n-1)), n
}
