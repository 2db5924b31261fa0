//go:build !purego

package asm

import (
	"math/rand/v2"
	"testing"
)

// TestAssemblyAgreesWithGo runs each assembly routine and its Go
// reference on the same inputs (where the CPU has AVX2 and FMA).
func TestAssemblyAgreesWithGo(t *testing.T) {
	if !useAVX2FMA {
		t.Skip("SKIPPED: the CPU has no AVX2 and FMA: the Go loops run everywhere and are tested by the other tests")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, width := range []int{8, 12} {
		nd, c, upad, ts := 6, 11, 1, 28
		ustride := nd * (c + upad)
		u, tab := randSlice(rng, 4*ustride), randSlice(rng, c+(nd-1)*ts+width)
		a, g := make([]float64, 4*width), make([]float64, 4*width)
		if width == 8 {
			stencilFold4x8AVX(a, width, u, ustride, nd, c, tab, ts, upad)
		} else {
			stencilFold4x12AVX(a, width, u, ustride, nd, c, tab, ts, upad)
		}
		stencilFoldGo(width, g, width, u, ustride, nd, c, tab, ts, upad)
		for i := range a {
			if !near(a[i], g[i], float64(nd*c)) {
				t.Fatalf("stencil fold %d: entry %d: assembly %v, Go %v", width, i, a[i], g[i])
			}
		}
	}
	v := randSlice(rng, 9*12)
	ua, ug := make([]float64, 5*12), make([]float64, 5*12)
	foldRowAVX(ua, v, 12, 5)
	foldRowGo(ug, v, 12, 5)
	for i := range ua {
		if ua[i] != ug[i] {
			t.Fatalf("fold row: entry %d: assembly %v, Go %v", i, ua[i], ug[i])
		}
	}
	p, r := randSlice(rng, 8*21), randSlice(rng, 21)
	da, dg, wa, wg := make([]float64, 21), make([]float64, 21), randSlice(rng, 8), make([]float64, 8)
	copy(wg, wa)
	for x := 0; x < 8; x += 4 {
		ibuRows4AVX(p[x*21:(x+4)*21], 21, r, da, wa[x:x+4], PassDot|PassScale|PassAxpy)
	}
	densePassGo(p, 8, 21, r, dg, wg, PassDot|PassScale|PassAxpy)
	for j := range da {
		if !near(da[j], dg[j], 100) {
			t.Fatalf("dense pass: den[%d] assembly %v, Go %v", j, da[j], dg[j])
		}
	}
	for x := range wa {
		if !near(wa[x], wg[x], 100) {
			t.Fatalf("dense pass: w[%d] assembly %v, Go %v", x, wa[x], wg[x])
		}
	}
	s1, m1 := rowStatsAVX(p[:19])
	s2, m2 := rowStatsGo(p[:19])
	if !near(s1, s2, 19) || m1 != m2 {
		t.Fatalf("row stats: assembly (%v, %v), Go (%v, %v)", s1, m1, s2, m2)
	}
	fp, taps := randSlice(rng, 16+2*4), randSlice(rng, 5)
	fa, fg := make([]float64, 16), make([]float64, 16)
	firSymAVX(fa, fp, taps)
	firSymGo(fg, fp, taps)
	for j := range fa {
		if !near(fa[j], fg[j], 10) {
			t.Fatalf("FIR: acc[%d] assembly %v, Go %v", j, fa[j], fg[j])
		}
	}
	ar, ai, br, bi := randSlice(rng, 12), randSlice(rng, 12), randSlice(rng, 12), randSlice(rng, 12)
	cr, ci, er, ei := append([]float64(nil), ar...), append([]float64(nil), ai...), append([]float64(nil), br...), append([]float64(nil), bi...)
	butterflyDIFAVX(ar, ai, br, bi, 0.6, 0.8)
	butterflyDIFGo(cr, ci, er, ei, 0.6, 0.8)
	butterflyDITAVX(ar, ai, br, bi, -0.28, 0.96)
	butterflyDITGo(cr, ci, er, ei, -0.28, 0.96)
	for j := range ar {
		if !near(ar[j], cr[j], 4) || !near(bi[j], ei[j], 4) {
			t.Fatalf("butterflies: entry %d differs", j)
		}
	}
	re, im := randSlice(rng, 40), randSlice(rng, 40)
	gr, gi := append([]float64(nil), re...), append([]float64(nil), im...)
	o := [4]int{0, 8, 20, 28}
	radix4DIFAVX(re, im, o[0], o[1], o[2], o[3], 8, 0.6, 0.8, -0.28, 0.96, 0, 1)
	butterfly4DIFGo(gr, gi, o, 8, [2]float64{0.6, 0.8}, [2]float64{-0.28, 0.96}, [2]float64{0, 1})
	radix4DITAVX(re, im, o[0], o[1], o[2], o[3], 8, 0.6, 0.8, -0.28, 0.96, 0, 1)
	butterfly4DITGo(gr, gi, o, 8, [2]float64{0.6, 0.8}, [2]float64{-0.28, 0.96}, [2]float64{0, 1})
	for j := range re {
		if !near(re[j], gr[j], 8) || !near(im[j], gi[j], 8) {
			t.Fatalf("radix 4: entry %d: assembly %v%+vi, Go %v%+vi", j, re[j], im[j], gr[j], gi[j])
		}
	}
}
