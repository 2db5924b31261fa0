package kernels

import (
	"fmt"
	"math"
	"sync"

	"privic/kernels/internal/asm"
)

// kprod computes products y = K v with K(x, y) = k(d(x, y)) on an R x C
// grid, k = exp(-beta d), for v >= 0, with every entry of y within certTol
// relative of the exact sum.
//
// Small grids use the stencil's direct product, whose terms are all
// non-negative, so every entry is exact to rounding (about 1e-13). Larger
// grids use FFT convolutions (fftConv), whose error is absolute: errBound
// gives a bound E(v), the same for every entry, so an entry is certified
// when its value is at least E (1 + 1/certTol); entries tiny relative to
// the largest (deserted regions, large beta) are not. Those are handled by
// splitting K at a Chebyshev radius rho into a near part (|dr|, |dc| <=
// rho), summed directly, and a far part, done by FFT with the far kernel
// alone, whose bound is smaller by about k(rho) (the far kernel's norms
// enter E). The near sum alone is exact once the kernel's tail beyond the
// window, at most k(rho+1) ||v||_1, is below certTol/2 of it, which at
// large beta makes the far FFT unnecessary. Entries that still fail go to
// exactSum (windows growing until the tail is negligible, up to the whole
// grid), which is exact whatever v is.
//
// How a product starts depends on what the previous products at the same
// call site needed (kprodSite): the full-kernel FFT first when it
// certified nearly every entry, otherwise the near/far split directly, with
// rho grown when too many entries fell through to exactSum. When the
// remaining entries would cost more to sum directly than the whole direct
// product, the direct product is used. A kprod is safe for concurrent use;
// the transforms are built on first use and cached.
type kprod struct {
	rows, cols int
	beta       float64 // decay rate of the kernel (k = exp(-beta d) for BA and LAP)
	st         *stencil
	distKernel bool // k = d exp(-beta d) instead of exp(-beta d)
	useFFT     bool

	mu     sync.Mutex
	full   *fftConv
	far    map[int]*fftConv // far kernels by radius, at most maxFarPlans
	farUse []int            // their radii, least recently used first
	// farNorm1[rho], farNorm2[rho]: ||k||_1 and ||k||_2 of the kernel
	// without its entries of Chebyshev radius <= rho (built on first use).
	farNorm1, farNorm2 []float64
}

// certTol is the relative accuracy kprod guarantees for every entry. Two
// products in a row (an IBU update) stay within 1e-9.
const certTol = 4e-10

// fftMinCells is the grid size from which kprod uses FFTs: below it the
// direct product is as fast (measured with BenchmarkKProd), and the
// paper's grids (165 and 384 cells) keep the direct path bit for bit.
const fftMinCells = 1024

// newKProd plans products with k(d) = exp(-beta d) on a rows x cols grid.
// withLog also builds the stencil's log table (see newStencil).
func newKProd(rows, cols int, beta float64, withLog bool) *kprod {
	kp := &kprod{rows: rows, cols: cols, beta: beta}
	kp.st = newStencil(rows, cols, beta, withLog)
	kp.useFFT = rows*cols >= fftMinCells
	return kp
}

// newKProdDist plans products with k(d) = d exp(-beta d), the kernel of
// the expected distortion (largest at d = 1/beta).
func newKProdDist(rows, cols int, beta float64) *kprod {
	f := func(h float64) float64 { return h * math.Exp(-beta*h) }
	kp := &kprod{rows: rows, cols: cols, beta: beta, distKernel: true}
	kp.st = buildStencil(rows, cols, f)
	kp.st.beta = beta
	kp.useFFT = rows*cols >= fftMinCells
	return kp
}

// tailMax bounds k(d) for d >= rho+1: the largest kernel entry outside the
// window of Chebyshev radius rho.
func (kp *kprod) tailMax(rho int) float64 {
	d := float64(rho + 1)
	if kp.distKernel {
		d = max(d, 1/kp.beta) // d exp(-beta d) is largest at 1/beta
		return d * math.Exp(-kp.beta*d)
	}
	return math.Exp(-kp.beta * d)
}

