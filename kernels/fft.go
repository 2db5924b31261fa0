package kernels

import (
	"math"
	"math/bits"

	"privic/kernels/internal/asm"
)

// fftConv computes 2-D linear convolutions of an R x C grid with an even
// kernel (k(dr, dc) = k(-dr, dc) = k(dr, -dc)) by fast Fourier transforms:
// O(m log m) per product instead of the stencil's O(m^2).
//
// The grid is zero-padded to n0 x n1 (powers of two, n0 >= 2R-1 and
// n1 >= 2C-1), so the circular convolution of length n0 x n1 equals the
// linear one on the R x C outputs. The real rows are transformed as
// complex sequences of length m = n1/2 (even columns as real parts, odd
// columns as imaginary parts) and separated into their m+1 non-negative
// frequencies; the kernel's transform is real because the kernel is even.
//
// Layout: every transform is done across the rows of a matrix whose rows
// are long contiguous vectors (two planes, real and imaginary parts), so
// that each butterfly is one vector operation with one twiddle factor
// (asm.ButterflyDIF, asm.ButterflyDIT: assembly on amd64). The transforms along
// the grid's columns therefore work on the transposed, packed input A
// (m rows of R entries: row j holds columns 2j and 2j+1), the transforms
// along its rows on B (n0 rows of m+1 frequencies), and a product is
//
//	pack v into A, transform A (length m), separate, transpose into B,
//	transform B (length n0), multiply by the kernel's transform,
//	and back: inverse on B, transpose into A, combine, inverse on A, unpack.
//
// Forward transforms are decimation in frequency and leave their rows in
// bit-reversed order; the inverses are decimation in time and take
// bit-reversed rows, so no permutation pass is needed (the kernel's
// transform is stored in the same order, and the separation step reads
// its row pairs through the bit reversal). Rows known to be zero (the
// padding) are skipped in the first stage of a forward transform, and only
// the rows needed are finished in the last stage of an inverse.
//
// Rounding: every product carries an absolute error, bounded by errBound,
// that is the same for all entries; kprod decides which entries that
// certifies.
type fftConv struct {
	rows, cols int
	n0, n1, m  int
	lg0, lgm   int
	rp         int // row length of A: R rounded up to whole vectors
	w          int // row length of B: m+1 rounded up

	twmRe, twmIm []float64 // e^{-2 pi i j/m}, j < m/2
	tw0Re, tw0Im []float64 // e^{-2 pi i j/n0}, j < n0/2
	sepRe, sepIm []float64 // e^{-2 pi i k/n1}, k <= m
	brm          []int32   // bit reversal of indices < m

	// khat is the kernel's transform divided by 4 n0 n1 (see prod), n0
	// rows in bit-reversed order, stride w.
	khat []float64

	knorm1, knorm2 float64 // ||k||_1 and ||k||_2 over the kernel's offsets
}

// fftSize returns the smallest power of two >= n, at least 2.
func fftSize(n int) int {
	s := 2
	for s < n {
		s <<= 1
	}
	return s
}

