package kernels

import (
	"fmt"
	"math"
)

// checkDist reports whether p is a probability distribution over n cells:
// len(p) == n, every entry finite and >= 0, and |sum(p) - 1| <= StochasticTol*n.
// The tolerance grows with n because a sum of n correctly rounded terms
// carries up to about n ulps of error.
func checkDist(name string, p []float64, n int) error {
	if len(p) != n {
		return fmt.Errorf("%s has %d entries, want %d", name, len(p), n)
	}
	s := 0.0
	for i, v := range p {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("%s[%d] = %v: entries must be finite and >= 0", name, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > StochasticTol*float64(n) {
		return fmt.Errorf("%s sums to %v, want 1 (tolerance %g)", name, s, StochasticTol*float64(n))
	}
	return nil
}

// checkWeights reports whether w is a vector of n finite, non-negative
// weights with a positive total (report counts need not be normalised).
func checkWeights(name string, w []float64, n int) (total float64, err error) {
	if len(w) != n {
		return 0, fmt.Errorf("%s has %d entries, want %d", name, len(w), n)
	}
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return 0, fmt.Errorf("%s[%d] = %v: entries must be finite and >= 0", name, i, v)
		}
		total += v
	}
	if !(total > 0) || math.IsInf(total, 1) {
		return 0, fmt.Errorf("%s: total %v must be finite and > 0", name, total)
	}
	return total, nil
}

// checkPositive reports whether v is a finite number > 0.
func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%s = %v: must be finite and > 0", name, v)
	}
	return nil
}

// checkChannel validates ch fully (dimensions, entries, row sums).
func checkChannel(ch *Channel) error {
	if err := checkChannelShape(ch); err != nil {
		return err
	}
	return ch.Validate()
}

// smallestNormal is the least positive normal float64, and
// logSmallestNormal its logarithm (-708.3964...).
const (
	smallestNormal    = 0x1p-1022
	logSmallestNormal = -1022 * math.Ln2
)

// log is math.Log, correct also for subnormal x: on amd64 math.Log returns
// about -709.09 for every subnormal input (golang/go#56600), which would
// corrupt log-domain sums and tight-epsilon ratios of entries that
// underflowed. Subnormals are split with Frexp first.
func log(x float64) float64 {
	if x > 0 && x < smallestNormal {
		f, e := math.Frexp(x)
		return math.Log(f) + float64(e)*math.Ln2
	}
	return math.Log(x)
}