func (kp *kprod) len() int { return kp.rows * kp.cols }

// fullFFT returns the FFT plan of the full kernel.
func (kp *kprod) fullFFT() *fftConv {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if kp.full == nil {
		kp.full = newFFTConv(kp.rows, kp.cols, kp.st.at)
	}
	return kp.full
}

// farFFT returns the FFT plan of the kernel without its entries of
// Chebyshev radius <= rho.
func (kp *kprod) farFFT(rho int) *fftConv {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	f := kp.far[rho]
	if f == nil {
		if kp.far == nil {
			kp.far = map[int]*fftConv{}
		}
		st := kp.st
		f = newFFTConv(kp.rows, kp.cols, func(dr, dc int) float64 {
			if max(dr, dc) <= rho {
				return 0
			}
			return st.at(dr, dc)
		})
		kp.far[rho] = f
		if len(kp.farUse) == maxFarPlans(f) {
			delete(kp.far, kp.farUse[0])
			kp.farUse = kp.farUse[1:]
		}
	} else {
		for i, r := range kp.farUse {
			if r == rho {
				kp.farUse = append(kp.farUse[:i], kp.farUse[i+1:]...)
				break
			}
		}
	}
	kp.farUse = append(kp.farUse, rho)
	return f
}

// maxFarPlans bounds the far-kernel plans a kprod keeps: each holds the
// kernel's transform, n0 (m+1) numbers, and together they stay within
// farPlanBudget bytes (4 to 16 plans).
func maxFarPlans(f *fftConv) int {
	return max(4, min(16, farPlanBudget/(8*f.n0*f.w)))
}

const farPlanBudget = 128 << 20

// nearRadii are the radii the near/far split may use: about a factor
// sqrt(2) apart, so that few plans serve every product.
var nearRadii = []int{1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512, 724, 1024}

// kprodSite is what a call site of kprod.prod remembers between products
// (see kprod); the zero value starts with the full-kernel FFT.
type kprodSite struct {
	near bool // start with the near/far split
	rho  int  // its radius (0: not chosen yet)
}

// kprodWork is the scratch of kprod.prod; the zero value is ready to use
// and grows on demand. It must not be shared between goroutines.
type kprodWork struct {
	fft, near, far []float64
	unc, next, all []int32
	thr, fir       []float64
	need           []int32
	stdScratch     []float64
	stats          kprodStats
}

// kprodStats counts how entries were done (for tests and benchmarks).
type kprodStats struct {
	products, direct, sparse            int
	full, nearOnly, nearFar, exact, fft int
}

// prod sets dst = K v for v >= 0 (finite); dst and v must not overlap.
func (kp *kprod) prod(dst, v []float64, w *kprodWork, site *kprodSite) {
	m := kp.len()
	dst, v = dst[:m], v[:m]
	w.stats.products++
	if !kp.useFFT {
		kp.direct(dst, v, w)
		return
	}
	n1, n2 := vecNorms(v)
	if n1 == 0 {
		clear(dst)
		return
	}
	// A sparse input is cheaper summed directly over its support.
	nnz := 0
	for _, x := range v {
		if x != 0 {
			nnz++
		}
	}
	if nsAxpy*float64(m)*float64(nnz) < kp.fftCost() {
		kp.sparse(dst, v)
		w.stats.sparse++
		return
	}
	w.near = grow(w.near, m)
	w.far = grow(w.far, m)
	w.unc = w.unc[:0]
	var rho int
	if !site.near {
		e := kp.fullProd(dst, v, n1, n2, w, site)
		if len(w.unc) == 0 {
			return
		}
		rho = kp.chooseRadius(w.unc, dst, e, n1, n2, 0, w)
	} else {
		rho = max(site.rho, 1)
		for x := range m {
			w.unc = append(w.unc, int32(x))
		}
	}
	kp.refine(dst, v, n1, n2, rho, w, site)
}

