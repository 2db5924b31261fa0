package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// factored is a channel C[x,y] = c(y) K(x,y) / Z(x), K = exp(-beta d),
// from the cells x of grid in to the cells y of grid out, in contained in
// out: BA (in = out, c the output marginal) and LAP (c = 1). Products with
// K are done on out with kprod; inputs are embedded in out by position.
// It is safe for concurrent use.
type factored struct {
	in, out Grid
	beta    float64
	kp      *kprod    // on out
	c       []float64 // over out; nil means 1
	z       []float64 // over in
	inIdx   []int     // index in out of each cell of in; nil when in == out

	pool        sync.Pool // *factoredWork
	samplerOnce sync.Once
	sampler     *factorSampler
	kdOnce      sync.Once
	kd          *kprod // d exp(-beta d), for the distortion
}

// factoredWork is the scratch of one product. It holds no kprodSite: a
// site remembers which path (full FFT or near/far split, and its radius)
// served the previous product, and the path changes the last bits of the
// result. Pooled work goes to whichever goroutine asks first, so every
// product starts from a fresh site and its bits depend on its input only.
type factoredWork struct {
	kw   kprodWork
	a, b []float64 // over out
	sw   samplerWork
}

func newFactored(in, out Grid, beta float64, kp *kprod, c, z []float64) *factored {
	f := &factored{in: in, out: out, beta: beta, kp: kp, c: c, z: z}
	if in != out {
		f.inIdx = make([]int, in.Len())
		for x := range f.inIdx {
			r, col := in.Abs(x)
			f.inIdx[x] = out.IndexOf(r, col)
		}
	}
	return f
}

func (f *factored) work() *factoredWork {
	if w, ok := f.pool.Get().(*factoredWork); ok {
		return w
	}
	n := f.out.Len()
	return &factoredWork{a: make([]float64, n), b: make([]float64, n)}
}

func (f *factored) idx(x int) int {
	if f.inIdx == nil {
		return x
	}
	return f.inIdx[x]
}

// apply sets dst = C v = (K (c .* v))[in] ./ Z.
func (f *factored) apply(dst, v []float64) {
	w := f.work()
	defer f.pool.Put(w)
	for y, x := range v {
		if f.c != nil {
			x *= f.c[y]
		}
		w.a[y] = x
	}
	f.kp.prod(w.b, w.a, &w.kw, &kprodSite{})
	for x := range dst {
		dst[x] = w.b[f.idx(x)] / f.z[x]
	}
}

// applyT sets dst = C^T u = c .* K(u ./ Z embedded in out).
func (f *factored) applyT(dst, u []float64) {
	w := f.work()
	defer f.pool.Put(w)
	if f.inIdx != nil {
		clear(w.a)
	}
	for x, v := range u {
		w.a[f.idx(x)] = v / f.z[x]
	}
	f.kp.prod(dst, w.a, &w.kw, &kprodSite{})
	if f.c != nil {
		for y, cy := range f.c {
			dst[y] *= cy
		}
	}
}

// samplerRadius is the window radius of the sampler: K has fallen to e^-8
// at its edge, and the window has at most 33 x 33 cells.
func (f *factored) samplerRadius() int {
	return max(1, min(16, int(math.Ceil(8/f.beta))))
}

func (f *factored) getSampler() *factorSampler {
	f.samplerOnce.Do(func() {
		f.sampler = newFactorSampler(f.out, f.kp.st, f.beta, f.c, f.samplerRadius())
	})
	return f.sampler
}

// sample adds k draws from row x to out.
func (f *factored) sample(rng *rand.Rand, x, k int, out []int, sw *samplerWork) error {
	pr, pc := f.out.Cell(f.idx(x))
	if !f.getSampler().sample(rng, pr, pc, k, out, sw) {
		return fmt.Errorf("sample: every weight of row %d underflowed", x)
	}
	return nil
}

func (f *factored) obfuscate(rng *rand.Rand, counts []int, out []int) error {
	w := f.work()
	defer f.pool.Put(w)
	for x, k := range counts {
		if k > 0 {
			if err := f.sample(rng, x, k, out, &w.sw); err != nil {
				return err
			}
		}
	}
	return nil
}

