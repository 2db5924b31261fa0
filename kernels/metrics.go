package kernels

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"privic/kernels/internal/asm"
)

// denseOnly returns op's dense form (see denseForm) for the operations
// that need the matrix, or an error naming op's type and grids.
func denseOnly(name string, op ChannelOp) (*Channel, error) {
	if ch, _, ok := denseForm(op); ok {
		return ch, nil
	}
	if op == nil {
		return nil, fmt.Errorf("%s: channel is nil", name)
	}
	in, out := op.Grids()
	return nil, fmt.Errorf("%s: not available for %T on %v -> %v: dense channels only (structured ones below %d cells)", name, op, in, out, DenseOpCells)
}

// checkPriorChannel validates a prior over ch.In and the channel.
func checkPriorChannel(name string, prior []float64, ch *Channel) error {
	if err := checkChannel(ch); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return checkDist(name+": prior", prior, ch.In.Len())
}

// avgDistortion is AvgDistortion on a dense channel that has passed
// checkPriorChannel.
func avgDistortion(prior []float64, ch *Channel) (float64, error) {
	od := newOffsetDist(ch.In, ch.Out)
	return priorMean(prior, ch, func(x int, row []float64) float64 {
		s := 0.0
		for y, v := range row {
			s += v * od.at(x, y)
		}
		return s
	}), nil
}

// priorMean returns the sum over the input cells x with prior(x) > 0 of
// prior(x) f(x, C[x,:]): the prior's mean of a per-row quantity, which
// need not be defined on rows the prior never draws.
func priorMean(prior []float64, ch *Channel, f func(x int, row []float64) float64) float64 {
	total := 0.0
	for x, p := range prior {
		if p == 0 {
			continue
		}
		total += p * f(x, ch.Row(x))
	}
	return total
}

func marginal(prior []float64, ch *Channel) []float64 {
	q := make([]float64, ch.Out.Len())
	for x, p := range prior {
		if p != 0 {
			asm.AxpyUnroll(p, ch.Row(x), q)
		}
	}
	return q
}

// mutualInformation is MutualInformation on a dense channel that has
// passed checkPriorChannel.
func mutualInformation(prior []float64, ch *Channel) (float64, error) {
	q := marginal(prior, ch)
	mi := priorMean(prior, ch, func(_ int, row []float64) float64 {
		s := 0.0
		for y, v := range row {
			if v > 0 {
				s += v * log(v/q[y])
			}
		}
		return s
	})
	// Rounding can leave a tiny negative value for independent X and Y.
	return max(mi, 0), nil
}

// Posterior is the Bayesian adversary's view: a channel from the output
// grid to the input grid whose row y is P(x | y) = prior(x) C[x,y] / q(y).
// For a report with q(y) = 0 (never produced) the row is the prior
// itself, so every row is a distribution. It is a matrix: op must have a
// dense form (a *Channel, or a structured operator below DenseOpCells
// cells).
func Posterior(prior []float64, op ChannelOp) (*Channel, error) {
	ch, err := denseOnly("posterior", op)
	if err != nil {
		return nil, err
	}
	if err := checkPriorChannel("posterior", prior, ch); err != nil {
		return nil, err
	}
	post, err := NewChannel(ch.Out, ch.In)
	if err != nil {
		return nil, fmt.Errorf("posterior: %w", err)
	}
	m, n := ch.In.Len(), ch.Out.Len()
	for y := 0; y < n; y++ {
		row := post.Row(y)
		s := 0.0
		for x := 0; x < m; x++ {
			v := prior[x] * ch.P[x*n+y]
			row[x] = v
			s += v
		}
		if s > 0 {
			inv := 1 / s
			for x := range row {
				row[x] *= inv
			}
		} else {
			copy(row, prior)
		}
	}
	return post, nil
}

// bayesError is BayesError on a dense channel that has passed
// checkPriorChannel.
func bayesError(prior []float64, ch *Channel) (float64, error) {
	in := ch.In
	m, n := in.Len(), ch.Out.Len()
	st := buildStencil(in.Rows, in.Cols, func(h float64) float64 { return h })
	scratch := make([]float64, st.scratchLen())
	w := make([]float64, m)
	e := make([]float64, m)
	total := 0.0
	for y := 0; y < n; y++ {
		nz := false
		for x := range w {
			w[x] = prior[x] * ch.P[x*n+y]
			nz = nz || w[x] != 0
		}
		if !nz {
			continue
		}
		st.prod(e, w, scratch)
		best := e[0]
		for _, v := range e[1:] {
			best = min(best, v)
		}
		total += best
	}
	return total, nil
}

// bayesVulnerability is BayesVulnerability on a dense channel that has
// passed checkPriorChannel.
func bayesVulnerability(prior []float64, ch *Channel) (float64, error) {
	m, n := ch.In.Len(), ch.Out.Len()
	best := make([]float64, n)
	for x := 0; x < m; x++ {
		p := prior[x]
		for y, v := range ch.Row(x) {
			best[y] = max(best[y], p*v)
		}
	}
	s := 0.0
	for _, v := range best {
		s += v
	}
	return s, nil
}

// MinSingularValue is the smallest of the min(|X|, |Y|) singular values of
// the channel matrix (gonum's SVD, O(m^3)). It is > 0 exactly when the
// matrix has full rank, e.g. for BA channels (the paper's Theorem 4.1:
// invertible). op must have a dense form (a *Channel, or a structured
// operator below DenseOpCells cells); BAChannel.SingularBounds bounds it
// at any size.
func MinSingularValue(op ChannelOp) (float64, error) {
	ch, err := denseOnly("min singular value", op)
	if err != nil {
		return 0, err
	}
	if err := checkChannel(ch); err != nil {
		return 0, fmt.Errorf("min singular value: %w", err)
	}
	a := mat.NewDense(ch.In.Len(), ch.Out.Len(), append([]float64(nil), ch.P...))
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		return 0, fmt.Errorf("min singular value: SVD of the %v -> %v channel did not converge", ch.In, ch.Out)
	}
	v := svd.Values(nil)
	return v[len(v)-1], nil
}