// fullProd sets dst to the full-kernel FFT product, lists in w.unc the
// entries whose error bound it does not certify, and returns that bound.
// It tells site to skip this FFT next time if it left more than a
// quarter.
func (kp *kprod) fullProd(dst, v []float64, n1, n2 float64, w *kprodWork, site *kprodSite) float64 {
	m := len(dst)
	f := kp.fullFFT()
	w.fft = grow(w.fft, f.scratchLen())
	f.prod(dst, v, w.fft)
	w.stats.fft++
	e := f.errBound(n1, n2)
	thr := e * (1 + 1/certTol)
	for x, y := range dst {
		if !(y >= thr) {
			w.unc = append(w.unc, int32(x))
		}
	}
	w.stats.full += m - len(w.unc)
	site.near = len(w.unc) > m/4
	return e
}

// refine certifies the entries w.unc of dst = K v by near/far levels
// from radius rho (at most three, each at least twice as wide), then
// exact sums (or the direct product) for the few left.
func (kp *kprod) refine(dst, v []float64, n1, n2 float64, rho int, w *kprodWork, site *kprodSite) {
	m := len(dst)
	first, levels := true, 0
	for {
		e := kp.nearFarLevel(dst, v, n1, n2, rho, w)
		if first && site.near {
			// Next time start where this level would have left almost
			// nothing, judged on the final values below.
			defer kp.adaptRadius(site, dst, n1, n2, w)
		}
		first = false
		if len(w.unc) == 0 {
			return
		}
		// Another level (at most three, each at least twice as wide), or
		// exact sums for the few left.
		levels++
		next := kp.chooseRadius(w.unc, dst, e, n1, n2, 2*rho-1, w)
		if levels == 3 || next <= rho || float64(len(w.unc))*kp.exactCost() < kp.levelCost(next, len(w.unc)) {
			break
		}
		rho = next
	}
	if float64(len(w.unc))*float64((4*rho+1)*(4*rho+1)) > directCost(m) {
		kp.direct(dst, v, w)
		return
	}
	for _, x := range w.unc {
		dst[x] = kp.exactSum(int(x), 2*rho, v, n1)
	}
	w.stats.exact += len(w.unc)
}

// nearFarLevel is one level of radius rho for the entries w.unc: the
// window sums of radius rho (near), alone where the kernel's tail cannot
// matter, else plus the far-kernel FFT product; it writes every such
// entry's estimate into dst, leaves in w.unc those it does not certify,
// and returns the far product's error bound (0 without one).
func (kp *kprod) nearFarLevel(dst, v []float64, n1, n2 float64, rho int, w *kprodWork) float64 {
	m := len(dst)
	side := 2*rho + 1
	if len(w.unc) > m/8 {
		kp.st.windowAll(w.near, v, rho, &w.fir)
	} else {
		for _, x := range w.unc {
			w.near[x] = kp.st.windowSum(int(x), rho, v)
		}
	}
	// Near sums whose tail is negligible need no far part.
	tail := kp.tailMax(rho) * n1
	gam := gamma(side * side)
	w.next = w.next[:0]
	for _, x := range w.unc {
		if s := w.near[x]; tail <= 0.5*certTol*s*(1-gam) {
			dst[x] = s
		} else {
			w.next = append(w.next, x)
		}
	}
	w.stats.nearOnly += len(w.unc) - len(w.next)
	w.unc, w.next = w.next, w.unc
	e := 0.0
	if len(w.unc) > 0 {
		f := kp.farFFT(rho)
		w.fft = grow(w.fft, f.scratchLen())
		f.prod(w.far, v, w.fft)
		w.stats.fft++
		e = f.errBound(n1, n2)
		w.next = w.next[:0]
		for _, x := range w.unc {
			near, far := w.near[x], w.far[x]
			if lo := near*(1-gam) + far - e; e+gam*near <= certTol*lo {
				dst[x] = near + far
			} else {
				dst[x] = near + far // an estimate, within e + gam*near
				w.next = append(w.next, x)
			}
		}
		w.stats.nearFar += len(w.unc) - len(w.next)
		w.unc, w.next = w.next, w.unc
	}
	return e
}

