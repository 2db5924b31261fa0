package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// islandVec is a hotspot-like distribution with a deserted block: a few
// Gaussian bumps plus a thin background, zero on a rectangle covering a
// quarter of the grid (the situation of the island transform, where
// entries of K v inside the block are tiny against the largest).
func islandVec(rng *rand.Rand, R, C int) []float64 {
	v := make([]float64, R*C)
	type bump struct{ r, c, s, w float64 }
	var bumps []bump
	for range 4 {
		bumps = append(bumps, bump{rng.Float64() * float64(R), rng.Float64() * float64(C), 1 + rng.Float64()*float64(max(R, C))/8, rng.ExpFloat64()})
	}
	for i := range v {
		r, c := float64(i/C), float64(i%C)
		x := 1e-4
		for _, b := range bumps {
			x += b.w * math.Exp(-((r-b.r)*(r-b.r)+(c-b.c)*(c-b.c))/(2*b.s*b.s))
		}
		if i/C < R/2 && i%C < C/2 {
			x = 0 // the deserted block
		}
		v[i] = x
	}
	return v
}

// kprodVectors returns the inputs of the product tests: uniform noise, the
// island, a point mass in a corner, a few scattered masses, and entries
// spread over 300 orders of magnitude.
func kprodVectors(rng *rand.Rand, R, C int) map[string][]float64 {
	m := R * C
	spike := make([]float64, m)
	spike[0] = 1
	sparse := make([]float64, m)
	for range 5 {
		sparse[rng.IntN(m)] = rng.Float64()
	}
	wide := make([]float64, m)
	for i := range wide {
		wide[i] = math.Exp(-700 * rng.Float64())
	}
	return map[string][]float64{
		"random": randVec(rng, m), "island": islandVec(rng, R, C),
		"spike": spike, "sparse": sparse, "wide": wide,
	}
}

// TestKProdMatchesDirect: every entry of the certified product equals the
// direct product (the stencil's, all terms non-negative, exact to
// rounding) within 1e-9 relative, including exact zeros, for beta from
// 0.01 to 50, through each way prod can start (full FFT first, near/far
// split at a small and at a large radius), on grids up to 128 x 128. It
// also checks that every path of prod was taken somewhere.
func TestKProdMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	sizes := [][2]int{{32, 32}, {33, 47}, {64, 64}, {128, 128}}
	if testing.Short() {
		sizes = sizes[:3]
	}
	var total kprodStats
	for _, sz := range sizes {
		R, C := sz[0], sz[1]
		for _, beta := range []float64{0.01, 0.1, 0.5, 1, 3, 10, 50} {
			kp := newKProd(R, C, beta, false)
			if !kp.useFFT {
				t.Fatalf("%dx%d: below the FFT threshold", R, C)
			}
			direct := make([]float64, R*C)
			sc := make([]float64, kp.st.scratchLen())
			for name, v := range kprodVectors(rng, R, C) {
				kp.st.prod(direct, v, sc)
				for _, start := range []kprodSite{{}, {near: true, rho: 1}, {near: true, rho: 9}} {
					site := start
					var w kprodWork
					got := make([]float64, R*C)
					for pass := range 2 { // the second pass starts as the first adapted
						kp.prod(got, v, &w, &site)
						for x, want := range direct {
							if d := math.Abs(got[x] - want); !(d <= 1e-9*want) {
								t.Fatalf("%dx%d beta=%v %s start %+v pass %d: entry %d = %v, direct %v (rel %.3g)",
									R, C, beta, name, start, pass, x, got[x], want, d/want)
							}
						}
					}
					total.full += w.stats.full
					total.nearOnly += w.stats.nearOnly
					total.nearFar += w.stats.nearFar
					total.exact += w.stats.exact
					total.sparse += w.stats.sparse
				}
			}
		}
	}
	t.Logf("entries certified by the full FFT %d, near sums alone %d, near+far %d, exact sums %d; sparse products %d",
		total.full, total.nearOnly, total.nearFar, total.exact, total.sparse)
	if total.full == 0 || total.nearOnly == 0 || total.nearFar == 0 || total.exact == 0 || total.sparse == 0 {
		t.Errorf("some path of kprod.prod was never taken: %+v", total)
	}
}

