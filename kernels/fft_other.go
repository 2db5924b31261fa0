//go:build !amd64 || purego

package kernels

func butterflyDIF(ar, ai, br, bi []float64, wr, wi float64) {
	butterflyDIFGo(ar, ai, br, bi, wr, wi)
}

func butterflyDIT(ar, ai, br, bi []float64, wr, wi float64) {
	butterflyDITGo(ar, ai, br, bi, wr, wi)
}
