//go:build !amd64 || purego

package kernels

// hasAVX2FMA is false where the assembly kernels are not built, so the
// stubs below are never called; they exist only for the type checker.
const hasAVX2FMA = false

func ibuRows4(c *float64, n int, r *float64, den *float64, w *float64, mode int) {
	panic("kernels: ibuRows4 called without assembly support")
}

func rowStats(p *float64, n int) (sum, minv float64) {
	panic("kernels: rowStats called without assembly support")
}

func foldRow(u, center *float64, cq, nd int) {
	panic("kernels: foldRow called without assembly support")
}

func stencilFold4x12(out *float64, outStride int, u *float64, ustride int, nd int, C int, t *float64, ts int, upad int) {
	panic("kernels: stencilFold4x12 called without assembly support")
}

func stencilFold4x8(out *float64, outStride int, u *float64, ustride int, nd int, C int, t *float64, ts int, upad int) {
	panic("kernels: stencilFold4x8 called without assembly support")
}
