//go:build !amd64 || purego

package asm

func densePass(p []float64, m, n int, r, den, w, tmp []float64, mode int) {
	densePassBLAS(p, m, n, r, den, w, tmp, mode)
}

func rowStats(p []float64) (sum, minv float64) { return rowStatsGo(p) }

func stencilFold(width int, out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int) {
	stencilFoldGo(width, out, outStride, u, ustride, nd, c, t, ts, upad)
}

func foldRow(u, v []float64, cq, nd int) { foldRowGo(u, v, cq, nd) }

func butterflyDIF(ar, ai, br, bi []float64, wr, wi float64) {
	butterflyDIFGo(ar, ai, br, bi, wr, wi)
}

func butterflyDIT(ar, ai, br, bi []float64, wr, wi float64) {
	butterflyDITGo(ar, ai, br, bi, wr, wi)
}

func butterfly4DIF(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	butterfly4DIFGo(re, im, o, n, wA, wB, wC)
}

func butterfly4DIT(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	butterfly4DITGo(re, im, o, n, wA, wB, wC)
}

func firSym(acc, fp, taps []float64) { firSymGo(acc, fp, taps) }
