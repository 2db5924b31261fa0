package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// RROp is k-ary randomized response on the k cells of a grid as a
// ChannelOp, in closed form: the true cell is reported with probability
// p = e^eps / (e^eps + k - 1) and every other cell with q = 1/(e^eps + k -
// 1) (computed through e^-eps, so that large eps does not overflow).
// Products, draws and metrics cost O(k) (the distortion O(k log k)).
type RROp struct {
	G    Grid
	Eps  float64
	p, q float64
}

// NewRROp builds randomized response on g with parameter eps.
func NewRROp(g Grid, eps float64) (*RROp, error) {
	if err := checkPositive("rr: eps", eps); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("rr: %w", err)
	}
	r := &RROp{G: g, Eps: eps, p: 1}
	if k := g.Len(); k > 1 {
		e := math.Exp(-eps)
		den := 1 + float64(k-1)*e
		r.p, r.q = 1/den, e/den
	}
	return r, nil
}

// smallDense implements smallDenser: the matrix with p on the diagonal
// and q elsewhere, for fewer than fftMinCells cells.
func (r *RROp) smallDense() *Channel {
	k := r.G.Len()
	if k >= fftMinCells {
		return nil
	}
	ch, err := NewChannel(r.G, r.G)
	if err != nil {
		return nil
	}
	for x := range k {
		row := ch.Row(x)
		for y := range row {
			row[y] = r.q
		}
		row[x] = r.p
	}
	return ch
}

// Probabilities returns p and q.
func (r *RROp) Probabilities() (p, q float64) { return r.p, r.q }

// Grids implements ChannelOp.
func (r *RROp) Grids() (in, out Grid) { return r.G, r.G }

// Apply implements ChannelOp: (C v)(x) = (p - q) v(x) + q sum(v), both
// terms non-negative.
func (r *RROp) Apply(dst, v []float64) error {
	k := r.G.Len()
	if err := checkApply("apply", dst, v, k, k); err != nil {
		return err
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	for i, x := range v {
		dst[i] = (r.p-r.q)*x + r.q*s
	}
	return nil
}

// ApplyT implements ChannelOp (C is symmetric).
func (r *RROp) ApplyT(dst, u []float64) error { return r.Apply(dst, u) }

// Sample implements ChannelOp: Binomial(k, p) reports of x itself, the
// rest uniform over the other cells.
func (r *RROp) Sample(rng *rand.Rand, x, k int, out []int) error {
	n := r.G.Len()
	if err := checkSample(rng, x, k, n, out, n); err != nil {
		return err
	}
	stay := binomial(rng, k, r.p)
	out[x] += stay
	for range k - stay {
		y := rng.IntN(n - 1)
		if y >= x {
			y++
		}
		out[y]++
	}
	return nil
}

// TightEpsilon implements ChannelOp: ln(p/q), the ratio of adjacent cells
// (distance 1, the smallest), as the brute force computes it; 0 on one
// cell.
func (r *RROp) TightEpsilon() (float64, error) {
	if r.G.Len() < 2 {
		return 0, nil
	}
	if r.q == 0 {
		return math.Inf(1), nil
	}
	return log(r.p) - log(r.q), nil
}

// avgDistortion is q sum_x prior(x) sum_y d(x,y), the row sums of the
// distance matrix coming from one FFT product with the kernel d (no entry
// is small against the error bound: every row sum is at least the grid's
// half-width times k/4), or the stencil on small grids.
func (r *RROp) avgDistortion(prior []float64) (float64, error) {
	g := r.G
	sd := distRowSums(g)
	total := 0.0
	for x, p := range prior {
		total += p * sd[x]
	}
	return r.q * total, nil
}

// distRowSums returns sum_y d(x,y) for every cell x of g.
func distRowSums(g Grid) []float64 {
	m := g.Len()
	ones := make([]float64, m)
	for i := range ones {
		ones[i] = 1
	}
	out := make([]float64, m)
	if m < fftMinCells {
		st := buildStencil(g.Rows, g.Cols, func(h float64) float64 { return h })
		st.prod(out, ones, make([]float64, st.scratchLen()))
		return out
	}
	f := newFFTConv(g.Rows, g.Cols, func(dr, dc int) float64 { return math.Hypot(float64(dr), float64(dc)) })
	f.prod(out, ones, make([]float64, f.scratchLen()))
	e := f.errBound(float64(m), math.Sqrt(float64(m)))
	st := buildStencil(g.Rows, g.Cols, func(h float64) float64 { return h })
	for x, v := range out {
		if !(v >= e*(1+1/certTol)) {
			out[x] = st.windowSum(x, max(g.Rows, g.Cols), ones)
		}
	}
	return out
}

// mutualInformation is H(Y) - H(Y|X) with H(Y|X) = -(p ln p + (k-1) q ln q)
// for every input and Q = prior C.
func (r *RROp) mutualInformation(prior []float64) (float64, error) {
	k := r.G.Len()
	qy := make([]float64, k)
	if err := r.ApplyT(qy, prior); err != nil {
		return 0, err
	}
	mi := xlogx(r.p) + float64(k-1)*xlogx(r.q)
	for _, v := range qy {
		mi -= xlogx(v)
	}
	return max(mi, 0), nil
}

func xlogx(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return v * log(v)
}

// bayesVulnerability is sum_y max(p prior(y), q max_{x != y} prior(x)).
func (r *RROp) bayesVulnerability(prior []float64) (float64, error) {
	top := slices.Clone(prior)
	slices.Sort(top)
	first, second := top[len(top)-1], 0.0
	if len(top) > 1 {
		second = top[len(top)-2]
	}
	s := 0.0
	for _, v := range prior {
		other := first
		if v == first {
			other = second
		}
		s += max(r.p*v, r.q*other)
	}
	return s, nil
}
