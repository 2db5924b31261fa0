//go:build !amd64 || purego

package kernels

func butterflyDIF(ar, ai, br, bi []float64, wr, wi float64) {
	butterflyDIFGo(ar, ai, br, bi, wr, wi)
}

func butterflyDIT(ar, ai, br, bi []float64, wr, wi float64) {
	butterflyDITGo(ar, ai, br, bi, wr, wi)
}

func firSym(acc, fp, taps []float64) { firSymGo(acc, fp, taps) }

func butterfly4DIF(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	butterfly4DIFGo(re, im, o, n, wA, wB, wC)
}

func butterfly4DIT(re, im []float64, o [4]int, n int, wA, wB, wC [2]float64) {
	butterfly4DITGo(re, im, o, n, wA, wB, wC)
}
