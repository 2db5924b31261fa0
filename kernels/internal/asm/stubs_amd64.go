//go:build !purego

package asm

import "golang.org/x/sys/cpu"

// useAVX2FMA reports whether the CPU and OS support the AVX2 and FMA
// instructions of the assembly (x/sys/cpu checks that the OS saves the
// YMM state). Set once at start-up, never written afterwards.
var useAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// The assembly routines (*_amd64.s); each is documented there and by its
// exported entry point.

//go:noescape
func ibuRows4AVX(c []float64, n int, r, den, w []float64, mode int)

//go:noescape
func rowStatsAVX(p []float64) (sum, minv float64)

//go:noescape
func stencilFold4x8AVX(out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int)

//go:noescape
func stencilFold4x12AVX(out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int)

//go:noescape
func foldRowAVX(u, v []float64, cq, nd int)

//go:noescape
func butterflyDIFAVX(ar, ai, br, bi []float64, wr, wi float64)

//go:noescape
func butterflyDITAVX(ar, ai, br, bi []float64, wr, wi float64)

//go:noescape
func firSymAVX(acc, fp, taps []float64)

//go:noescape
func radix4DIFAVX(re, im []float64, o0, o1, o2, o3, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)

//go:noescape
func radix4DITAVX(re, im []float64, o0, o1, o2, o3, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)

func densePass(p []float64, m, n int, r, den, w, tmp []float64, mode int) {
	if !useAVX2FMA {
		densePassBLAS(p, m, n, r, den, w, tmp, mode)
		return
	}
	x := 0
	for ; x+4 <= m; x += 4 {
		ibuRows4AVX(p[x*n:(x+4)*n], n, r, den, w[x:x+4], mode)
	}
	if x < m {
		densePassGo(p[x*n:], m-x, n, r, den, w[x:], mode)
	}
}

func rowStats(p []float64) (sum, minv float64) {
	if useAVX2FMA {
		return rowStatsAVX(p)
	}
	return rowStatsGo(p)
}

func stencilFold(width int, out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int) {
	switch {
	case !useAVX2FMA:
		stencilFoldGo(width, out, outStride, u, ustride, nd, c, t, ts, upad)
	case width == 8:
		stencilFold4x8AVX(out, outStride, u, ustride, nd, c, t, ts, upad)
	default:
		stencilFold4x12AVX(out, outStride, u, ustride, nd, c, t, ts, upad)
	}
}

func foldRow(u, v []float64, cq, nd int) {
	if useAVX2FMA {
		foldRowAVX(u, v, cq, nd)
		return
	}
	foldRowGo(u, v, cq, nd)
}

func butterflyDIF(ar, ai, br, bi []float64, wr, wi float64) {
	if useAVX2FMA && len(ar)%4 == 0 {
		butterflyDIFAVX(ar, ai, br, bi, wr, wi)
		return
	}
	butterflyDIFGo(ar, ai, br, bi, wr, wi)
}

func butterflyDIT(ar, ai, br, bi []float64, wr, wi float64) {
	if useAVX2FMA && len(ar)%4 == 0 {
		butterflyDITAVX(ar, ai, br, bi, wr, wi)
		return
	}
	butterflyDITGo(ar, ai, br, bi, wr, wi)
}

func butterfly4DIF(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	if useAVX2FMA && n%4 == 0 {
		radix4DIFAVX(re, im, o[0], o[1], o[2], o[3], n, wA[0], wA[1], wB[0], wB[1], wC[0], wC[1])
		return
	}
	butterfly4DIFGo(re, im, o, n, wA, wB, wC)
}

func butterfly4DIT(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	if useAVX2FMA && n%4 == 0 {
		radix4DITAVX(re, im, o[0], o[1], o[2], o[3], n, wA[0], wA[1], wB[0], wB[1], wC[0], wC[1])
		return
	}
	butterfly4DITGo(re, im, o, n, wA, wB, wC)
}

func firSym(acc, fp, taps []float64) {
	if useAVX2FMA && len(acc)%8 == 0 {
		firSymAVX(acc, fp, taps)
		return
	}
	firSymGo(acc, fp, taps)
}