// TestFFTErrBound: the FFT product's error, against the direct product, is
// within errBound for the full kernel and for far kernels, on inputs from
// uniform to spikes and 300 orders of magnitude; the log shows how much
// room the bound leaves.
func TestFFTErrBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	worst := 0.0
	for _, sz := range [][2]int{{8, 8}, {17, 31}, {40, 36}} {
		R, C := sz[0], sz[1]
		for _, beta := range []float64{0.05, 1, 8} {
			st := newStencil(R, C, beta, false)
			for _, rho := range []int{-1, 2, 6} {
				kern := func(dr, dc int) float64 {
					if max(dr, dc) <= rho {
						return 0
					}
					return st.at(dr, dc)
				}
				f := newFFTConv(R, C, kern)
				sc := make([]float64, f.scratchLen())
				for name, v := range kprodVectors(rng, R, C) {
					got := make([]float64, R*C)
					f.prod(got, v, sc)
					n1, n2 := 0.0, 0.0
					for _, x := range v {
						n1 += x
						n2 += x * x
					}
					e := f.errBound(n1*(1+1e-12), math.Sqrt(n2)*(1+1e-12))
					for x := range got {
						// The reference: every term summed directly.
						rx, cx := x/C, x%C
						want := 0.0
						for y, vy := range v {
							if vy != 0 {
								want += kern(abs(y/C-rx), abs(y%C-cx)) * vy
							}
						}
						d := math.Abs(got[x] - want)
						if d > e {
							t.Fatalf("%dx%d beta=%v rho=%d %s: entry %d error %.3g above the bound %.3g", R, C, beta, rho, name, x, d, e)
						}
						if e > 0 {
							worst = max(worst, d/e)
						}
					}
				}
			}
		}
	}
	t.Logf("largest error / bound: %.3g", worst)
}

// TestKProdLogMatchesDirect: the windowed log-domain product of large grids
// equals the stencil's O(m^2) one.
func TestKProdLogMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	R, C := 40, 36
	for _, beta := range []float64{0.5, 5, 60} {
		kp := newKProd(R, C, beta, true)
		for name, v := range kprodVectors(rng, R, C) {
			a := make([]float64, len(v))
			for i, x := range v {
				a[i] = log(x) // -Inf for zeros
			}
			want, got := make([]float64, len(v)), make([]float64, len(v))
			kp.st.lprod(want, a, make([]float64, C))
			kp.lprod(got, a, make([]float64, C))
			for x := range want {
				if want[x] == math.Inf(-1) && got[x] == want[x] {
					continue
				}
				if math.Abs(got[x]-want[x]) > 1e-9 {
					t.Fatalf("beta=%v %s: entry %d: ln %v, direct %v", beta, name, x, got[x], want[x])
				}
			}
		}
	}
}

// TestPrunedMaxima: the pruned maxima of large grids (BA's change between
// channels, the tight epsilon's ratio) equal the full scans exactly.
func TestPrunedMaxima(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	R, C := 36, 40
	m := R * C
	for _, beta := range []float64{0.05, 1, 7} {
		kp := newKProd(R, C, beta, true)
		c, cp := islandVec(rng, R, C), randVec(rng, m)
		iz, izp := randVec(rng, m), randVec(rng, m)
		for _, uni := range []bool{true, false} {
			want := kp.st.maxChange(c, iz, cp, izp, uni)
			if got := kp.maxChange(c, iz, cp, izp, uni); got != want {
				t.Errorf("beta=%v uniform=%v: pruned change %v, full %v", beta, uni, got, want)
			}
			lc, lz, lcp, lzp := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
			for i := range lc {
				lc[i], lz[i], lcp[i], lzp[i] = log(c[i]+1e-300), -log(iz[i]), log(cp[i]), -log(izp[i])
			}
			want = kp.st.maxChangeLog(lc, lz, lcp, lzp, uni)
			if got := kp.maxChangeLog(lc, lz, lcp, lzp, uni); got != want {
				t.Errorf("beta=%v uniform=%v: pruned log change %v, full %v", beta, uni, got, want)
			}
		}
	}
	g, _ := NewGrid(R, C)
	for name, v := range kprodVectors(rng, R, C) {
		l := make([]float64, m)
		for i, x := range v {
			l[i] = math.Log(x + 1e-200)
		}
		// A smooth field too, whose best pairs are not neighbours.
		if name == "random" {
			for i := range l {
				l[i] = math.Sin(float64(i/C)/7) * math.Cos(float64(i%C)/5)
			}
		}
		want := maxLogRatio(g, invDistTable(g), l)
		if got := maxLogRatioFast(g, l); got != want {
			t.Errorf("%s: pruned log ratio %v, full %v", name, got, want)
		}
	}
}