// newFFTConv plans the convolution of an R x C grid with the even kernel
// given by kern(dr, dc) for 0 <= dr < R, 0 <= dc < C.
func newFFTConv(R, C int, kern func(dr, dc int) float64) *fftConv {
	f := &fftConv{rows: R, cols: C}
	f.n0 = fftSize(2*R - 1)
	f.n1 = max(4, fftSize(2*C-1)) // m >= 2
	f.m = f.n1 / 2
	f.lg0 = bits.TrailingZeros(uint(f.n0))
	f.lgm = bits.TrailingZeros(uint(f.m))
	f.rp = roundUp(R, 4)
	f.w = roundUp(f.m+1, 4)
	f.twmRe, f.twmIm = twiddles(f.m, f.m/2)
	f.tw0Re, f.tw0Im = twiddles(f.n0, f.n0/2)
	f.sepRe, f.sepIm = twiddles(f.n1, f.m+1)
	f.brm = bitReversal(f.m)

	// The kernel on the full periodic n0 x n1 array: offsets beyond the
	// grid's reach are never used by an output, and are set to zero.
	n0, n1 := f.n0, f.n1
	k := make([]float64, n0*n1)
	var ss sumSquares
	for dr := 0; dr < R; dr++ {
		for dc := 0; dc < C; dc++ {
			v := kern(dr, dc)
			for _, r := range [2]int{dr, (n0 - dr) % n0} {
				k[r*n1+dc] = v
				k[r*n1+(n1-dc)%n1] = v
			}
			mult := 1.0
			if dr > 0 {
				mult *= 2
			}
			if dc > 0 {
				mult *= 2
			}
			f.knorm1 += mult * v
			ss.addN(v, mult)
		}
	}
	f.knorm2 = ss.norm()
	// The same transforms as a product, on an n0 x n1 input.
	full := &fftConv{rows: n0, cols: n1, n0: n0, n1: n1, m: f.m, lg0: f.lg0, lgm: f.lgm,
		rp: roundUp(n0, 4), w: f.w, twmRe: f.twmRe, twmIm: f.twmIm, tw0Re: f.tw0Re, tw0Im: f.tw0Im,
		sepRe: f.sepRe, sepIm: f.sepIm, brm: f.brm}
	sc := make([]float64, full.scratchLen())
	re, _ := full.forward(k, sc)
	f.khat = make([]float64, n0*f.w)
	scale := 0.25 / float64(n0*n1)
	for i := range f.khat {
		f.khat[i] = re[i] * scale
	}
	return f
}

// sumSquares accumulates a 2-norm without underflow or overflow: the sum
// is scale^2 ssq (LAPACK's dlassq). The terms lost to underflow are below
// 2^-1022 relative to the largest each, far below the margins the norms
// are used with.
type sumSquares struct{ scale, ssq float64 }

// addN adds n copies of v^2.
func (s *sumSquares) addN(v, n float64) {
	v = math.Abs(v)
	switch {
	case v == 0:
	case v > s.scale:
		if s.scale > 0 {
			r := s.scale / v
			s.ssq = n + s.ssq*r*r
		} else {
			s.ssq = n
		}
		s.scale = v
	default:
		r := v / s.scale
		s.ssq += n * r * r
	}
}

// merge adds the squares of t.
func (s *sumSquares) merge(t sumSquares) {
	switch {
	case t.scale == 0:
	case t.scale > s.scale:
		r := s.scale / t.scale
		s.ssq = t.ssq + s.ssq*r*r
		s.scale = t.scale
	default:
		r := t.scale / s.scale
		s.ssq += t.ssq * r * r
	}
}

func (s sumSquares) norm() float64 { return s.scale * math.Sqrt(s.ssq) }

// twiddles returns e^{-2 pi i j/n} for j < count.
func twiddles(n, count int) (re, im []float64) {
	re, im = make([]float64, count), make([]float64, count)
	for j := range re {
		s, c := math.Sincos(-2 * math.Pi * float64(j) / float64(n))
		re[j], im[j] = c, s
	}
	return re, im
}

func bitReversal(n int) []int32 {
	lg := bits.TrailingZeros(uint(n))
	br := make([]int32, n)
	if lg == 0 {
		return br
	}
	for i := range br {
		br[i] = int32(bits.Reverse32(uint32(i)) >> (32 - lg))
	}
	return br
}

// scratchLen is the length of the scratch a product needs: the planes of
// A (m+1 rows) and B (n0 rows).
func (f *fftConv) scratchLen() int { return 2*(f.m+1)*f.rp + 2*f.n0*f.w }

func (f *fftConv) planes(scratch []float64) (are, aim, bre, bim []float64) {
	na, nb := (f.m+1)*f.rp, f.n0*f.w
	are = scratch[:na:na]
	aim = scratch[na : 2*na : 2*na]
	bre = scratch[2*na : 2*na+nb : 2*na+nb]
	bim = scratch[2*na+nb : 2*na+2*nb : 2*na+2*nb]
	return
}

