package mechanism

import (
	"fmt"

	"privic/kernels"
)

// TargetValue computes target t of channel ch under prior: the tight
// epsilon (prior unused), the average distortion, or the mutual
// information in nats.
func TargetValue(t Target, prior []float64, ch *kernels.Channel) (float64, error) {
	switch t {
	case TargetEps:
		return kernels.TightEps(ch)
	case TargetDistortion:
		return kernels.AvgDistortion(prior, ch)
	case TargetMI:
		return kernels.MutualInformation(prior, ch)
	}
	return 0, fmt.Errorf("unknown target %d", int(t))
}

// TightEpsOf is the tight epsilon of ch, the channel m built at
// parameter p, by the fastest exact route for m's own type (a type
// embedding one of these gets the brute force, since it may change the
// channel):
//   - RR: the closed form eps on a grid of two or more cells (adjacent
//     cells are at distance 1 and their log-ratio at y = x is exactly eps;
//     no pair's exceeds eps d(x,x'), see RR.Claim);
//   - BA (k = beta) and LAP (k = eps): channels of the form
//     c(y) e^{-k d(x,y)} / Z(x), kernels.TightEpsExp in O(|X||Y|);
//   - any other mechanism: the brute force kernels.TightEps.
//
// TestTightEpsOfMatchesBruteForce checks the fast routes against the brute
// force.
func TightEpsOf(m Mechanism, p float64, ch *kernels.Channel) (float64, error) {
	if ch == nil {
		return kernels.TightEps(ch)
	}
	switch m.(type) {
	case RR, *RR:
		if ch.In == ch.Out && ch.In.Len() >= 2 {
			return p, nil
		}
	case BA, *BA, LAP, *LAP:
		return kernels.TightEpsExp(ch, p)
	}
	return kernels.TightEps(ch)
}

// Metrics are a channel's privacy and utility figures under a prior.
type Metrics struct {
	AvgDistortion     float64 // kernels.AvgDistortion: E d(x, y), cell units
	MutualInformation float64 // kernels.MutualInformation, nats
	TightEps          float64 // kernels.TightEps
	BayesError        float64 // kernels.BayesError: the Bayes adversary's expected error, cell units
}

// Measure computes the Metrics of ch under prior.
func Measure(prior []float64, ch *kernels.Channel) (Metrics, error) {
	return measure(prior, ch, func() (float64, error) { return kernels.TightEps(ch) })
}

// MeasureOf is Measure for the channel that mechanism mech built at
// parameter p, with its tight epsilon from TightEpsOf.
func MeasureOf(mech Mechanism, p float64, prior []float64, ch *kernels.Channel) (Metrics, error) {
	return measure(prior, ch, func() (float64, error) { return TightEpsOf(mech, p, ch) })
}

func measure(prior []float64, ch *kernels.Channel, tightEps func() (float64, error)) (Metrics, error) {
	var m Metrics
	var err error
	if m.AvgDistortion, err = kernels.AvgDistortion(prior, ch); err != nil {
		return m, fmt.Errorf("measure: %w", err)
	}
	if m.MutualInformation, err = kernels.MutualInformation(prior, ch); err != nil {
		return m, fmt.Errorf("measure: %w", err)
	}
	if m.TightEps, err = tightEps(); err != nil {
		return m, fmt.Errorf("measure: %w", err)
	}
	if m.BayesError, err = kernels.BayesError(prior, ch); err != nil {
		return m, fmt.Errorf("measure: %w", err)
	}
	return m, nil
}
