package asm

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.Float64()*2 - 1
	}
	return s
}

func near(a, b, scale float64) bool { return math.Abs(a-b) <= 1e-13*max(1, scale) }

// TestStencilFold checks the block against its definition, summed
// independently, for both widths and ragged strides.
func TestStencilFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{8, 12} {
		for _, tc := range []struct{ nd, c, upad, ts int }{{1, 1, 0, 20}, {3, 5, 3, 24}, {7, 13, 3, 40}, {2, 16, 0, 36}} {
			ustride := tc.nd * (tc.c + tc.upad)
			u := randSlice(rng, 4*ustride)
			tab := randSlice(rng, tc.c+(tc.nd-1)*tc.ts+width)
			out := make([]float64, 3*(width+3)+width)
			StencilFold(width, out, width+3, u, ustride, tc.nd, tc.c, tab, tc.ts, tc.upad)
			for i := range 4 {
				for j := range width {
					want := 0.0
					for d := range tc.nd {
						for cy := range tc.c {
							want += u[i*ustride+d*(tc.c+tc.upad)+cy] * tab[tc.c-1-cy+d*tc.ts+j]
						}
					}
					if got := out[i*(width+3)+j]; !near(got, want, float64(tc.nd*tc.c)) {
						t.Errorf("width %d %+v: out[%d,%d] = %v, want %v", width, tc, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestFoldRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ cq, nd int }{{4, 1}, {4, 3}, {8, 2}, {12, 5}, {20, 4}} {
		v := randSlice(rng, (2*tc.nd-1)*tc.cq)
		u := make([]float64, tc.nd*tc.cq)
		FoldRow(u, v, tc.cq, tc.nd)
		mid := tc.nd - 1
		for d := range tc.nd {
			for k := range tc.cq {
				want := v[(mid-d)*tc.cq+k] + v[(mid+d)*tc.cq+k]
				if d == 0 {
					want = v[mid*tc.cq+k]
				}
				if u[d*tc.cq+k] != want {
					t.Fatalf("%+v: u[%d,%d] = %v, want %v", tc, d, k, u[d*tc.cq+k], want)
				}
			}
		}
	}
}

func TestDensePassAndRowStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, mode := range []int{PassDot, PassAxpy, PassDot | PassScale, PassDot | PassScale | PassAxpy} {
		for _, sz := range [][2]int{{1, 1}, {4, 7}, {9, 16}, {13, 33}} {
			m, n := sz[0], sz[1]
			p, r := randSlice(rng, m*n), randSlice(rng, n)
			w0, den0 := randSlice(rng, m), randSlice(rng, n)
			w, den := append([]float64(nil), w0...), append([]float64(nil), den0...)
			DensePass(p, m, n, r, den, w, make([]float64, m), mode)
			wantW, wantDen := append([]float64(nil), w0...), append([]float64(nil), den0...)
			for x := range m {
				if mode&PassDot != 0 {
					s := 0.0
					for j := range n {
						s += p[x*n+j] * r[j]
					}
					if mode&PassScale != 0 {
						wantW[x] *= s
					} else {
						wantW[x] = s
					}
				}
			}
			if mode&PassAxpy != 0 {
				for x := range m {
					for j := range n {
						wantDen[j] += wantW[x] * p[x*n+j]
					}
				}
			}
			for x := range m {
				if !near(w[x], wantW[x], float64(n)) {
					t.Errorf("mode %d %dx%d: w[%d] = %v, want %v", mode, m, n, x, w[x], wantW[x])
				}
			}
			for j := range n {
				if !near(den[j], wantDen[j], float64(m*n)) {
					t.Errorf("mode %d %dx%d: den[%d] = %v, want %v", mode, m, n, j, den[j], wantDen[j])
				}
			}
		}
	}
	for _, n := range []int{1, 3, 4, 8, 11, 17} {
		p := randSlice(rng, n)
		s, mn := RowStats(p)
		ws, wm := 0.0, p[0]
		for _, v := range p {
			ws += v
			wm = min(wm, v)
		}
		if !near(s, ws, float64(n)) || mn != wm {
			t.Errorf("RowStats of %d: (%v, %v), want (%v, %v)", n, s, mn, ws, wm)
		}
		p[n/2] = math.NaN()
		if s, _ := RowStats(p); !math.IsNaN(s) {
			t.Errorf("RowStats with a NaN: sum %v", s)
		}
	}
}

// TestButterflies checks the butterflies against complex arithmetic and
// the fused stages against the butterflies they fuse.
func TestButterflies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 3, 4, 8, 12, 20} {
		ar, ai, br, bi := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
		w := cmplx.Rect(1, rng.Float64()*6)
		for _, dif := range []bool{true, false} {
			xr, xi, yr, yi := append([]float64(nil), ar...), append([]float64(nil), ai...), append([]float64(nil), br...), append([]float64(nil), bi...)
			if dif {
				ButterflyDIF(xr, xi, yr, yi, real(w), imag(w))
			} else {
				ButterflyDIT(xr, xi, yr, yi, real(w), imag(w))
			}
			for j := range n {
				a, b := complex(ar[j], ai[j]), complex(br[j], bi[j])
				wa, wb := a+b, (a-b)*w
				if !dif {
					tt := cmplx.Conj(w) * b
					wa, wb = a+tt, a-tt
				}
				if cmplx.Abs(complex(xr[j], xi[j])-wa) > 1e-14 || cmplx.Abs(complex(yr[j], yi[j])-wb) > 1e-14 {
					t.Errorf("dif %v n %d: j %d gives %v, %v; want %v, %v", dif, n, j, complex(xr[j], xi[j]), complex(yr[j], yi[j]), wa, wb)
				}
			}
		}
	}
}

func TestFIRSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct{ n, taps int }{{1, 1}, {8, 1}, {8, 4}, {16, 9}, {13, 3}} {
		pad := tc.taps - 1
		fp, taps := randSlice(rng, tc.n+2*pad), randSlice(rng, tc.taps)
		acc0 := randSlice(rng, tc.n)
		acc := append([]float64(nil), acc0...)
		FIRSym(acc, fp, taps)
		for j := range tc.n {
			want := acc0[j] + taps[0]*fp[j+pad]
			for e := 1; e < tc.taps; e++ {
				want += taps[e] * (fp[j+pad+e] + fp[j+pad-e])
			}
			if !near(acc[j], want, float64(tc.taps)) {
				t.Errorf("%+v: acc[%d] = %v, want %v", tc, j, acc[j], want)
			}
		}
	}
}

