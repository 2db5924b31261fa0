package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// The methods of this file make *BAChannel a ChannelOp. They never
// materialise the channel: products with K go through the channel's
// kprod, draws through factorSampler. Channels that BA iterated in the
// log domain apply K in the log domain.

// fac returns the factored form of a linear-domain channel.
func (b *BAChannel) fac() *factored {
	b.lazy.once.Do(func() {
		b.lazy.fac = newFactored(b.Grid, b.Grid, b.Beta, b.kp, b.Marginal, b.z)
	})
	return b.lazy.fac
}

// baLazy holds what a BAChannel builds on first use.
type baLazy struct {
	once      sync.Once
	fac       *factored
	denseOnce sync.Once
	dense     *Channel
}

// smallDense implements smallDenser.
func (b *BAChannel) smallDense() *Channel {
	if b.check() != nil || b.kp.useFFT {
		return nil
	}
	b.lazy.denseOnce.Do(func() { b.lazy.dense = b.Channel() })
	return b.lazy.dense
}

func (b *BAChannel) check() error {
	if b == nil || b.kp == nil || b.lazy == nil {
		return fmt.Errorf("BA channel is nil or not built by BA")
	}
	return nil
}

// Grids implements ChannelOp: input and output are the BA grid.
func (b *BAChannel) Grids() (in, out Grid) { return b.Grid, b.Grid }

// Apply implements ChannelOp: C v = (K (c .* v)) ./ Z.
func (b *BAChannel) Apply(dst, v []float64) error {
	return b.product("apply", dst, v, false)
}

// ApplyT implements ChannelOp: C^T u = c .* K(u ./ Z).
func (b *BAChannel) ApplyT(dst, u []float64) error {
	return b.product("apply transpose", dst, u, true)
}

// product is Apply and, with transpose, ApplyT. C = diag(1/Z) K diag(c)
// and, K being symmetric, C^T = diag(c) K diag(1/Z): the same product
// with K between two diagonal scalings that swap places.
func (b *BAChannel) product(name string, dst, v []float64, transpose bool) error {
	if err := b.check(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	m := b.Grid.Len()
	if err := checkApply(name, dst, v, m, m); err != nil {
		return err
	}
	switch {
	case !b.logDomain && transpose:
		b.fac().applyT(dst, v)
	case !b.logDomain:
		b.fac().apply(dst, v)
	default:
		// dst = exp(lprod(ln v + s pre) - s post): (pre, post, s) is
		// (ln c, ln Z, 1) for C and (ln Z, ln c, -1) for C^T
		// (multiplying by s = +-1 is exact).
		pre, post, s := b.logc, b.logZ, 1.0
		if transpose {
			pre, post, s = b.logZ, b.logc, -1
		}
		la := make([]float64, m)
		for i, x := range v {
			la[i] = log(x) + s*pre[i]
		}
		b.kp.lprod(dst, la, make([]float64, b.Grid.Cols))
		for i := range dst {
			dst[i] = math.Exp(dst[i] - s*post[i])
		}
	}
	return nil
}

// Sample implements ChannelOp with factorSampler (see there): exact draws
// from the row without computing it.
func (b *BAChannel) Sample(rng *rand.Rand, x, k int, out []int) error {
	if err := b.check(); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	if err := checkSample(rng, x, k, b.Grid.Len(), out, b.Grid.Len()); err != nil {
		return err
	}
	var sw samplerWork
	return b.sampleRow(rng, x, k, out, &sw)
}

func (b *BAChannel) sampleRow(rng *rand.Rand, x, k int, out []int, sw *samplerWork) error {
	if k == 0 {
		return nil
	}
	f := b.fac()
	s := f.getSampler()
	pr, pc := b.Grid.Cell(x)
	if s.sample(rng, pr, pc, k, out, sw) {
		return nil
	}
	// Every weight of the row underflowed in the linear domain (a starved
	// output marginal in a log-domain channel): draw from the row
	// computed in the log domain.
	row := b.logRow(x)
	if k < categoricalFactor*len(row) {
		orderedCategorical(rng, k, row, out, make([]float64, k))
	} else {
		sequentialBinomials(rng, k, row, out, make([]float64, len(row)))
	}
	return nil
}

// logRow returns row x scaled by its largest entry, computed from ln c
// (or c) and -beta d, so that it is representable whatever Z(x) is.
func (b *BAChannel) logRow(x int) []float64 {
	m := b.Grid.Len()
	row := make([]float64, m)
	mx := math.Inf(-1)
	for y := range row {
		lc := log(b.Marginal[y])
		if b.logDomain {
			lc = b.logc[y]
		}
		row[y] = lc - b.Beta*Dist(b.Grid, x, b.Grid, y)
		mx = max(mx, row[y])
	}
	for y, v := range row {
		row[y] = math.Exp(v - mx)
	}
	return row
}

func (b *BAChannel) obfuscate(rng *rand.Rand, counts []int, out []int) error {
	if err := b.check(); err != nil {
		return fmt.Errorf("obfuscate: %w", err)
	}
	var sw samplerWork
	for x, k := range counts {
		if err := b.sampleRow(rng, x, k, out, &sw); err != nil {
			return err
		}
	}
	return nil
}

func (b *BAChannel) linearFac(name string) (*factored, error) {
	if err := b.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if b.logDomain {
		return nil, fmt.Errorf("%s: %w", name, errLogMetrics)
	}
	return b.fac(), nil
}

func (b *BAChannel) avgDistortion(prior []float64) (float64, error) {
	f, err := b.linearFac("avg distortion")
	if err != nil {
		return 0, err
	}
	return f.avgDistortion(prior)
}

func (b *BAChannel) mutualInformation(prior []float64) (float64, error) {
	f, err := b.linearFac("mutual information")
	if err != nil {
		return 0, err
	}
	return f.mutualInformation(prior)
}

func (b *BAChannel) bayesVulnerability(prior []float64) (float64, error) {
	f, err := b.linearFac("bayes vulnerability")
	if err != nil {
		return 0, err
	}
	return f.bayesVulnerability(prior)
}
