package mechanism

import (
	"fmt"
	"math"

	"privic/kernels"
)

// Identification measures how well a Bayesian adversary who knows the
// prior and the channel identifies a user who is truly at cell a:
//
//	posterior = sum_y C[a,y] P(x=a | y),  P(x=a | y) = prior(a) C[a,y] / sum_x prior(x) C[x,y],
//
// the posterior probability of a averaged over the reports y ~ C[a,.] of
// the user at a (the adversary's chance of naming a if it guesses by
// sampling its posterior), and
//
//	mapProb = sum_y C[a,y] [a is a maximum-a-posteriori guess for y] / (number of MAP guesses for y),
//
// the chance that an adversary who guesses the MAP cell (breaking ties
// uniformly; entries within a relative 1e-12 count as tied) names a.
// When prior(a) = 0 both are 0. The harness reports posterior as
// identification_A and mapProb as identification_A_map.
//
// A dense channel (a *kernels.Channel) is read column by column from its
// matrix, skipping the reports a never makes; an operator gives its
// columns C e_y one at a time (see identificationOp), in O(|X| + |Y|)
// memory.
func Identification(prior []float64, op kernels.ChannelOp, a int) (posterior, mapProb float64, err error) {
	ch, dense := op.(*kernels.Channel)
	if !dense {
		return identificationOp(prior, op, a)
	}
	if err := ch.Validate(); err != nil {
		return 0, 0, fmt.Errorf("identification: %w", err)
	}
	if err := checkPrior("identification", ch.In, prior); err != nil {
		return 0, 0, err
	}
	m, n := ch.In.Len(), ch.Out.Len()
	if a < 0 || a >= m {
		return 0, 0, fmt.Errorf("identification: cell %d outside the %d cells of %v", a, m, ch.In)
	}
	col := make([]float64, m)
	for y := 0; y < n; y++ {
		if ch.P[a*n+y] == 0 {
			continue // adds nothing; skip the gather
		}
		for x := range col {
			col[x] = ch.P[x*n+y]
		}
		p, mp := identifyReport(prior, col, a)
		posterior += p
		mapProb += mp
	}
	return posterior, mapProb, nil
}

// identifyReport is what report y adds to the two sums of Identification:
// col is the channel's column C[.,y]. It returns C[a,y] P(x=a | y) and,
// when a is among the MAP guesses for y (within a relative 1e-12), C[a,y]
// over the number of them, else 0; both are 0 when C[a,y] = 0.
func identifyReport(prior, col []float64, a int) (posterior, mapProb float64) {
	ca := col[a]
	if ca == 0 {
		return 0, 0
	}
	q, best := 0.0, 0.0
	for x, c := range col {
		v := prior[x] * c
		q += v
		best = math.Max(best, v)
	}
	va := prior[a] * ca
	posterior = ca * va / q
	if va >= best*(1-1e-12) {
		ties := 0
		for x, c := range col {
			if prior[x]*c >= best*(1-1e-12) {
				ties++
			}
		}
		mapProb = ca / float64(ties)
	}
	return posterior, mapProb
}