// forward transforms the R x C input v (row-major) into B, returning B's
// planes: rows in bit-reversed order, m+1 frequencies each (stride w),
// every value twice the 2-D DFT's.
func (f *fftConv) forward(v, scratch []float64) (bre, bim []float64) {
	R, C, rp := f.rows, f.cols, f.rp
	are, aim, bre, bim := f.planes(scratch)
	nz := (C + 1) / 2
	// Pack and transpose, in blocks of rows so that the reads of v stay
	// in cache: A[j][r] = v[r][2j] + i v[r][2j+1].
	const blk = 16
	for r0 := 0; r0 < R; r0 += blk {
		r1 := min(r0+blk, R)
		for j := 0; j < C/2; j++ {
			ar, ai := are[j*rp:], aim[j*rp:]
			for r := r0; r < r1; r++ {
				ar[r], ai[r] = v[r*C+2*j], v[r*C+2*j+1]
			}
		}
		if C%2 == 1 {
			j := C / 2
			for r := r0; r < r1; r++ {
				are[j*rp+r], aim[j*rp+r] = v[r*C+C-1], 0
			}
		}
	}
	colDIF(are, aim, f.m, rp, nz, f.twmRe, f.twmIm)
	f.separate(are, aim)
	f.transposeAB(are, aim, bre, bim, false)
	colDIF(bre, bim, f.n0, f.w, R, f.tw0Re, f.tw0Im)
	return bre, bim
}

// transposeAB copies the m+1 frequencies X between A and B, in blocks of
// rows so that the accesses to B stay in cache: B[r][k] = X[k][r], where
// X[k] is A's row brm[k] for k < m and row m for k = m. With toA the copy
// goes the other way, from B into A.
func (f *fftConv) transposeAB(are, aim, bre, bim []float64, toA bool) {
	R, rp, w, m := f.rows, f.rp, f.w, f.m
	const blk = 16
	for r0 := 0; r0 < R; r0 += blk {
		r1 := min(r0+blk, R)
		for k := 0; k <= m; k++ {
			p := m
			if k < m {
				p = int(f.brm[k])
			}
			ar, ai := are[p*rp:], aim[p*rp:]
			if toA {
				for r := r0; r < r1; r++ {
					ar[r], ai[r] = bre[r*w+k], bim[r*w+k]
				}
			} else {
				for r := r0; r < r1; r++ {
					bre[r*w+k], bim[r*w+k] = ar[r], ai[r]
				}
			}
		}
	}
}

// prod sets dst = k * v (the linear convolution on the R x C grid) for v
// of R*C entries; scratch has scratchLen entries.
func (f *fftConv) prod(dst, v, scratch []float64) {
	R, C, rp, w, m := f.rows, f.cols, f.rp, f.w, f.m
	bre, bim := f.forward(v[:R*C], scratch)
	are, aim, _, _ := f.planes(scratch)
	scaleRows(bre, bim, f.khat)
	colDIT(bre, bim, f.n0, w, R, f.tw0Re, f.tw0Im)
	f.transposeAB(are, aim, bre, bim, true)
	f.combine(are, aim)
	const blk = 16
	nz := (C + 1) / 2
	colDIT(are, aim, m, rp, nz, f.twmRe, f.twmIm)
	for r0 := 0; r0 < R; r0 += blk {
		r1 := min(r0+blk, R)
		for j := 0; j < C/2; j++ {
			ar, ai := are[j*rp:], aim[j*rp:]
			for r := r0; r < r1; r++ {
				dst[r*C+2*j], dst[r*C+2*j+1] = ar[r], ai[r]
			}
		}
		if C%2 == 1 {
			j := C / 2
			for r := r0; r < r1; r++ {
				dst[r*C+C-1] = are[j*rp+r]
			}
		}
	}
}

// scaleRows multiplies both planes by the real factors k entry by entry.
func scaleRows(re, im, k []float64) {
	n := len(k)
	re, im = re[:n], im[:n]
	for i, v := range k {
		re[i] *= v
		im[i] *= v
	}
}

