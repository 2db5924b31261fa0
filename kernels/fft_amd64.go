//go:build amd64 && !purego

package kernels

// butterflyDIF4 and butterflyDIT4 are butterflyDIFGo and butterflyDITGo on
// n entries (a multiple of 4), in fft_amd64.s with AVX2 and FMA; callers
// must check hasAVX2FMA.
//
//go:noescape
func butterflyDIF4(ar, ai, br, bi *float64, n int, wr, wi float64)

//go:noescape
func butterflyDIT4(ar, ai, br, bi *float64, n int, wr, wi float64)

// butterflyDIF is the decimation-in-frequency butterfly on vectors with one
// twiddle factor w: a' = a + b, b' = (a - b) w. len(ar) is a multiple of 4.
func butterflyDIF(ar, ai, br, bi []float64, wr, wi float64) {
	if !hasAVX2FMA {
		butterflyDIFGo(ar, ai, br, bi, wr, wi)
		return
	}
	n := len(ar)
	_, _, _ = ai[n-1], br[n-1], bi[n-1]
	butterflyDIF4(&ar[0], &ai[0], &br[0], &bi[0], n, wr, wi)
}

// butterflyDIT is the decimation-in-time inverse butterfly: t = conj(w) b,
// a' = a + t, b' = a - t. len(ar) is a multiple of 4.
func butterflyDIT(ar, ai, br, bi []float64, wr, wi float64) {
	if !hasAVX2FMA {
		butterflyDITGo(ar, ai, br, bi, wr, wi)
		return
	}
	n := len(ar)
	_, _, _ = ai[n-1], br[n-1], bi[n-1]
	butterflyDIT4(&ar[0], &ai[0], &br[0], &bi[0], n, wr, wi)
}

// firSym8 is firSymGo on n outputs (a multiple of 8), in fft_amd64.s with
// AVX2 and FMA; callers must check hasAVX2FMA.
//
//go:noescape
func firSym8(acc, f *float64, n int, taps *float64, ntaps int)

// firSym adds to acc[j], j < len(acc), the symmetric filter
// taps[0] f[j] + sum_{e >= 1} taps[e] (f[j+e] + f[j-e]), where f is given
// with len(taps)-1 entries of padding on each side (f[j] is fp[j+pad]).
// len(acc) is a multiple of 8 and fp has len(acc) + 2 pad entries.
func firSym(acc, fp, taps []float64) {
	pad := len(taps) - 1
	if !hasAVX2FMA {
		firSymGo(acc, fp, taps)
		return
	}
	n := len(acc)
	_ = fp[n+2*pad-1]
	firSym8(&acc[0], &fp[pad], n, &taps[0], len(taps))
}

// radix4DIF and radix4DIT fuse two butterfly stages (see fft_amd64.s):
// bit for bit two calls of butterflyDIF4 or butterflyDIT4 each.
//
//go:noescape
func radix4DIF(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i *float64, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)

//go:noescape
func radix4DIT(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i *float64, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)

// butterfly4DIF is radix4DIF on slices (len a multiple of 4): rows x0..x3
// are re[o[k]:o[k]+n] and im[o[k]:o[k]+n].
func butterfly4DIF(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	if !hasAVX2FMA {
		butterfly4DIFGo(re, im, o, n, wA, wB, wC)
		return
	}
	_, _ = re[o[3]+n-1], im[o[3]+n-1]
	_, _, _ = re[o[0]], re[o[1]], re[o[2]]
	radix4DIF(&re[o[0]], &im[o[0]], &re[o[1]], &im[o[1]], &re[o[2]], &im[o[2]], &re[o[3]], &im[o[3]], n,
		wA[0], wA[1], wB[0], wB[1], wC[0], wC[1])
}

// butterfly4DIT is radix4DIT on slices, like butterfly4DIF.
func butterfly4DIT(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	if !hasAVX2FMA {
		butterfly4DITGo(re, im, o, n, wA, wB, wC)
		return
	}
	_, _ = re[o[3]+n-1], im[o[3]+n-1]
	_, _, _ = re[o[0]], re[o[1]], re[o[2]]
	radix4DIT(&re[o[0]], &im[o[0]], &re[o[1]], &im[o[1]], &re[o[2]], &im[o[2]], &re[o[3]], &im[o[3]], n,
		wA[0], wA[1], wB[0], wB[1], wC[0], wC[1])
}
