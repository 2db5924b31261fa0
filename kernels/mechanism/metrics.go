package mechanism

import (
	"fmt"

	"privic/kernels"
)

// TightEpsOf is the tight epsilon of op, the channel m built at
// parameter p, by the fastest exact route. An operator gives its own
// (op.TightEpsilon). For a dense channel the route depends on m's own
// type (a type embedding one of these gets the brute force, since it may
// change the channel):
//   - RR: the closed form eps on a grid of two or more cells (adjacent
//     cells are at distance 1 and their log-ratio at y = x is exactly eps;
//     no pair's exceeds eps d(x,x'), see RR.Claim);
//   - BA (k = beta) and LAP (k = eps): channels of the form
//     c(y) e^{-k d(x,y)} / Z(x), kernels.TightEpsExp in O(|X||Y|);
//   - any other mechanism: the brute force, kernels.Channel.TightEpsilon.
//
// TestTightEpsOfMatchesBruteForce checks the fast routes against the brute
// force.
func TightEpsOf(m Mechanism, p float64, op kernels.ChannelOp) (float64, error) {
	if op == nil {
		return 0, fmt.Errorf("tight eps: channel is nil")
	}
	ch, ok := op.(*kernels.Channel)
	if !ok || ch == nil {
		return op.TightEpsilon()
	}
	switch m.(type) {
	case RR, *RR:
		if ch.In == ch.Out && ch.In.Len() >= 2 {
			return p, nil
		}
	case BA, *BA, LAP, *LAP:
		return kernels.TightEpsExp(ch, p)
	}
	return ch.TightEpsilon()
}

// Metrics are a channel's privacy and utility figures under a prior.
type Metrics struct {
	AvgDistortion     float64 // kernels.AvgDistortion: E d(x, y), cell units
	MutualInformation float64 // kernels.MutualInformation, nats
	TightEps          float64 // the channel's TightEpsilon
	BayesError        float64 // kernels.BayesError: the Bayes adversary's expected error, cell units
}

// Measure computes the Metrics of op under prior. mech, when not nil,
// is the mechanism that built op at parameter p, which gives faster
// exact routes: TightEpsOf for the tight epsilon, and, for an operator,
// the Bayes error on mech's dense channel.
//
// A dense channel (a *kernels.Channel) gets every metric; skipped is nil.
// On an operator the Bayes error, a minimum over guesses of products with
// the distance matrix for every report (O(|Y| |X|^2)), is dense by
// nature: it is computed on mech's dense channel where that work stays
// within BayesErrorMaxOps, and is NaN otherwise (or without mech); so is
// a tight epsilon the operator cannot give at its size (an error wrapping
// ErrIntractable). skipped lists why.
func Measure(prior []float64, op kernels.ChannelOp, mech Mechanism, p float64) (m Metrics, skipped []string, err error) {
	ch, dense := op.(*kernels.Channel)
	if !dense {
		return measureOp(prior, op, mech, p)
	}
	tightEps := ch.TightEpsilon
	if mech != nil {
		tightEps = func() (float64, error) { return TightEpsOf(mech, p, ch) }
	}
	m, err = measure(prior, ch, tightEps)
	return m, nil, err
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
