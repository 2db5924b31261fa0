package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// denseK is the kernel matrix exp(-beta d) written out from the definition.
func denseK(g Grid, beta float64) []float64 {
	m := g.Len()
	k := make([]float64, m*m)
	for x := 0; x < m; x++ {
		for y := 0; y < m; y++ {
			k[x*m+y] = math.Exp(-beta * Dist(g, x, g, y))
		}
	}
	return k
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.Float64()
	}
	return v
}

// TestStencilProd checks the stencil product (with the assembly blocks
// where the CPU has them, the Go loops otherwise; package asm tests both) against
// the dense matrix-vector product on grids whose sizes hit every padding case.
func TestStencilProd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{1, 1}, {1, 9}, {7, 1}, {3, 5}, {4, 8}, {5, 17}, {11, 15}, {16, 24}, {9, 33}} {
		for _, beta := range []float64{0.05, 1, 7} {
			g, _ := NewGrid(sz[0], sz[1])
			m := g.Len()
			k := denseK(g, beta)
			v := randVec(rng, m)
			want := make([]float64, m)
			for x := 0; x < m; x++ {
				for y := 0; y < m; y++ {
					want[x] += k[x*m+y] * v[y]
				}
			}
			st := newStencil(g.Rows, g.Cols, beta, false)
			got := make([]float64, m)
			st.prod(got, v, make([]float64, st.scratchLen()))
			for x := range got {
				if math.Abs(got[x]-want[x]) > 1e-13*want[x] {
					t.Fatalf("%v beta=%v: (Kv)[%d] = %v, want %v", g, beta, x, got[x], want[x])
				}
			}
		}
	}
}

func TestStencilLogProd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {3, 5}, {6, 4}} {
		g, _ := NewGrid(sz[0], sz[1])
		m := g.Len()
		beta := 2.5
		a := make([]float64, m)
		for i := range a {
			a[i] = -50 * rng.Float64()
		}
		a[0] = math.Inf(-1) // a zero weight
		st := newStencil(g.Rows, g.Cols, beta, true)
		got := make([]float64, m)
		st.lprod(got, a, make([]float64, g.Cols))
		for x := 0; x < m; x++ {
			s := 0.0
			for y := 0; y < m; y++ {
				s += math.Exp(a[y] - beta*Dist(g, x, g, y))
			}
			if want := math.Log(s); math.Abs(got[x]-want) > 1e-12*math.Abs(want) {
				t.Fatalf("%v: lprod[%d] = %v, want %v", g, x, got[x], want)
			}
		}
	}
}

func BenchmarkStencilProd(b *testing.B) {
	for _, sz := range [][2]int{{11, 15}, {16, 24}} {
		g, _ := NewGrid(sz[0], sz[1])
		st := newStencil(g.Rows, g.Cols, 1, false)
		v := randVec(rand.New(rand.NewPCG(1, 1)), g.Len())
		dst := make([]float64, g.Len())
		scratch := make([]float64, st.scratchLen())
		b.Run(fmt.Sprintf("%v/fold", g), func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				st.prod(dst, v, scratch)
			}
		})
	}
}