// separate turns the transform Z of the packed rows (A's rows, bit-reversed)
// into the m+1 non-negative frequencies X of the real rows, in place: X[k]
// goes to the row of Z[k], and X[m] to the extra row m:
//
//	X[k] = E[k] + e^{-2 pi i k/n1} O[k],  E[k] = (Z[k] + conj Z[m-k])/2,  O[k] = (Z[k] - conj Z[m-k])/(2i)
//
// (without the factors 1/2, folded into the kernel's transform), for all
// columns of A at once.
func (f *fftConv) separate(re, im []float64) {
	m, rp := f.m, f.rp
	for k := 0; k <= m/2; k++ {
		p, q := int(f.brm[k]), int(f.brm[(m-k)%m])
		zr, zi := re[p*rp:(p+1)*rp], im[p*rp:(p+1)*rp]
		cr, ci := re[q*rp:(q+1)*rp], im[q*rp:(q+1)*rp]
		if k == 0 {
			// Z[m] = Z[0]: X[0] = 2 Re + 2 Im, X[m] = 2 Re - 2 Im, both real.
			xr, xi := re[m*rp:(m+1)*rp], im[m*rp:(m+1)*rp]
			for j := range zr {
				a, b := zr[j], zi[j]
				zr[j], zi[j] = 2*(a+b), 0
				xr[j], xi[j] = 2*(a-b), 0
			}
			continue
		}
		w1r, w1i := f.sepRe[k], f.sepIm[k]
		if p == q {
			// k = m/2 pairs with itself: E = 2 Re Z, O = 2 Im Z and
			// e^{-2 pi i k/n1} = -i, so X = 2 conj Z.
			for j := range zr {
				zr[j], zi[j] = 2*zr[j], -2*zi[j]
			}
			continue
		}
		w2r, w2i := f.sepRe[m-k], f.sepIm[m-k]
		for j := range zr {
			ar, ai := zr[j], zi[j]
			br, bi := cr[j], ci[j]
			// E = Z[k] + conj Z[m-k]; O = (Z[k] - conj Z[m-k]) / i.
			er, ei := ar+br, ai-bi
			dr, di := ar-br, ai+bi
			or, oi := di, -dr
			zr[j] = er + or*w1r - oi*w1i
			zi[j] = ei + or*w1i + oi*w1r
			// For X[m-k] the roles swap: E' = conj E, O' = conj O.
			or2, oi2 := or, -oi
			cr[j] = er + or2*w2r - oi2*w2i
			ci[j] = -ei + or2*w2i + oi2*w2r
		}
	}
}

// combine is the inverse of separate (times 2): from X[k] in the row of
// Z[k] (and X[m] in row m) it writes the packed rows' transform Z in place.
func (f *fftConv) combine(re, im []float64) {
	m, rp := f.m, f.rp
	for k := 0; k <= m/2; k++ {
		p, q := int(f.brm[k]), int(f.brm[(m-k)%m])
		xr, xi := re[p*rp:(p+1)*rp], im[p*rp:(p+1)*rp]
		if k == 0 {
			// Z[0] = E + i O with E = X[0] + conj X[m], O = X[0] - conj X[m].
			yr, yi := re[m*rp:(m+1)*rp], im[m*rp:(m+1)*rp]
			for j := range xr {
				ar, ai := xr[j], xi[j]
				br, bi := yr[j], yi[j]
				er, ei := ar+br, ai-bi
				or, oi := ar-br, ai+bi
				xr[j], xi[j] = er-oi, ei+or
			}
			continue
		}
		w1r, w1i := f.sepRe[k], -f.sepIm[k] // e^{+2 pi i k/n1}
		if p == q {
			// k = m/2: the inverse of X = 2 conj Z, times 2.
			for j := range xr {
				xr[j], xi[j] = 2*xr[j], -2*xi[j]
			}
			continue
		}
		yr, yi := re[q*rp:(q+1)*rp], im[q*rp:(q+1)*rp]
		w2r, w2i := f.sepRe[m-k], -f.sepIm[m-k]
		for j := range xr {
			ar, ai := xr[j], xi[j]
			br, bi := yr[j], yi[j]
			// Z[k] = E + i O, E = X[k] + conj X[m-k], O = (X[k] - conj X[m-k]) w1.
			er, ei := ar+br, ai-bi
			dr, di := ar-br, ai+bi
			or := dr*w1r - di*w1i
			oi := dr*w1i + di*w1r
			xr[j], xi[j] = er-oi, ei+or
			// Z[m-k]: E' = conj E, D' = -conj D.
			dr2, di2 := -dr, di
			or2 := dr2*w2r - di2*w2i
			oi2 := dr2*w2i + di2*w2r
			yr[j], yi[j] = er-oi2, -ei+or2
		}
	}
}

