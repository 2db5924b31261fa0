package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"

	"privic/kernels/internal/asm"
)

// ChannelOp is a channel as an operator: what IBU, GIBU, obfuscation and
// the metrics need from a mechanism, without an |In| x |Out| matrix
// unless the channel is one. Implementations:
//
//   - *Channel: the dense matrix, for any mechanism (|In| |Out| memory);
//   - *BAChannel: the Blahut-Arimoto channel in its factorised form
//     C = diag(1/Z) K diag(c), O(m) memory;
//   - *LaplaceOp: the discrete planar Laplace mechanism on a base or
//     widened grid, C = diag(1/Z) K restricted to the output cells;
//   - *RROp: k-ary randomized response, in closed form.
//
// The structured forms apply K with kprod: FFT products on large grids,
// every entry within 4e-10 relative of the exact sum (see kprod), the
// stencil's direct product (exact to rounding) on small ones.
//
// Vectors are non-negative (distributions, counts, ratios of them); the
// relative accuracy of the structured products rests on it.
//
// Every operation of the package takes a ChannelOp (Obfuscate, IBU,
// GIBU, Marginal, MAPGuess and the metrics) and chooses its code path
// from the concrete type, as gonum's Dense.Mul does from its Matrix
// arguments:
//
//   - a *Channel goes through the dense kernels, which check its rows
//     (every row a distribution) on every call;
//   - a structured operator on a grid below DenseOpCells cells (the
//     paper's) hands its dense channel, built once, to the same dense
//     kernels: there the matrix is small, and the results are those of
//     the dense path bit for bit (the same draws for the same random
//     source), whichever form the caller holds. The package built that
//     matrix itself, stochastic by construction, so Obfuscate, IBU and
//     GIBU do not re-check its rows (an O(|In| |Out|) pass that a
//     simulation would repeat for every obfuscation and IBU of the same
//     channel);
//   - a structured operator on a larger grid is used as an operator:
//     IBU on a *BAChannel iterates its factorisation (BAChannel.Factorised
//     selects that form at every size), other operators iterate with
//     Apply and ApplyT.
type ChannelOp interface {
	// Grids returns the input and output grids.
	Grids() (in, out Grid)
	// Apply sets dst = C v: dst[x] = sum_y C[x,y] v[y], for v >= 0 over
	// the output grid and dst over the input grid.
	Apply(dst, v []float64) error
	// ApplyT sets dst = C^T u: dst[y] = sum_x u[x] C[x,y], for u >= 0
	// over the input grid and dst over the output grid.
	ApplyT(dst, u []float64) error
	// Sample adds to out (over the output grid) the reports of k
	// check-ins at input cell x: one Multinomial(k, C[x,:]) draw.
	Sample(rng *rand.Rand, x, k int, out []int) error
	// TightEpsilon is the smallest eps for which the channel is
	// eps-geo-indistinguishable (see Channel.TightEpsilon).
	TightEpsilon() (float64, error)
}

// checkApply checks the lengths and entries of an Apply or ApplyT call.
func checkApply(name string, dst, v []float64, nDst, nV int) error {
	if len(dst) != nDst {
		return fmt.Errorf("%s: dst has %d entries, want %d", name, len(dst), nDst)
	}
	if len(v) != nV {
		return fmt.Errorf("%s: input has %d entries, want %d", name, len(v), nV)
	}
	for i, x := range v {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("%s: input[%d] = %v: entries must be finite and >= 0", name, i, x)
		}
	}
	return nil
}

func checkSample(rng *rand.Rand, x, k, nIn int, out []int, nOut int) error {
	switch {
	case rng == nil:
		return fmt.Errorf("sample: rng is nil")
	case x < 0 || x >= nIn:
		return fmt.Errorf("sample: input cell %d: want 0 to %d", x, nIn-1)
	case k < 0:
		return fmt.Errorf("sample: %d check-ins: must be >= 0", k)
	case len(out) != nOut:
		return fmt.Errorf("sample: out has %d entries, want %d", len(out), nOut)
	}
	return nil
}

// Grids implements ChannelOp.
func (c *Channel) Grids() (in, out Grid) { return c.In, c.Out }

// Apply implements ChannelOp: dst[x] = <C[x,:], v>.
func (c *Channel) Apply(dst, v []float64) error {
	if err := checkApply("apply", dst, v, c.In.Len(), c.Out.Len()); err != nil {
		return err
	}
	for x := range dst {
		dst[x] = asm.DotUnroll(c.Row(x), v)
	}
	return nil
}

// ApplyT implements ChannelOp: dst = sum_x u[x] C[x,:].
func (c *Channel) ApplyT(dst, u []float64) error {
	if err := checkApply("apply transpose", dst, u, c.Out.Len(), c.In.Len()); err != nil {
		return err
	}
	clear(dst)
	for x, w := range u {
		if w != 0 {
			asm.AxpyUnroll(w, c.Row(x), dst)
		}
	}
	return nil
}