// avgDistortion is sum_x prior(x) (K_d c)(x) / Z(x), K_d = d exp(-beta d).
func (f *factored) avgDistortion(prior []float64) (float64, error) {
	f.kdOnce.Do(func() { f.kd = newKProdDist(f.out.Rows, f.out.Cols, f.beta) })
	w := f.work()
	defer f.pool.Put(w)
	for y := range w.a {
		if f.c != nil {
			w.a[y] = f.c[y]
		} else {
			w.a[y] = 1
		}
	}
	f.kd.prod(w.b, w.a, &w.kw, &kprodSite{})
	total := 0.0
	for x, p := range prior {
		if p > 0 {
			total += p * (w.b[f.idx(x)] / f.z[x])
		}
	}
	return total, nil
}

// mutualInformation uses ln C[x,y] = ln c(y) - beta d(x,y) - ln Z(x):
//
//	I = sum_y q(y) ln(c(y)/q(y)) - beta D - sum_x prior(x) ln Z(x),
//
// q = prior C and D the average distortion. The terms are of the order of
// the entropies, so the result is accurate to about 1e-9 of them.
func (f *factored) mutualInformation(prior []float64) (float64, error) {
	q := make([]float64, f.out.Len())
	f.applyT(q, prior)
	d, err := f.avgDistortion(prior)
	if err != nil {
		return 0, err
	}
	mi := -f.beta * d
	for y, qy := range q {
		if qy > 0 {
			cy := 1.0
			if f.c != nil {
				cy = f.c[y]
			}
			mi += qy * (log(cy) - log(qy))
		}
	}
	for x, p := range prior {
		if p > 0 {
			mi -= p * log(f.z[x])
		}
	}
	return max(mi, 0), nil
}

// bayesVulnerability is sum_y c(y) max_x prior(x) K(x,y) / Z(x), each
// maximum over windows around y grown until k(rho+1) max(prior/Z) is
// below the maximum found.
func (f *factored) bayesVulnerability(prior []float64) (float64, error) {
	w := f.work()
	defer f.pool.Put(w)
	clear(w.a)
	wmax := 0.0
	for x, p := range prior {
		v := p / f.z[x]
		w.a[f.idx(x)] = v
		wmax = max(wmax, v)
	}
	st := f.kp.st
	R, C := f.out.Rows, f.out.Cols
	total := 0.0
	for y := range f.out.Len() {
		ry, cy := y/C, y%C
		best := 0.0
		for rho := 1; ; rho *= 2 {
			for rx := max(0, ry-rho); rx <= min(R-1, ry+rho); rx++ {
				for cx := max(0, cy-rho); cx <= min(C-1, cy+rho); cx++ {
					if v := w.a[rx*C+cx]; v > 0 {
						best = max(best, v*st.at(abs(rx-ry), abs(cx-cy)))
					}
				}
			}
			if rho >= max(R, C) || f.kp.tailMax(rho)*wmax <= best {
				break
			}
		}
		if f.c != nil {
			best *= f.c[y]
		}
		total += best
	}
	return total, nil
}

// tightEps is beta + max over x != x' of |ln Z(x) - ln Z(x')| / d(x,x')
// (see BAChannel.TightEpsilon; the proof holds whenever out contains in).
func (f *factored) tightEps() float64 {
	if f.in.Len() == 1 {
		return 0
	}
	lz := make([]float64, len(f.z))
	for x, v := range f.z {
		lz[x] = log(v)
	}
	if f.kp.useFFT {
		return f.beta + certifiedMaxLogRatio(f.in, lz, f.exactLogZ, func() []float64 {
			all := make([]float64, len(f.z))
			for x := range all {
				all[x] = f.exactLogZ(x)
			}
			return all
		})
	}
	return f.beta + maxLogRatio(f.in, invDistTable(f.in), lz)
}

// exactLogZ returns ln Z(x) summed directly over the output grid.
func (f *factored) exactLogZ(x int) float64 {
	o := f.idx(x)
	all := max(f.out.Rows, f.out.Cols)
	if f.c != nil {
		return log(f.kp.st.windowSum(o, all, f.c))
	}
	// c = 1: the window sum of ones.
	st := f.kp.st
	R, C := st.rows, st.cols
	rx, cx := o/C, o%C
	s := 0.0
	for ry := range R {
		for cy := range C {
			s += st.at(abs(ry-rx), abs(cy-cx))
		}
	}
	return log(s)
}

var errLogMetrics = fmt.Errorf("not available for a factorised channel iterated in the log domain")