// sparse sets dst = K v by adding, for each non-zero v(y), the row of the
// table that holds k(x, y) for all x of an output row: exact to rounding
// like the direct product, in O(m) per non-zero.
func (kp *kprod) sparse(dst, v []float64) {
	st := kp.st
	R, C, ts := st.rows, st.cols, st.ts
	clear(dst)
	for y, vy := range v {
		if vy == 0 {
			continue
		}
		ry, cy := y/C, y%C
		for rx := 0; rx < R; rx++ {
			base := (R-1+rx-ry)*ts + C - 1 - cy
			asm.AxpyUnroll(vy, st.t[base:base+C], dst[rx*C:(rx+1)*C])
		}
	}
}

// vecNorms returns upper bounds of ||v||_1 and ||v||_2 for v >= 0: the
// rounded sums inflated by (1 + m u), the squares scaled when they would
// underflow or overflow.
func vecNorms(v []float64) (n1, n2 float64) {
	for _, x := range v {
		n1 += x
		n2 += x * x
	}
	if n1 == 0 {
		return 0, 0
	}
	if !(n2 > 1e-250 && n2 < 1e250) {
		var ss sumSquares
		for _, x := range v {
			ss.addN(x, 1)
		}
		n2 = ss.norm()
	} else {
		n2 = math.Sqrt(n2)
	}
	infl := 1 + float64(len(v))*0x1p-52
	return n1 * infl, n2 * infl
}

// Costs in nanoseconds, measured on the development machine
// (BenchmarkKProd); they only steer the choices of prod, never its result.
const (
	nsFFT   = 0.6  // per point and stage of a product's transforms
	nsAxpy  = 0.15 // per multiply-add of windowAll
	nsDot   = 1.0  // per multiply-add of windowSum
	nsExact = 0.5  // per cell of the grid, for one exactSum
)

func (kp *kprod) fftCost() float64 {
	f := kp.fullFFT()
	return nsFFT * float64(f.n0*f.n1) * float64(f.lg0+f.lgm+1)
}

func (kp *kprod) exactCost() float64 { return nsExact * float64(kp.len()) }

// levelCost is the cost of a near/far level of radius rho for n entries.
func (kp *kprod) levelCost(rho, n int) float64 {
	side := float64(2*rho + 1)
	m := kp.len()
	near := nsDot * float64(n) * side * side
	if n > m/8 {
		near = nsAxpy * float64(m) * float64(rho+1) * side
	}
	return kp.fftCost() + near
}

// chooseRadius picks the radius (> minRho) of the next near/far level for
// the entries unc, whose current estimates est are within e of the exact
// values: an entry needs the smallest rho whose far bound certifies its
// lower bound est - e, and the radius minimises the level's cost plus an
// exactSum for each entry it leaves.
func (kp *kprod) chooseRadius(unc []int32, est []float64, e, n1, n2 float64, minRho int, w *kprodWork) int {
	f := kp.fullFFT()
	f1, f2 := kp.farNorms()
	maxRho := len(f1) - 1
	// thr[rho]: the smallest value the level of radius rho certifies.
	thr := w.thr[:0]
	for rho := 0; rho <= maxRho; rho++ {
		thr = append(thr, f.boundFor(f1[rho], f2[rho], n1, n2)*(1+1/certTol))
	}
	w.thr = thr
	need := w.need[:0]
	for range maxRho + 2 {
		need = append(need, 0)
	}
	w.need = need
	// Entries are binned by the binary exponent of their lower bound, and
	// a bin needs what its lower edge needs (at least what each entry
	// needs).
	var bins [2048]int32
	for _, x := range unc {
		lo := est[x] - e
		if !(lo > 0) {
			need[maxRho+1]++
			continue
		}
		bins[math.Float64bits(lo)>>52&0x7ff]++
	}
	for ex, cnt := range bins {
		if cnt == 0 {
			continue
		}
		lo := math.Float64frombits(uint64(ex) << 52)
		// Smallest rho > minRho with thr[rho] <= lo (thr decreases).
		a, b := minRho+1, maxRho+1
		for a < b {
			mid := (a + b) / 2
			if thr[mid] <= lo {
				b = mid
			} else {
				a = mid + 1
			}
		}
		need[a] += cnt
	}
	best, bestRho := math.Inf(1), -1
	left := len(unc)
	prev := minRho
	for _, rho := range nearRadii {
		if rho <= minRho {
			continue
		}
		if rho > maxRho {
			break
		}
		for r := prev + 1; r <= rho; r++ {
			left -= int(need[r])
		}
		prev = rho
		if c := kp.levelCost(rho, len(unc)) + float64(left)*kp.exactCost(); c < best {
			best, bestRho = c, rho
		}
		if left == int(need[maxRho+1]) {
			break // larger radii certify nothing more
		}
	}
	if bestRho < 0 {
		return minRho // no admissible radius: the caller stops
	}
	return bestRho
}

