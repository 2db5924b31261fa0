//go:build amd64 && !purego

package kernels

// ibuRows4 runs an IBU pass on the four consecutive channel rows c_i (row
// stride n) starting at c, with s_i = <c_i, r> and the mode bits of
// densePass: passDot sets w[i] = s_i (w[i] *= s_i with passScale), then
// passAxpy adds sum_i w[i]*c_i to den. Implemented in
// dense_amd64.s with AVX2 and FMA; callers must check hasAVX2FMA.
//
//go:noescape
func ibuRows4(c *float64, n int, r *float64, den *float64, w *float64, mode int)

// rowStats returns the sum and the minimum of p[0:n], n >= 1.
// Implemented in dense_amd64.s with AVX2; callers must check hasAVX2FMA.
//
//go:noescape
func rowStats(p *float64, n int) (sum, minv float64)