// fftStrip is the width of the column strips the row transforms work on:
// a strip of 2^11 rows then takes 512 KiB, within L2.
const fftStrip = 16

// stripWidth is the width of the column strips that the transform of n
// rows of length vl works on: the whole rows while the planes take at most
// 2^15 entries, else a multiple of fftStrip.
func stripWidth(n, vl int) int {
	if n*vl > 1<<15 {
		return fftStrip * max(1, (1<<15)/(n*fftStrip))
	}
	return vl
}

// colDIF transforms the n rows (each of length vl, a multiple of 4) of the
// planes re, im: out[k] = sum_j in[j] e^{-2 pi i jk/n}, by decimation in
// frequency, leaving row k at bit-reversed position. Rows from nz on are
// zero on input. tw holds e^{-2 pi i j/n} for j < n/2.
func colDIF(re, im []float64, n, vl, nz int, twRe, twIm []float64) {
	strip := stripWidth(n, vl)
	for j0 := 0; j0 < vl; j0 += strip {
		j1 := min(j0+strip, vl)
		h := n / 2
		if nz <= h {
			// First stage with a zero second half: a' = a, b' = a w.
			for i := 0; i < nz; i++ {
				a, b := i*vl, (i+h)*vl
				wr, wi := twRe[i], twIm[i]
				ar, ai := re[a+j0:a+j1], im[a+j0:a+j1]
				br, bi := re[b+j0:b+j1], im[b+j0:b+j1]
				for j := range ar {
					br[j] = ar[j]*wr - ai[j]*wi
					bi[j] = ar[j]*wi + ai[j]*wr
				}
			}
			for i := nz; i < h; i++ {
				for _, r := range [2]int{i, i + h} {
					clear(re[r*vl+j0 : r*vl+j1])
					clear(im[r*vl+j0 : r*vl+j1])
				}
			}
			h /= 2
		}
		// Stages h and h/2 fused (radix 4), then a last radix-2 stage
		// if one is left.
		for ; h >= 2; h /= 4 {
			step := n / (2 * h)
			q := h / 2
			for s := 0; s < n; s += 2 * h {
				for i := 0; i < q; i++ {
					o := [4]int{(s+i)*vl + j0, (s+i+q)*vl + j0, (s+i+h)*vl + j0, (s+i+h+q)*vl + j0}
					wA := [2]float64{twRe[i*step], twIm[i*step]}
					wB := [2]float64{twRe[(i+q)*step], twIm[(i+q)*step]}
					wC := [2]float64{twRe[2*i*step], twIm[2*i*step]}
					asm.Butterfly4DIF(re, im, o, j1-j0, wA, wB, wC)
				}
			}
		}
		if h == 1 {
			for s := 0; s < n; s += 2 {
				a, b := s*vl, (s+1)*vl
				asm.ButterflyDIF(re[a+j0:a+j1], im[a+j0:a+j1], re[b+j0:b+j1], im[b+j0:b+j1], twRe[0], twIm[0])
			}
		}
	}
}