// adaptRadius sets how the next product at site starts, from this
// product's final values y (exact to certTol, so e = 0): with the
// full-kernel FFT if its bound would have certified three quarters of the
// entries, else with the radius chooseRadius picks for all of them.
func (kp *kprod) adaptRadius(site *kprodSite, y []float64, n1, n2 float64, w *kprodWork) {
	thr := kp.fullFFT().errBound(n1, n2) * (1 + 1/certTol)
	left := 0
	for _, v := range y {
		if !(v >= thr) {
			left++
		}
	}
	if left <= len(y)/4 {
		site.near = false
		return
	}
	w.all = w.all[:0]
	for x := range y {
		w.all = append(w.all, int32(x))
	}
	site.rho = kp.chooseRadius(w.all, y, 0, n1, n2, 0, w)
}

// farNorms returns the norms of the far kernels by radius.
func (kp *kprod) farNorms() (f1, f2 []float64) {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if kp.farNorm1 == nil {
		R, C := kp.rows, kp.cols
		n := max(R, C)
		ring1 := make([]float64, n+1)
		ring2 := make([]sumSquares, n+1)
		for dr := 0; dr < R; dr++ {
			for dc := 0; dc < C; dc++ {
				k := kp.st.at(dr, dc)
				mult := 1.0
				if dr > 0 {
					mult *= 2
				}
				if dc > 0 {
					mult *= 2
				}
				r := max(dr, dc)
				ring1[r] += mult * k
				ring2[r].addN(k, mult)
			}
		}
		// Summed from the outside in, so that small far norms keep their
		// relative accuracy; then inflated to stay upper bounds.
		f1, f2 = make([]float64, n+1), make([]float64, n+1)
		var ss sumSquares
		for r := n - 1; r >= 0; r-- {
			f1[r] = f1[r+1] + ring1[r+1]
			ss.merge(ring2[r+1])
			f2[r] = ss.norm()
		}
		infl := 1 + 4*float64(R*C)*0x1p-53
		for r := range f1 {
			f1[r] *= infl
			f2[r] *= infl
		}
		kp.farNorm1, kp.farNorm2 = f1, f2
	}
	return kp.farNorm1, kp.farNorm2
}

// defaultRadius is the first near radius of a call site: where k has
// fallen to e^-10.
func (kp *kprod) defaultRadius() int {
	return max(1, min(int(math.Ceil(10/kp.beta)), max(kp.rows, kp.cols)))
}

// directCost is the cost of the direct product in units of one window
// term: m^2 multiply-adds, at about four times the speed of the window sums
// (vector kernels and row folding).
func directCost(m int) float64 { return float64(m) * float64(m) / 4 }

func (kp *kprod) direct(dst, v []float64, w *kprodWork) {
	w.stats.direct++
	w.stdScratch = grow(w.stdScratch, kp.st.scratchLen())
	kp.st.prod(dst, v, w.stdScratch)
}