// TestEntryPointsRefuseShortSlices: a slice too short for the extents
// asked for panics before any memory is touched.
func TestEntryPointsRefuseShortSlices(t *testing.T) {
	for name, f := range map[string]func(){
		"StencilFold": func() {
			StencilFold(8, make([]float64, 10), 8, make([]float64, 100), 10, 2, 3, make([]float64, 100), 20, 0)
		},
		"StencilFold9": func() {
			StencilFold(9, make([]float64, 100), 9, make([]float64, 100), 10, 2, 3, make([]float64, 100), 20, 0)
		},
		"FoldRow": func() { FoldRow(make([]float64, 8), make([]float64, 8), 4, 2) },
		"DensePass": func() {
			DensePass(make([]float64, 5), 2, 3, make([]float64, 3), make([]float64, 3), make([]float64, 2), nil, PassDot)
		},
		"RowStats": func() { RowStats(nil) },
		"ButterflyDIF": func() {
			ButterflyDIF(make([]float64, 4), make([]float64, 4), make([]float64, 3), make([]float64, 4), 1, 0)
		},
		"Butterfly4": func() {
			Butterfly4DIT(make([]float64, 8), make([]float64, 8), [4]int{0, 2, 4, 6}, 4, [2]float64{}, [2]float64{}, [2]float64{})
		},
		"FIRSym": func() { FIRSym(make([]float64, 8), make([]float64, 9), make([]float64, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on a short slice", name)
				}
			}()
			f()
		}()
	}
}

