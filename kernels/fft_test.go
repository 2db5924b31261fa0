package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestFFTConvMatchesStencil(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {3, 5}, {4, 8}, {5, 17}, {11, 15}, {16, 24}, {9, 33}, {64, 64}} {
		for _, beta := range []float64{0.05, 1, 7} {
			R, C := sz[0], sz[1]
			st := newStencil(R, C, beta, false)
			f := newFFTConv(R, C, func(dr, dc int) float64 { return math.Exp(-beta * math.Hypot(float64(dr), float64(dc))) })
			v := randVec(rng, R*C)
			want := make([]float64, R*C)
			st.prod(want, v, make([]float64, st.scratchLen()))
			got := make([]float64, R*C)
			f.prod(got, v, make([]float64, f.scratchLen()))
			worst := 0.0
			for i := range got {
				worst = max(worst, math.Abs(got[i]-want[i]))
			}
			if mx := maxOf(want); worst > 1e-13*mx {
				t.Errorf("%dx%d beta %v: max abs error %g", R, C, beta, worst)
			}
		}
	}
}

func BenchmarkFFTConv(b *testing.B) {
	for _, side := range []int{32, 64, 100, 128, 256, 1024} {
		f := newFFTConv(side, side, func(dr, dc int) float64 { return math.Exp(-math.Hypot(float64(dr), float64(dc))) })
		v := randVec(rand.New(rand.NewPCG(1, 1)), side*side)
		dst := make([]float64, side*side)
		sc := make([]float64, f.scratchLen())
		b.Run(fmt.Sprint(side), func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				f.prod(dst, v, sc)
			}
		})
	}
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