// exactSum returns sum_y k(x, y) v(y) to certTol/2 relative: the sum over
// the window of Chebyshev radius rho, doubled until the rest, at most
// k(rho+1) n1 (n1 >= ||v||_1), is negligible or the window is the grid.
func (kp *kprod) exactSum(x, rho int, v []float64, n1 float64) float64 {
	R, C := kp.rows, kp.cols
	rho = max(rho, 1)
	for {
		s := kp.st.windowSum(x, rho, v)
		if rho >= max(R, C) {
			return s
		}
		if tail := kp.tailMax(rho) * n1; tail <= 0.5*certTol*s*(1-gamma((2*rho+1)*(2*rho+1))) {
			return s
		}
		rho *= 2
	}
}

// gamma is Higham's gamma_n = n u / (1 - n u): the relative error bound of
// a sum of n non-negative rounded terms.
func gamma(n int) float64 {
	nu := float64(n) * 0x1p-53
	return nu / (1 - nu)
}

// at returns the table entry for row and column offsets dr, dc >= 0.
func (s *stencil) at(dr, dc int) float64 {
	return s.t[(s.rows-1+dr)*s.ts+s.cols-1+dc]
}

// windowSum returns sum over the cells y of the grid with
// |ry - rx| <= rho and |cy - cx| <= rho of k(x, y) v(y).
func (s *stencil) windowSum(x, rho int, v []float64) float64 {
	R, C, ts := s.rows, s.cols, s.ts
	rx, cx := x/C, x%C
	r0, r1 := max(0, rx-rho), min(R-1, rx+rho)
	c0, c1 := max(0, cx-rho), min(C-1, cx+rho)
	sum := 0.0
	for ry := r0; ry <= r1; ry++ {
		// Table row of offset rx-ry; entry C-1+(cy-cx) is k at column
		// offset cy-cx (the table is symmetric).
		base := (R-1+rx-ry)*ts + C - 1 - cx
		sum += asm.DotUnroll(v[ry*C+c0:ry*C+c1+1], s.t[base+c0:base+c1+1])
	}
	return sum
}

// windowAll sets dst[x] = windowSum(x, rho, v) for every cell: for each
// output row, the input rows at distance d <= rho are folded (both share
// the table row of d) and filtered along the row with the symmetric taps
// k(d, 0..rho) (firSym). scratch is grown as needed.
func (s *stencil) windowAll(dst, v []float64, rho int, scratch *[]float64) {
	R, C := s.rows, s.cols
	rho = min(rho, max(R, C))
	n := roundUp(C, 8)
	*scratch = grow(*scratch, n+(n+2*rho)+(rho+1))
	buf := *scratch
	acc := buf[:n]
	fp := buf[n : n+n+2*rho]
	taps := buf[2*n+2*rho : 2*n+3*rho+1]
	clear(fp)
	fold := fp[rho : rho+C]
	for rx := 0; rx < R; rx++ {
		clear(acc)
		for d := 0; d <= min(rho, R-1); d++ {
			up, down := rx-d, rx+d
			switch {
			case d == 0:
				copy(fold, v[rx*C:(rx+1)*C])
			case up >= 0 && down < R:
				a, b := v[up*C:(up+1)*C], v[down*C:(down+1)*C]
				for i := range fold {
					fold[i] = a[i] + b[i]
				}
			case up >= 0:
				copy(fold, v[up*C:(up+1)*C])
			case down < R:
				copy(fold, v[down*C:(down+1)*C])
			default:
				continue
			}
			for e := range taps {
				if e < C {
					taps[e] = s.at(d, e)
				} else {
					taps[e] = 0
				}
			}
			asm.FIRSym(acc, fp, taps)
		}
		copy(dst[rx*C:(rx+1)*C], acc[:C])
	}
}