// TestButterfly4IsFourButterflies: a fused radix-4 pass equals the two
// radix-2 stages it replaces bit for bit (so the error analysis of radix 2
// covers it), in the assembly as in the Go loops.
func TestButterfly4IsFourButterflies(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for _, n := range []int{4, 12, 7} {
		for _, dif := range []bool{true, false} {
			re, im := randSlice(rng, 4*n), randSlice(rng, 4*n)
			re2, im2 := append([]float64(nil), re...), append([]float64(nil), im...)
			var w [3][2]float64
			for i := range w {
				w[i][1], w[i][0] = math.Sincos(rng.Float64() * 2 * math.Pi)
			}
			o := [4]int{0, n, 2 * n, 3 * n}
			row := func(p []float64, k int) []float64 { return p[k*n : (k+1)*n] }
			if dif {
				Butterfly4DIF(re, im, o, n, w[0], w[1], w[2])
				ButterflyDIF(row(re2, 0), row(im2, 0), row(re2, 2), row(im2, 2), w[0][0], w[0][1])
				ButterflyDIF(row(re2, 1), row(im2, 1), row(re2, 3), row(im2, 3), w[1][0], w[1][1])
				ButterflyDIF(row(re2, 0), row(im2, 0), row(re2, 1), row(im2, 1), w[2][0], w[2][1])
				ButterflyDIF(row(re2, 2), row(im2, 2), row(re2, 3), row(im2, 3), w[2][0], w[2][1])
			} else {
				Butterfly4DIT(re, im, o, n, w[0], w[1], w[2])
				ButterflyDIT(row(re2, 0), row(im2, 0), row(re2, 1), row(im2, 1), w[0][0], w[0][1])
				ButterflyDIT(row(re2, 2), row(im2, 2), row(re2, 3), row(im2, 3), w[0][0], w[0][1])
				ButterflyDIT(row(re2, 0), row(im2, 0), row(re2, 2), row(im2, 2), w[1][0], w[1][1])
				ButterflyDIT(row(re2, 1), row(im2, 1), row(re2, 3), row(im2, 3), w[2][0], w[2][1])
			}
			for i := range re {
				if re[i] != re2[i] || im[i] != im2[i] {
					t.Fatalf("n=%d dif=%v: entry %d: (%v, %v) fused, (%v, %v) in two stages", n, dif, i, re[i], im[i], re2[i], im2[i])
				}
			}
		}
	}
}

// TestDensePassBLAS: the portable pass (gonum's Dgemv) equals the Go loop.
func TestDensePassBLAS(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	m, n := 13, 21
	p, r := randSlice(rng, m*n), randSlice(rng, n)
	w0, d0 := randSlice(rng, m), randSlice(rng, n)
	for _, mode := range []int{PassDot, PassAxpy, PassDot | PassScale, PassDot | PassScale | PassAxpy} {
		wb, db := append([]float64(nil), w0...), append([]float64(nil), d0...)
		wg, dg := append([]float64(nil), w0...), append([]float64(nil), d0...)
		densePassBLAS(p, m, n, r, db, wb, make([]float64, m), mode)
		densePassGo(p, m, n, r, dg, wg, mode)
		for i := range wb {
			if !near(wb[i], wg[i], 100) {
				t.Errorf("mode %d: w[%d] BLAS %v, Go %v", mode, i, wb[i], wg[i])
			}
		}
		for j := range db {
			if !near(db[j], dg[j], 100) {
				t.Errorf("mode %d: den[%d] BLAS %v, Go %v", mode, j, db[j], dg[j])
			}
		}
	}
}

// BenchmarkDensePass: one fused IBU pass over a channel of the Paris and
// SF sizes, by the entry point (assembly where the CPU has it), gonum's
// BLAS and the Go loop.
func BenchmarkDensePass(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range []int{165, 384} {
		p, r := randSlice(rng, m*m), randSlice(rng, m)
		w, den, s := randSlice(rng, m), make([]float64, m), make([]float64, m)
		const mode = PassDot | PassScale | PassAxpy
		for name, f := range map[string]func(){
			"entry": func() { DensePass(p, m, m, r, den, w, s, mode) },
			"blas":  func() { densePassBLAS(p, m, m, r, den, w, s, mode) },
			"go":    func() { densePassGo(p, m, m, r, den, w, mode) },
		} {
			b.Run(fmt.Sprintf("%d/%s", m, name), func(b *testing.B) {
				for b.Loop() {
					f()
				}
			})
		}
	}
}
