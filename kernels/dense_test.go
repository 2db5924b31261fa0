package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestDensePassBLAS(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	m, n := 13, 21
	p, r := randVec(rng, m*n), randVec(rng, n)
	w0, d0 := randVec(rng, m), randVec(rng, n)
	for _, mode := range []int{passDot, passAxpy, passUpdate, passFused} {
		wb, db := append([]float64(nil), w0...), append([]float64(nil), d0...)
		wg, dg := append([]float64(nil), w0...), append([]float64(nil), d0...)
		densePassBLAS(p, m, n, r, db, wb, make([]float64, m), mode)
		densePassGo(p, m, n, r, dg, wg, mode)
		if d := max(maxRelDiff(wb, wg), maxRelDiff(db, dg)); d > 1e-14 {
			t.Errorf("mode %d: BLAS and Go passes differ by %.3g", mode, d)
		}
	}
}

// BenchmarkDensePass compares one fused IBU pass over a 384 x 384 channel
// (the SF size) done by the portable Go loops, by gonum's BLAS and by the
// AVX2 kernel.
func BenchmarkDensePass(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range []int{165, 384} {
		p, r := randVec(rng, m*m), randVec(rng, m)
		w, den, s := randVec(rng, m), make([]float64, m), make([]float64, m)
		b.Run(fmt.Sprintf("%d/go", m), func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				densePassGo(p, m, m, r, den, w, passFused)
			}
		})
		b.Run(fmt.Sprintf("%d/blas", m), func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				densePassBLAS(p, m, m, r, den, w, s, passFused)
			}
		})
		if hasAVX2FMA {
			b.Run(fmt.Sprintf("%d/avx2", m), func(b *testing.B) {
				defer startCPU().report(b)
				for b.Loop() {
					densePassAVX2(p, m, m, r, den, w, passFused)
				}
			})
		}
	}
}