// lprod sets dst[x] = ln sum_y exp(a[y] - beta d(x, y)) (a[y] = -Inf for a
// zero), the product with K in the log domain. Small grids use the
// stencil's O(m^2) product. On large grids each entry is summed over a
// window grown until the terms outside it, each at most
// exp(amax - beta (rho+1)) and at most m of them, are below certTol/2 of
// the window's sum (or the window is the grid). mx is scratch of
// kp.cols entries. It needs the stencil's log table.
func (kp *kprod) lprod(dst, a, mx []float64) {
	if !kp.useFFT {
		kp.st.lprod(dst, a, mx)
		return
	}
	m := kp.len()
	amax := math.Inf(-1)
	for _, v := range a[:m] {
		amax = max(amax, v)
	}
	lm := math.Log(float64(m))
	lt := math.Log(0.5 * certTol)
	rho0 := max(1, min(int(math.Ceil(30/kp.beta)), max(kp.rows, kp.cols)))
	for x := range dst[:m] {
		if amax == math.Inf(-1) {
			dst[x] = amax
			continue
		}
		rho := rho0
		for {
			mw, s := kp.st.logWindow(x, rho, a)
			full := rho >= max(kp.rows, kp.cols)
			if full || (mw > math.Inf(-1) && lm+amax-kp.beta*float64(rho+1)-mw <= lt+math.Log(s)) {
				if mw == math.Inf(-1) {
					dst[x] = mw
				} else {
					dst[x] = mw + math.Log(s)
				}
				break
			}
			rho *= 2
		}
	}
}

// logWindow returns the largest term mw of the log-domain product for cell
// x over the window of Chebyshev radius rho, and s, the sum of
// exp(term - mw) over the window (terms below e^-50 of mw skipped, as in
// stencil.lprod).
func (s *stencil) logWindow(x, rho int, a []float64) (mw, sum float64) {
	R, C, ts := s.rows, s.cols, s.ts
	rx, cx := x/C, x%C
	r0, r1 := max(0, rx-rho), min(R-1, rx+rho)
	c0, c1 := max(0, cx-rho), min(C-1, cx+rho)
	negInf := math.Inf(-1)
	mw = negInf
	for ry := r0; ry <= r1; ry++ {
		base := (R-1+rx-ry)*ts + C - 1 - cx
		nd := s.nd[base+c0 : base+c1+1]
		for j, av := range a[ry*C+c0 : ry*C+c1+1] {
			mw = max(mw, av+nd[j])
		}
	}
	if mw == negInf {
		return mw, 0
	}
	for ry := r0; ry <= r1; ry++ {
		base := (R-1+rx-ry)*ts + C - 1 - cx
		nd := s.nd[base+c0 : base+c1+1]
		for j, av := range a[ry*C+c0 : ry*C+c1+1] {
			if e := av + nd[j] - mw; e > -50 {
				sum += math.Exp(e)
			}
		}
	}
	return mw, sum
}

// maxChange is stencil.maxChange; on large grids each row x is scanned
// over windows grown until the kernel's decay bounds every entry outside
// by the maximum found so far (entries outside the window of radius rho
// are at most k(rho+1) max(max c iz(x), max cp izp(x)), or that and 1/m
// against the uniform channel).
func (kp *kprod) maxChange(c, iz, cp, izp []float64, uniformPrev bool) float64 {
	if !kp.useFFT {
		return kp.st.maxChange(c, iz, cp, izp, uniformPrev)
	}
	m := kp.len()
	u := 1 / float64(m)
	cmax, cpmax := factorMax(c[:m], cp, 0, uniformPrev)
	st := kp.st
	return kp.prunedMax(func(x int) float64 {
		return math.Log(max(cmax*iz[x], cpmax*izp[x]))
	}, func(x, y, dr, dc int) float64 {
		k := st.at(dr, dc)
		if uniformPrev {
			return math.Abs(k*c[y]*iz[x] - u)
		}
		return k * math.Abs(c[y]*iz[x]-cp[y]*izp[x])
	}, uniformPrev)
}