// TestKProdZero: a zero input gives a zero product.
func TestKProdZero(t *testing.T) {
	kp := newKProd(40, 40, 1, false)
	got := randVec(rand.New(rand.NewPCG(1, 1)), 1600)
	var w kprodWork
	var site kprodSite
	kp.prod(got, make([]float64, 1600), &w, &site)
	for x, v := range got {
		if v != 0 {
			t.Fatalf("entry %d = %v", x, v)
		}
	}
}

// BenchmarkKProd: one certified product on the hotspot-like island input
// (after the call site has adapted), against the direct product; the
// constants of kprod's cost model come from here.
func BenchmarkKProd(b *testing.B) {
	for _, side := range []int{32, 64, 128, 256} {
		rng := rand.New(rand.NewPCG(1, 2))
		v := islandVec(rng, side, side)
		dst := make([]float64, side*side)
		kp := newKProd(side, side, 1, false)
		b.Run(fmt.Sprintf("fast/%d", side), func(b *testing.B) {
			var w kprodWork
			var site kprodSite
			kp.prod(dst, v, &w, &site)
			defer startCPU().report(b)
			for b.Loop() {
				kp.prod(dst, v, &w, &site)
			}
		})
		if side <= 128 {
			b.Run(fmt.Sprintf("direct/%d", side), func(b *testing.B) {
				sc := make([]float64, kp.st.scratchLen())
				defer startCPU().report(b)
				for b.Loop() {
					kp.st.prod(dst, v, sc)
				}
			})
		}
	}
}

// TestWindowAll: the filtered window sums of every cell equal the window
// sums of single cells.
func TestWindowAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	var scratch []float64
	for _, sz := range [][2]int{{1, 1}, {3, 17}, {20, 9}, {33, 40}} {
		R, C := sz[0], sz[1]
		st := newStencil(R, C, 0.7, false)
		v := randVec(rng, R*C)
		got := make([]float64, R*C)
		for _, rho := range []int{1, 2, 5, 16, 50} {
			st.windowAll(got, v, rho, &scratch)
			for x := range got {
				if want := st.windowSum(x, rho, v); math.Abs(got[x]-want) > 1e-13*want {
					t.Fatalf("%dx%d rho=%d: cell %d: %v, window sum %v", R, C, rho, x, got[x], want)
				}
			}
		}
	}
}

// TestCertifiedMaxLogRatio: from values perturbed within the certified
// tolerance, the certified maximum equals the exact maximum of the exact
// values, also with near-ties everywhere (a symmetric field) and a field
// whose best pairs are far apart.
func TestCertifiedMaxLogRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	g, _ := NewGrid(37, 41)
	m := g.Len()
	fields := map[string]func(r, c int) float64{
		"random":    func(r, c int) float64 { return rng.NormFloat64() },
		"smooth":    func(r, c int) float64 { return math.Sin(float64(r)/6) + math.Cos(float64(c)/9) },
		"symmetric": func(r, c int) float64 { return 0.3 * math.Hypot(float64(r-18), float64(c-20)) },
	}
	for name, f := range fields {
		exact := make([]float64, m)
		for x := range exact {
			exact[x] = f(x/g.Cols, x%g.Cols)
		}
		noisy := make([]float64, m)
		for x, v := range exact {
			noisy[x] = v + (2*rng.Float64()-1)*certTol
		}
		want := maxLogRatio(g, invDistTable(g), exact)
		got := certifiedMaxLogRatio(g, noisy, func(x int) float64 { return exact[x] }, func() []float64 { return exact })
		if got != want {
			t.Errorf("%s: certified maximum %v, exact %v", name, got, want)
		}
	}
}