// Sample implements ChannelOp with the methods of Obfuscate.
func (c *Channel) Sample(rng *rand.Rand, x, k int, out []int) error {
	if err := checkSample(rng, x, k, c.In.Len(), out, c.Out.Len()); err != nil {
		return err
	}
	n := c.Out.Len()
	if k < categoricalFactor*n {
		orderedCategorical(rng, k, c.Row(x), out, make([]float64, k))
	} else {
		sequentialBinomials(rng, k, c.Row(x), out, make([]float64, n))
	}
	return nil
}

// smallDenser is implemented by the structured operators: smallDense
// returns their dense channel (built once) when their grids are below
// fftMinCells cells, and nil otherwise.
type smallDenser interface {
	smallDense() *Channel
}

// denseForm returns the dense channel the package's operations use for
// op, and whether its rows are to be checked: op itself, checked, when
// op is a *Channel (nil included, which the dense kernels reject); a
// structured operator's dense form below DenseOpCells cells, built by
// the package from the operator's own parameters and stochastic by
// construction, not checked. ok is false when op is to be used as an
// operator.
func denseForm(op ChannelOp) (ch *Channel, check, ok bool) {
	switch c := op.(type) {
	case *Channel:
		return c, true, true
	case smallDenser:
		if d := c.smallDense(); d != nil {
			return d, false, true
		}
	}
	return nil, false, false
}

// denseOf returns the channel the dense functions should use for op, or
// nil when op is to be used as an operator.
func denseOf(op ChannelOp) *Channel {
	ch, _, _ := denseForm(op)
	return ch
}

// DenseOpCells is the grid size below which the package's functions use
// a structured operator in its dense form (see DenseOf): the paper's
// grids, where the dense path is as fast, keep its results bit for bit.
const DenseOpCells = fftMinCells

// DenseOf returns the dense channel that the package's functions use for
// op: op itself when it is a *Channel; for a structured operator on grids
// below DenseOpCells cells (where the dense path is as fast), its dense form,
// built once; nil when op is to be used as an operator. The operations
// choose it themselves; callers use DenseOf for what only a matrix gives
// (its rows, its memory) or to size their own work.
func DenseOf(op ChannelOp) *Channel {
	if op == nil {
		return nil
	}
	return denseOf(op)
}

// obfuscator is implemented by operators that draw all occupied cells at
// once faster than cell by cell.
type obfuscator interface {
	obfuscate(rng *rand.Rand, counts []int, out []int) error
}

// gibuOps is GIBU on channel operators: each iteration is
//
//	den_t = C_t^T theta,  theta' = theta .* sum_t C_t((counts_t / N) ./ den_t),
//
// renormalised, with the zero handling of the dense IBU (reports with
// counts(y) = 0 or den(y) = 0 are skipped; if none is left it returns an
// error). When some den(y) is below 1e-280 the ratios are scaled by the
// smallest one, so that none overflows (the update does not depend on
// their scale).
func gibuOps(name string, batches []Batch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	maxIter, converge, err := cfg.limits()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if len(batches) == 0 {
		return nil, 0, fmt.Errorf("%s: no batches", name)
	}
	var in Grid
	total := 0.0
	for t, b := range batches {
		if b.Channel == nil {
			return nil, 0, fmt.Errorf("%s: batch %d: channel is nil", name, t)
		}
		bin, bout := b.Channel.Grids()
		if t == 0 {
			in = bin
		} else if bin != in {
			return nil, 0, fmt.Errorf("%s: batch %d: channel input %v differs from batch 0's %v", name, t, bin, in)
		}
		n, err := checkWeights("counts", b.Counts, bout.Len())
		if err != nil {
			return nil, 0, fmt.Errorf("%s: batch %d: %w", name, t, err)
		}
		total += n
	}
	m := in.Len()
	theta := make([]float64, m)
	if start == nil {
		setStart(theta, nil)
	} else {
		if err := checkDist(name+": start", start, m); err != nil {
			return nil, 0, err
		}
		copy(theta, start)
	}
	prev := make([]float64, m)
	s := make([]float64, m)
	acc := make([]float64, m)
	dens := make([][]float64, len(batches))
	for t, b := range batches {
		_, bout := b.Channel.Grids()
		dens[t] = make([]float64, bout.Len())
	}
	for it := 1; it <= maxIter; it++ {
		copy(prev, theta)
		clear(acc)
		// den_t = C_t^T theta for every batch first: the ratios share one
		// scale, dmin when some den is tiny, so that none overflows.
		dmin := 1.0
		explained := false
		for t, b := range batches {
			if err := b.Channel.ApplyT(dens[t], theta); err != nil {
				return nil, it, fmt.Errorf("%s: batch %d: %w", name, t, err)
			}
			for y, d := range dens[t] {
				if b.Counts[y] > 0 && d > 0 {
					explained = true
					dmin = min(dmin, d)
				}
			}
		}
		if !explained {
			return nil, it, fmt.Errorf("%s: %w", name, errUnexplained)
		}
		if dmin > 1e-280 {
			dmin = 1
		}
		for t, b := range batches {
			den := dens[t]
			for y, d := range den {
				v := 0.0
				if cnt := b.Counts[y]; cnt > 0 && d > 0 {
					v = cnt / total * (dmin / d)
				}
				den[y] = v
			}
			if err := b.Channel.Apply(s, den); err != nil {
				return nil, it, fmt.Errorf("%s: batch %d: %w", name, t, err)
			}
			for x, v := range s {
				acc[x] += v
			}
		}
		for x := range theta {
			theta[x] *= acc[x]
		}
		if sum := normalize(theta); !(sum > 0) || math.IsInf(sum, 1) {
			return nil, it, fmt.Errorf("%s: %w", name, errUnexplained)
		}
		if converge && maxAbsDiff(theta, prev) < cfg.Delta {
			return theta, it, nil
		}
	}
	return theta, maxIter, nil
}

