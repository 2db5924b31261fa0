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
