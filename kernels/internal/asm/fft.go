package asm

import "fmt"

// ButterflyDIF is the decimation-in-frequency butterfly of an FFT stage
// on vectors with one twiddle factor w = (wr, wi): for every j,
//
//	(a'[j], b'[j]) = (a[j] + b[j], (a[j] - b[j]) w)
//
// with a = (ar, ai) and b = (br, bi) in separate real and imaginary
// planes, all of one length.
func ButterflyDIF(ar, ai, br, bi []float64, wr, wi float64) {
	checkPlanes("ButterflyDIF", ar, ai, br, bi)
	butterflyDIF(ar, ai, br, bi, wr, wi)
}

// ButterflyDIT is the decimation-in-time inverse butterfly: with
// t = conj(w) b[j], (a'[j], b'[j]) = (a[j] + t, a[j] - t).
func ButterflyDIT(ar, ai, br, bi []float64, wr, wi float64) {
	checkPlanes("ButterflyDIT", ar, ai, br, bi)
	butterflyDIT(ar, ai, br, bi, wr, wi)
}

func checkPlanes(name string, ar, ai, br, bi []float64) {
	if n := len(ar); len(ai) != n || len(br) != n || len(bi) != n {
		panic(fmt.Sprintf("asm: %s on planes of %d, %d, %d and %d entries", name, len(ar), len(ai), len(br), len(bi)))
	}
}

// Butterfly4DIF is two decimation-in-frequency stages fused, on the rows
// x_k = (re, im)[o[k]:o[k]+n] (x0, x1, x2, x3 at i, i+h/2, i+h, i+3h/2
// of a stage of half-width h and the next): ButterflyDIF on (x0, x2) with
// wA and on (x1, x3) with wB, then on (x0, x1) and (x2, x3) with wC. The
// results are bit for bit those of the four calls.
func Butterfly4DIF(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	checkRows4("Butterfly4DIF", re, im, o, n)
	butterfly4DIF(re, im, o, n, wA, wB, wC)
}

// Butterfly4DIT is two decimation-in-time stages fused, on the rows x_k =
// (re, im)[o[k]:o[k]+n] (at i, i+h, i+2h, i+3h): ButterflyDIT on (x0, x1)
// and (x2, x3) with wA, then on (x0, x2) with wB and on (x1, x3) with wC.
func Butterfly4DIT(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	checkRows4("Butterfly4DIT", re, im, o, n)
	butterfly4DIT(re, im, o, n, wA, wB, wC)
}

func checkRows4(name string, re, im []float64, o [4]int, n int) {
	for _, off := range o {
		if n < 0 || off < 0 || off+n > len(re) || off+n > len(im) {
			panic(fmt.Sprintf("asm: %s on rows at %v of %d entries in planes of %d and %d", name, o, n, len(re), len(im)))
		}
	}
}

// rows4 returns the four rows at offsets o of the planes re, im.
func rows4(re, im []float64, o [4]int, n int) (r, i [4][]float64) {
	for k, off := range o {
		r[k], i[k] = re[off:off+n], im[off:off+n]
	}
	return r, i
}

// butterfly4DIFGo is Butterfly4DIF's reference: the four butterflies.
func butterfly4DIFGo(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	r, i := rows4(re, im, o, n)
	butterflyDIFGo(r[0], i[0], r[2], i[2], wA[0], wA[1])
	butterflyDIFGo(r[1], i[1], r[3], i[3], wB[0], wB[1])
	butterflyDIFGo(r[0], i[0], r[1], i[1], wC[0], wC[1])
	butterflyDIFGo(r[2], i[2], r[3], i[3], wC[0], wC[1])
}

// butterfly4DITGo is Butterfly4DIT's reference: the four butterflies.
func butterfly4DITGo(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	r, i := rows4(re, im, o, n)
	butterflyDITGo(r[0], i[0], r[1], i[1], wA[0], wA[1])
	butterflyDITGo(r[2], i[2], r[3], i[3], wA[0], wA[1])
	butterflyDITGo(r[0], i[0], r[2], i[2], wB[0], wB[1])
	butterflyDITGo(r[1], i[1], r[3], i[3], wC[0], wC[1])
}

// butterflyDIFGo is ButterflyDIF's reference loop.
func butterflyDIFGo(ar, ai, br, bi []float64, wr, wi float64) {
	n := len(ar)
	ai, br, bi = ai[:n], br[:n], bi[:n]
	for j := range ar {
		xr, xi := ar[j], ai[j]
		yr, yi := br[j], bi[j]
		ar[j], ai[j] = xr+yr, xi+yi
		dr, di := xr-yr, xi-yi
		br[j] = dr*wr - di*wi
		bi[j] = dr*wi + di*wr
	}
}

// butterflyDITGo is ButterflyDIT's reference loop.
func butterflyDITGo(ar, ai, br, bi []float64, wr, wi float64) {
	n := len(ar)
	ai, br, bi = ai[:n], br[:n], bi[:n]
	for j := range ar {
		yr, yi := br[j], bi[j]
		tr := yr*wr + yi*wi
		ti := yi*wr - yr*wi
		xr, xi := ar[j], ai[j]
		ar[j], ai[j] = xr+tr, xi+ti
		br[j], bi[j] = xr-tr, xi-ti
	}
}

// FIRSym adds to acc[j], j < len(acc), the symmetric filter
//
//	taps[0] f[j] + sum over 1 <= e < len(taps) of taps[e] (f[j+e] + f[j-e])
//
// where f = fp[len(taps)-1:]: fp carries len(taps)-1 entries of padding
// on each side of the len(acc) it filters.
func FIRSym(acc, fp, taps []float64) {
	if len(taps) < 1 || len(fp) < len(acc)+2*(len(taps)-1) {
		panic(fmt.Sprintf("asm: FIRSym with %d taps of %d entries padded to %d", len(taps), len(acc), len(fp)))
	}
	firSym(acc, fp, taps)
}

// firSymGo is FIRSym's reference loop.
func firSymGo(acc, fp, taps []float64) {
	pad := len(taps) - 1
	for j := range acc {
		s := taps[0] * fp[j+pad]
		for e := 1; e <= pad; e++ {
			s += taps[e] * (fp[j+pad+e] + fp[j+pad-e])
		}
		acc[j] += s
	}
}
