package emd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestArgminBelow checks the pricing scan (vector pre-scan where the CPU
// has it) against a plain loop with strict comparisons, on lengths around
// the vector widths, thresholds that many or no entries beat, and ties
// (the first of equal minima wins).
func TestArgminBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	plain := func(row, d []float64, thr float64) (float64, int) {
		bk := -1
		for k := range row {
			if r := row[k] - d[k]; r < thr {
				thr, bk = r, k
			}
		}
		return thr, bk
	}
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 200; trial++ {
			row, d := make([]float64, n), make([]float64, n+3)
			for k := range row {
				// Few distinct values, so ties are common.
				row[k] = float64(rng.IntN(6))
				d[k] = float64(rng.IntN(6))
			}
			thr := float64(rng.IntN(12) - 6)
			wv, wk := plain(row, d, thr)
			gv, gk := argminBelow(row, d, thr)
			if gv != wv || gk != wk {
				t.Fatalf("n=%d row=%v d=%v thr=%v: got (%v, %d), want (%v, %d)", n, row, d[:n], thr, gv, gk, wv, wk)
			}
			n4 := n &^ 3
			for k := 0; k <= n4; k += 4 {
				if g, w := scanBelow(row, d, k, n4, thr), scanBelowGo(row, d, k, n4, thr); g != w {
					t.Fatalf("n=%d k=%d thr=%v: scanBelow %d, portable %d", n, k, thr, g, w)
				}
			}
		}
	}
}

