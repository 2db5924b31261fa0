package kernels

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// LaplaceOp is the discrete planar Laplace mechanism (see Laplace) as a
// ChannelOp: C[x,y] = exp(-eps d(x,y)) / Z(x) for x in In and y in Out, with
// Out containing In (the base grid, or a widened one). It keeps only the
// normalisers Z = (K 1)(x), computed once with kprod on Out; products with
// C and C^T are products with K on Out (the inputs embedded by position),
// and draws use factorSampler with c = 1. Memory is O(|Out|) however
// large the grids.
type LaplaceOp struct {
	In, Out Grid
	Eps     float64
	f       *factored

	denseOnce sync.Once
	dense     *Channel
}

// smallDense implements smallDenser: Laplace(In, Out, Eps) on grids below
// fftMinCells cells.
func (l *LaplaceOp) smallDense() *Channel {
	if l.check() != nil || l.f.kp.useFFT {
		return nil
	}
	l.denseOnce.Do(func() { l.dense, _ = Laplace(l.In, l.Out, l.Eps) })
	return l.dense
}

// NewLaplaceOp builds the operator of the Laplace channel from in to out
// (out must contain in).
func NewLaplaceOp(in, out Grid, eps float64) (*LaplaceOp, error) {
	if err := checkPositive("laplace: eps", eps); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("laplace: input %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("laplace: output %w", err)
	}
	if !out.Contains(in) {
		return nil, fmt.Errorf("laplace: output grid %v does not contain the input grid %v (use Laplace for a dense channel)", out, in)
	}
	kp := newKProd(out.Rows, out.Cols, eps, false)
	f := newFactored(in, out, eps, kp, nil, nil)
	n := out.Len()
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	zo := make([]float64, n)
	var w kprodWork
	var site kprodSite
	kp.prod(zo, ones, &w, &site)
	f.z = make([]float64, in.Len())
	for x := range f.z {
		f.z[x] = zo[f.idx(x)]
	}
	return &LaplaceOp{In: in, Out: out, Eps: eps, f: f}, nil
}

func (l *LaplaceOp) check() error {
	if l == nil || l.f == nil {
		return fmt.Errorf("laplace operator is nil or not built by NewLaplaceOp")
	}
	return nil
}

// checkVectors checks that l was built by NewLaplaceOp and that dst and v
// have the lengths nDst and nV that the product named op needs.
func (l *LaplaceOp) checkVectors(op string, dst, v []float64, nDst, nV int) error {
	if err := l.check(); err != nil {
		return err
	}
	return checkApply(op, dst, v, nDst, nV)
}

// Grids implements ChannelOp.
func (l *LaplaceOp) Grids() (in, out Grid) { return l.In, l.Out }

// Apply implements ChannelOp.
func (l *LaplaceOp) Apply(dst, v []float64) error {
	if err := l.checkVectors("apply", dst, v, l.In.Len(), l.Out.Len()); err != nil {
		return err
	}
	l.f.apply(dst, v)
	return nil
}

// ApplyT implements ChannelOp.
func (l *LaplaceOp) ApplyT(dst, u []float64) error {
	if err := l.checkVectors("apply transpose", dst, u, l.Out.Len(), l.In.Len()); err != nil {
		return err
	}
	l.f.applyT(dst, u)
	return nil
}

// Sample implements ChannelOp (see factorSampler).
func (l *LaplaceOp) Sample(rng *rand.Rand, x, k int, out []int) error {
	if err := l.check(); err != nil {
		return err
	}
	if err := checkSample(rng, x, k, l.In.Len(), out, l.Out.Len()); err != nil {
		return err
	}
	var sw samplerWork
	return l.f.sample(rng, x, k, out, &sw)
}

func (l *LaplaceOp) obfuscate(rng *rand.Rand, counts []int, out []int) error {
	if err := l.check(); err != nil {
		return err
	}
	return l.f.obfuscate(rng, counts, out)
}

// TightEpsilon implements ChannelOp: eps + max over x != x' of
// |ln Z(x) - ln Z(x')| / d(x,x') (the identity of BAChannel.TightEpsilon with
// c = 1, valid because Out contains In).
func (l *LaplaceOp) TightEpsilon() (float64, error) {
	if err := l.check(); err != nil {
		return 0, err
	}
	return l.f.tightEps(), nil
}

// Normalizers returns Z(x) = sum over the output cells y of
// exp(-eps d(x,y)), for each input cell (a new slice).
func (l *LaplaceOp) Normalizers() []float64 { return append([]float64(nil), l.f.z...) }

func (l *LaplaceOp) avgDistortion(prior []float64) (float64, error) {
	return l.f.avgDistortion(prior)
}

func (l *LaplaceOp) mutualInformation(prior []float64) (float64, error) {
	return l.f.mutualInformation(prior)
}

func (l *LaplaceOp) bayesVulnerability(prior []float64) (float64, error) {
	return l.f.bayesVulnerability(prior)
}