// Marginal returns the report distribution q = prior C.
func Marginal(prior []float64, op ChannelOp) ([]float64, error) {
	if ch, _, ok := denseForm(op); ok {
		if err := checkPriorChannel("marginal", prior, ch); err != nil {
			return nil, err
		}
		return marginal(prior, ch), nil
	}
	if op == nil {
		return nil, fmt.Errorf("marginal: channel is nil")
	}
	in, out := op.Grids()
	if err := checkDist("marginal: prior", prior, in.Len()); err != nil {
		return nil, err
	}
	q := make([]float64, out.Len())
	if err := op.ApplyT(q, prior); err != nil {
		return nil, fmt.Errorf("marginal: %w", err)
	}
	return q, nil
}

// opMetrics is implemented by the structured operators.
type opMetrics interface {
	avgDistortion(prior []float64) (float64, error)
	mutualInformation(prior []float64) (float64, error)
	bayesVulnerability(prior []float64) (float64, error)
}

// metricOp is one metric of a channel operator: dense on op's *Channel
// form when it has one, else, after checking the prior, the structured
// operator's method.
func metricOp(name string, prior []float64, op ChannelOp,
	dense func([]float64, *Channel) (float64, error),
	structured func(opMetrics, []float64) (float64, error)) (float64, error) {
	if ch, _, ok := denseForm(op); ok {
		if err := checkPriorChannel(name, prior, ch); err != nil {
			return 0, err
		}
		return dense(prior, ch)
	}
	if op == nil {
		return 0, fmt.Errorf("%s: channel is nil", name)
	}
	in, _ := op.Grids()
	if err := checkDist(name+": prior", prior, in.Len()); err != nil {
		return 0, err
	}
	if structured == nil {
		_, err := denseOnly(name, op)
		return 0, err
	}
	om, ok := op.(opMetrics)
	if !ok {
		return 0, fmt.Errorf("%s: not available for %T", name, op)
	}
	return structured(om, prior)
}

// AvgDistortion is the expected distance between the true and the
// reported cell, sum_x prior(x) sum_y C[x,y] d(x,y) (the users' quality
// loss), in cell units: on a dense channel the dense sum, on the
// structured operators a product with the kernel d exp(-k d) (see their
// methods).
func AvgDistortion(prior []float64, op ChannelOp) (float64, error) {
	return metricOp("avg distortion", prior, op, avgDistortion, opMetrics.avgDistortion)
}

// MutualInformation is I(X;Y) in nats for X ~ prior and Y the report:
// sum over x, y of prior(x) C[x,y] ln(C[x,y] / q(y)), q = prior C, with
// 0 ln 0 = 0.
func MutualInformation(prior []float64, op ChannelOp) (float64, error) {
	return metricOp("mutual information", prior, op, mutualInformation, opMetrics.mutualInformation)
}

// BayesVulnerability is the probability that the adversary's maximum a
// posteriori guess identifies the true cell exactly:
// sum_y max_x prior(x) C[x,y].
func BayesVulnerability(prior []float64, op ChannelOp) (float64, error) {
	return metricOp("bayes vulnerability", prior, op, bayesVulnerability, opMetrics.bayesVulnerability)
}

// BayesError is the expected Euclidean error (cell units) of a Bayesian
// adversary who knows the prior and the channel and, seeing report y,
// guesses the input cell x^ that minimises the posterior expected distance
// sum_x P(x|y) d(x, x^) (the optimal remapping for the distance loss):
//
//	sum_y min over x^ in the input grid of sum_x prior(x) C[x,y] d(x, x^).
//
// Guesses range over the input grid. The inner sums are products with the
// distance matrix of the input grid, done with its stencil, so the cost is
// O(|Y| |X|^2) vectorised: it is offered for dense channels (a *Channel,
// or a structured operator below DenseOpCells cells) and is an error on
// larger operators. See BayesVulnerability for the probability that the
// adversary's MAP guess is exactly right.
func BayesError(prior []float64, op ChannelOp) (float64, error) {
	return metricOp("bayes error", prior, op, bayesError, nil)
}