// TestSolveOn checks that the tabulated-distance path gives exactly
// SolveCommon's result (same costs, same pivots) on grid problems with
// empty cells and shared mass, and that it rejects mismatched input.
func TestSolveOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	x, y, pts := gridPointSet(t, 7, 9)
	var s1, s2 Solver
	for trial := 0; trial < 50; trial++ {
		a, b := make([]float64, len(x)), make([]float64, len(x))
		for i := range a {
			if rng.IntN(4) > 0 {
				a[i] = rng.Float64()
			}
			if rng.IntN(4) > 0 {
				b[i] = rng.Float64()
			}
			if rng.IntN(5) == 0 {
				b[i] = a[i] // shared mass cancels
			}
		}
		normalise(a)
		normalise(b)
		want, err := s1.SolveCommon(x, y, a, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s2.SolveOn(pts, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got.Cost != want.Cost || got.Pivots != want.Pivots {
			t.Fatalf("trial %d: SolveOn (%v, %d pivots), SolveCommon (%v, %d pivots)", trial, got.Cost, got.Pivots, want.Cost, want.Pivots)
		}
	}
	if _, err := s2.SolveOn(pts, make([]float64, 3), make([]float64, 3)); err == nil {
		t.Error("SolveOn accepted masses of the wrong length")
	}
	if _, err := NewPoints([]float64{0, 1}, []float64{0}); err == nil {
		t.Error("NewPoints accepted mismatched coordinates")
	}
}

// blockSearch is block pricing by its definition, one arc at a time: arcs
// are scanned in row order, cyclically, from arc next, in segments that
// end at a row's end or a block's end. When a block of block arcs is
// complete and an arc with reduced cost below -eps was seen, the least one
// (the first of equal ones) is returned with the position after the
// block. The pass ends at the first segment end after all total arcs were
// scanned (a block may run a few arcs into a second lap), with the least
// one or none. rowEnd reports whether arc e is the last of its row. rc
// must be exact (integer data), so that no formulation's rounding matters.
func blockSearch(rc func(e int) float64, rowEnd func(e int) bool, total, next, block int, eps float64) (best, after int) {
	best, bestRC := -1, -eps
	e, scanned, inBlock := next, 0, 0
	for {
		if r := rc(e); r < bestRC {
			best, bestRC = e, r
		}
		end := rowEnd(e)
		e = (e + 1) % total
		scanned++
		inBlock++
		if !end && inBlock < block {
			continue
		}
		if inBlock >= block {
			if best >= 0 {
				return best, e
			}
			inBlock = 0
		}
		if scanned >= total {
			return best, e
		}
	}
}

// TestPriceBlockSearch checks both pricers against blockSearch on random
// integer costs and potentials, over successive calls (the next position
// carries over), with blocks smaller and larger than the rows and, for the
// sparse arc set, empty rows.
func TestPriceBlockSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	for trial := range 200 {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		var s network
		s.reset(n, m, 0)
		s.eps = 0.5 // reduced costs are integers: below -eps means <= -1
		for x := range s.pi {
			s.pi[x] = float64(rng.IntN(11) - 5)
		}
		block := 1 + rng.IntN(2*m+3)
		if trial%2 == 0 {
			var d dense
			cost := make([]float64, n*m)
			for e := range cost {
				cost[e] = float64(rng.IntN(6))
			}
			d.reset(n, m, cost)
			if want := max(16, int(math.Sqrt(float64(n*m)))); d.block != want || d.next != 0 {
				t.Fatalf("n=%d m=%d: block %d, next %d; want block %d from arc 0", n, m, d.block, d.next, want)
			}
			for _, sz := range [][2]int{{20, 30}, {40, 40}} {
				var big dense
				big.reset(sz[0], sz[1], nil)
				if want := int(math.Sqrt(float64(sz[0] * sz[1]))); big.block != want {
					t.Fatalf("%v: block %d, want %d", sz, big.block, want)
				}
			}
			d.block = block
			rc := func(e int) float64 { return cost[e] + s.pi[e/m] - s.pi[n+e%m] }
			rowEnd := func(e int) bool { return e%m == m-1 }
			for call := range 6 {
				want, after := blockSearch(rc, rowEnd, n*m, d.next, block, s.eps)
				i, j, c := d.price(&s)
				if want < 0 && i >= 0 || want >= 0 && (i != want/m || j != want%m || c != cost[want] || d.next != after) {
					t.Fatalf("trial %d call %d (n=%d m=%d block %d): got (%d, %d, %v) next %d, want arc %d next %d", trial, call, n, m, block, i, j, c, d.next, want, after)
				}
				if want >= 0 {
					s.pi[n+j] -= float64(rng.IntN(3)) // make it less attractive
				}
			}
			continue
		}
		// The sparse pricer reads the Euler tour form of the tree: every
		// node under the root, the blocks shifting their nodes'
		// potentials by random integers.
		var et etour
		parent := make([]int, n+m+1)
		for x := range parent {
			parent[x] = n + m
		}
		et.build(parent)
		for b := range et.lz {
			et.lz[b] = float64(rng.IntN(5) - 2)
		}
		s.et = &et
		var sp sparse
		sp.sx, sp.sy = make([]float64, n), make([]float64, n)
		sp.dx, sp.dy = make([]float64, m), make([]float64, m)
		var pairs []arcPair
		for i := range n {
			for j := range m {
				if rng.IntN(3) == 0 {
					pairs = append(pairs, arcPair{int32(i), int32(j)})
				}
			}
		}
		if len(pairs) == 0 {
			pairs = append(pairs, arcPair{0, 0})
		}
		sp.setArcs(n, pairs)
		for e := range sp.cost {
			sp.cost[e] = float64(rng.IntN(6))
		}
		sp.block = block
		row := make([]int, len(sp.head))
		for i := range n {
			for e := sp.start[i]; e < sp.start[i+1]; e++ {
				row[e] = i
			}
		}
		rc := func(e int) float64 { return sp.cost[e] + s.pot(row[e]) - s.pot(n+int(sp.head[e])) }
		total := len(sp.head)
		rowEnd := func(e int) bool { return e+1 == sp.start[row[e]+1] }
		for call := range 6 {
			want, after := blockSearch(rc, rowEnd, total, sp.next%total, block, s.eps)
			i, j, c := sp.price(&s)
			if want < 0 && i >= 0 || want >= 0 && (i != row[want] || j != int(sp.head[want]) || c != sp.cost[want] || sp.next%total != after) {
				t.Fatalf("trial %d call %d (n=%d m=%d arcs %d block %d): got (%d, %d, %v) next %d, want arc %d next %d; start %v head %v cost %v pi %v", trial, call, n, m, total, block, i, j, c, sp.next, want, after, sp.start, sp.head, sp.cost, s.pi)
			}
			if sp.start[sp.nextRow] > sp.next || sp.next > sp.start[sp.nextRow+1] {
				t.Fatalf("trial %d: next arc %d outside row %d", trial, sp.next, sp.nextRow)
			}
			if want >= 0 {
				s.pi[n+j] -= float64(rng.IntN(3))
			}
		}
	}
}

// TestPricingTolerance: arcs enter only below -pricingTol times the
// largest |cost| of the solved problem (zero-mass rows dropped) or, for
// the sparse solver, times the diagonal of the points' bounding box.
func TestPricingTolerance(t *testing.T) {
	var s Solver
	tol := pricingTol // multiplied at run time, as the solver does
	if _, err := s.SolveMatrix([]float64{1, 0, 1}, []float64{1, 1}, []float64{-3, 1, 100, 7, 2, 0.5}); err != nil {
		t.Fatal(err)
	}
	if want := tol * 3; s.net.eps != want {
		t.Errorf("dense: eps %v, want %v", s.net.eps, want)
	}
	s.path = pathSparse
	x, y := []float64{5, 35, 5, 9}, []float64{7, 7, 47, 10} // a 30 x 40 box
	if _, err := s.SolveCommon(x, y, []float64{1, 0, 0, 1}, []float64{0, 1, 1, 0}); err != nil {
		t.Fatal(err)
	}
	if want := tol * 50; s.net.eps != want {
		t.Errorf("sparse: eps %v, want %v", s.net.eps, want)
	}
}