// colDIT is the inverse of colDIF (unnormalised: times n), from
// bit-reversed rows to natural order; only output rows below nout are
// needed (nout <= n/2 skips half of the last stage).
func colDIT(re, im []float64, n, vl, nout int, twRe, twIm []float64) {
	strip := stripWidth(n, vl)
	for j0 := 0; j0 < vl; j0 += strip {
		j1 := min(j0+strip, vl)
		for h := 1; h < n; h *= 2 {
			step := n / (2 * h)
			if 4*h <= n && !(4*h == n && nout <= 2*h) {
				// Stages h and 2h fused (radix 4).
				for s := 0; s < n; s += 4 * h {
					for i := 0; i < h; i++ {
						o := [4]int{(s+i)*vl + j0, (s+i+h)*vl + j0, (s+i+2*h)*vl + j0, (s+i+3*h)*vl + j0}
						wA := [2]float64{twRe[i*step], twIm[i*step]}
						wB := [2]float64{twRe[i*step/2], twIm[i*step/2]}
						wC := [2]float64{twRe[(i+h)*step/2], twIm[(i+h)*step/2]}
						asm.Butterfly4DIT(re, im, o, j1-j0, wA, wB, wC)
					}
				}
				h *= 2
				continue
			}
			if 2*h == n && nout <= h {
				for i := 0; i < nout; i++ {
					a, b := i*vl, (i+h)*vl
					wr, wi := twRe[i*step], twIm[i*step]
					ar, ai := re[a+j0:a+j1], im[a+j0:a+j1]
					br, bi := re[b+j0:b+j1], im[b+j0:b+j1]
					for j := range ar {
						ar[j] += br[j]*wr + bi[j]*wi
						ai[j] += bi[j]*wr - br[j]*wi
					}
				}
				break
			}
			for s := 0; s < n; s += 2 * h {
				for i := 0; i < h; i++ {
					a, b := (s+i)*vl, (s+i+h)*vl
					asm.ButterflyDIT(re[a+j0:a+j1], im[a+j0:a+j1], re[b+j0:b+j1], im[b+j0:b+j1], twRe[i*step], twIm[i*step])
				}
			}
		}
	}
}

// errBound bounds the absolute error of every entry of prod(v) for v with
// ||v||_1 <= n1 and ||v||_2 <= n2 (N = n0 n1 below, u the unit roundoff).
//
// The transforms are radix-2 FFTs: with L butterfly stages and twiddle
// factors accurate to mu, each computed transform has a relative error of
// at most eps = L eta in the 2-norm (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., Thm. 24.2, eta = mu + gamma_4 (sqrt 2 +
// mu)), and also, entry by entry, at most eps times the 1-norm of its input
// (each stage adds at most eta times the modulus of a partial sum, and the
// partial sums feeding one output partition the inputs). So, with V the
// transform of v and K that of the kernel k:
//
//   - the error of V is at most eps sqrt(N) ||v||_2 in the 2-norm and eps
//     ||v||_1 per entry; multiplied by K (|K| <= ||k||_1, ||K||_2 =
//     sqrt(N) ||k||_2) it contributes at most eps M sqrt(N), with
//     M = min(||k||_1 ||v||_2, ||k||_2 ||v||_1);
//   - the error of K is at most eps ||k||_1 per entry and eps sqrt(N)
//     ||k||_2 in the 2-norm, against |V| <= ||v||_1 and ||V||_2 =
//     sqrt(N) ||v||_2: again at most eps M sqrt(N);
//   - rounding the product adds u M sqrt(N), and the inverse transform eps
//     times the product's norm, at most M sqrt(N) (1 + 3 eps);
//
// and the inverse maps 2-norm errors of sqrt(N) M to output errors of at
// most M in every entry. Hence |error| <= (3 eps + u) M to first order.
// Here L counts the stages of both dimensions plus three for the real-FFT
// separation, its inverse and the transposes' exact copies' margin; the
// twiddles come from math.Sincos, within 2u per component, so
// mu <= 2 sqrt(2) u and eta <= 9u. The result is doubled as a margin for
// the second-order terms. The tests compare the bound with the errors
// actually made: they are about a thousand times smaller (the bound has
// no cancellation in it).
func (f *fftConv) errBound(n1, n2 float64) float64 {
	return f.boundFor(f.knorm1, f.knorm2, n1, n2)
}

// boundFor is errBound for a kernel of norms k1, k2 on f's sizes.
func (f *fftConv) boundFor(k1, k2, n1, n2 float64) float64 {
	const u = 0x1p-53
	L := float64(f.lg0 + f.lgm + 3)
	eps := L * 9 * u
	eps /= 1 - eps
	m := min(k1*n2, k2*n1)
	return 2 * (3*eps + u) * m
}