// maxChangeLog is maxChange for log-domain factors (lc = ln c, lz = ln Z).
func (kp *kprod) maxChangeLog(lc, lz, lcp, lzp []float64, uniformPrev bool) float64 {
	if !kp.useFFT {
		return kp.st.maxChangeLog(lc, lz, lcp, lzp, uniformPrev)
	}
	m := kp.len()
	u := 1 / float64(m)
	lcmax, lcpmax := factorMax(lc[:m], lcp, math.Inf(-1), uniformPrev)
	st := kp.st
	return kp.prunedMax(func(x int) float64 {
		if uniformPrev {
			return lcmax - lz[x]
		}
		return max(lcmax-lz[x], lcpmax-lzp[x])
	}, func(x, y, dr, dc int) float64 {
		lk := st.nd[(st.rows-1+dr)*st.ts+st.cols-1+dc]
		prev := u
		if !uniformPrev {
			prev = math.Exp(lcp[y] + lk - lzp[x])
		}
		return math.Abs(math.Exp(lc[y]+lk-lz[x]) - prev)
	}, uniformPrev)
}

// factorMax returns the largest entry of the new factor c and, unless
// uniformPrev (when cp is not read), of the previous factor cp over the
// same cells, each starting from lo: 0 for factors, -Inf for their logs.
func factorMax(c, cp []float64, lo float64, uniformPrev bool) (cmax, cpmax float64) {
	cmax, cpmax = lo, lo
	for y, v := range c {
		cmax = max(cmax, v)
		if !uniformPrev {
			cpmax = max(cpmax, cp[y])
		}
	}
	return cmax, cpmax
}

// prunedMax returns max over cells x, y of entry(x, y, |rx-ry|, |cx-cy|)
// for an entry function bounded, for y outside x's window of Chebyshev
// radius rho, by exp(-beta (rho+1) + logScale(x)) (or, with floorU, by
// the larger of that and 1/m).
func (kp *kprod) prunedMax(logScale func(x int) float64, entry func(x, y, dr, dc int) float64, floorU bool) float64 {
	R, C := kp.rows, kp.cols
	m := R * C
	u := 1 / float64(m)
	best := 0.0
	for x := range m {
		rx, cx := x/C, x%C
		done := -1 // radius already scanned
		for rho := 1; ; rho *= 2 {
			for ry := max(0, rx-rho); ry <= min(R-1, rx+rho); ry++ {
				for cy := max(0, cx-rho); cy <= min(C-1, cx+rho); cy++ {
					dr, dc := abs(ry-rx), abs(cy-cx)
					if max(dr, dc) <= done {
						continue
					}
					best = max(best, entry(x, ry*C+cy, dr, dc))
				}
			}
			done = rho
			if rho >= max(R, C) {
				break
			}
			bound := math.Exp(-kp.beta*float64(rho+1) + logScale(x))
			if floorU {
				bound = max(bound, u)
			}
			if bound <= best {
				break
			}
		}
	}
	return best
}

// MaxDenseCells bounds the input and output grids of a materialised
// channel (an m x n matrix of float64): 16,384 cells, 2 GiB for a square
// channel.
const MaxDenseCells = 1 << 14

// checkDenseSize refuses channels too large to materialise.
func checkDenseSize(in, out Grid) error {
	if n := int64(in.Len()) * int64(out.Len()); n > int64(MaxDenseCells)*int64(MaxDenseCells) {
		return fmt.Errorf("a dense %v -> %v channel has %d entries (%s); at most %d x %d cells are materialised",
			in, out, n, formatBytes(8*n), MaxDenseCells, MaxDenseCells)
	}
	return nil
}

// formatBytes prints n bytes with a binary unit.
func formatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(n)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %s", v, units[i])
}

// ensureLog builds the stencil's log table if it is missing.
func (kp *kprod) ensureLog() {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if kp.st.nd == nil {
		kp.st.nd = newStencil(kp.rows, kp.cols, kp.beta, true).nd
	}
}
