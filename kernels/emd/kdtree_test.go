package emd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pointTrials calls f for trials random point sets (randPoints, on the
// lattice on even trials) of 1 to maxN points each, drawn from the PCG
// stream seeded with seed1, seed2, which f may draw from too.
func pointTrials(seed1, seed2 uint64, trials, maxN int, f func(trial int, rng *rand.Rand, x, y []float64)) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	for trial := range trials {
		n := 1 + rng.IntN(maxN)
		x, y := randPoints(rng, n, trial%2 == 0)
		f(trial, rng, x, y)
	}
}

// TestKDTreeSearch checks the weighted k-nearest search against brute
// force: the keys found are the k least below the threshold.
func TestKDTreeSearch(t *testing.T) {
	var tr kdTree
	var h kbest
	pointTrials(51, 52, 300, 60, func(trial int, rng *rand.Rand, x, y []float64) {
		n := len(x)
		var idx []int32 // a subset of the points, or all
		if trial%3 == 0 {
			for p := range n {
				if rng.IntN(2) == 0 {
					idx = append(idx, int32(p))
				}
			}
			if len(idx) == 0 {
				idx = []int32{int32(rng.IntN(n))}
			}
		}
		tr.build(x, y, idx)
		if idx == nil {
			for p := range n {
				idx = append(idx, int32(p))
			}
		}
		var w []float64
		if trial%4 > 0 {
			w = make([]float64, n)
			for p := range w {
				w[p] = rng.NormFloat64()
				if trial%2 == 0 {
					w[p] = float64(rng.IntN(5) - 2) // keys tie with integer thresholds
				}
			}
		}
		tr.setWeights(w)
		for range 5 {
			px, py := 5*rng.Float64()-1, 5*rng.Float64()-1
			k := 1 + rng.IntN(6)
			thr := math.Inf(1)
			if rng.IntN(2) == 0 {
				thr = 3 * rng.NormFloat64()
			}
			if trial%2 == 0 {
				// Lattice points, integer query and threshold: keys at
				// distances 0, 1, 2, 5 equal the threshold exactly.
				px, py = float64(rng.IntN(7)-1), float64(rng.IntN(7)-1)
				thr = float64(rng.IntN(6) - 1)
			}
			var want []float64
			for _, p := range idx {
				v := math.Sqrt((x[p]-px)*(x[p]-px) + (y[p]-py)*(y[p]-py))
				if w != nil {
					v += w[p]
				}
				if v < thr {
					want = append(want, v)
				}
			}
			slices.Sort(want)
			want = want[:min(k, len(want))]
			h.reset(k, thr)
			tr.search(px, py, &h)
			got := make([]float64, len(h.key))
			for q, p := range h.idx {
				v := math.Sqrt((x[p]-px)*(x[p]-px) + (y[p]-py)*(y[p]-py))
				if w != nil {
					v += w[p]
				}
				if v != h.key[q] || !slices.Contains(idx, p) {
					t.Fatalf("trial %d: point %d reported with key %v, its key is %v (in the tree: %v)", trial, p, h.key[q], v, slices.Contains(idx, p))
				}
				got[q] = v
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d (n=%d k=%d thr=%v): got keys %v, want %v", trial, n, k, thr, got, want)
			}
		}
	})
	tr.build(nil, nil, []int32{})
	h.reset(3, math.Inf(1))
	tr.search(0, 0, &h)
	if len(h.idx) != 0 {
		t.Fatalf("empty tree found %v", h.idx)
	}
}

// TestKDTreeStructure checks the tree's layout exactly: children of a
// node split its points at the median along the longer side of its box (x
// on ties), points tied on that coordinate ordered by index, leaves of at
// most kdLeaf points, exact bounding boxes and least weights.
func TestKDTreeStructure(t *testing.T) {
	var tr kdTree
	pointTrials(61, 62, 100, 80, func(trial int, rng *rand.Rand, x, y []float64) {
		n := len(x)
		if trial%5 == 0 {
			for p := range x {
				x[p] = y[p] // all on the diagonal: square boxes, ties
			}
		}
		tr.build(x, y, nil)
		w := make([]float64, n)
		for p := range w {
			w[p] = float64(rng.IntN(7))
		}
		tr.setWeights(w)
		if tr.nodes[0].lo != 0 || int(tr.nodes[0].hi) != n {
			t.Fatalf("trial %d: root covers [%d, %d) of %d", trial, tr.nodes[0].lo, tr.nodes[0].hi, n)
		}
		seen := slices.Clone(tr.perm)
		slices.Sort(seen)
		for p, v := range seen {
			if int(v) != p {
				t.Fatalf("trial %d: perm is not a permutation: %v", trial, tr.perm)
			}
		}
		for k, nd := range tr.nodes {
			pts := tr.perm[nd.lo:nd.hi]
			x0, x1, y0, y1, wm := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)
			for _, p := range pts {
				x0, x1, y0, y1, wm = min(x0, x[p]), max(x1, x[p]), min(y0, y[p]), max(y1, y[p]), min(wm, w[p])
			}
			if nd.x0 != x0 || nd.x1 != x1 || nd.y0 != y0 || nd.y1 != y1 || tr.wmin[k] != wm {
				t.Fatalf("trial %d node %d: box %v %v %v %v wmin %v, want %v %v %v %v %v", trial, k, nd.x0, nd.x1, nd.y0, nd.y1, tr.wmin[k], x0, x1, y0, y1, wm)
			}
			if len(pts) <= kdLeaf {
				if nd.kid != -1 {
					t.Fatalf("trial %d node %d: %d points but children", trial, k, len(pts))
				}
				continue
			}
			if nd.kid < 0 {
				t.Fatalf("trial %d node %d: leaf of %d points", trial, k, len(pts))
			}
			l, r := tr.nodes[nd.kid], tr.nodes[nd.kid+1]
			mid := nd.lo + int32(len(pts)/2)
			if l.lo != nd.lo || l.hi != mid || r.lo != mid || r.hi != nd.hi {
				t.Fatalf("trial %d node %d [%d, %d): children [%d, %d) [%d, %d)", trial, k, nd.lo, nd.hi, l.lo, l.hi, r.lo, r.hi)
			}
			c := x
			if y1-y0 > x1-x0 {
				c = y
			}
			for _, a := range tr.perm[l.lo:l.hi] {
				for _, b := range tr.perm[r.lo:r.hi] {
					if c[a] > c[b] || c[a] == c[b] && a > b {
						t.Fatalf("trial %d node %d: point %d (%v) left of point %d (%v)", trial, k, a, c[a], b, c[b])
					}
				}
			}
		}
	})
}

// TestBoxDist: the bound is exactly the distance to the box, and no more
// than the distance to any point in it.
func TestBoxDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	for range 2000 {
		nd := kdNode{x0: float64(rng.IntN(5)), y0: float64(rng.IntN(5))}
		nd.x1, nd.y1 = nd.x0+float64(rng.IntN(3)), nd.y0+float64(rng.IntN(3))
		px, py := float64(rng.IntN(11)-3), float64(rng.IntN(11)-3)
		// The nearest point of the box clamps the query to it.
		cx, cy := min(max(px, nd.x0), nd.x1), min(max(py, nd.y0), nd.y1)
		if got, want := nd.boxDist(px, py), math.Hypot(px-cx, py-cy); math.Abs(got-want) > 1e-15*(1+want) {
			t.Fatalf("box %+v, point (%v, %v): bound %v, want %v", nd, px, py, got, want)
		}
	}
}

// TestKDTreeRemove: after removing points (weight +Inf) one by one until
// none is left, searches find only the others, and every node's least
// weight is that of its points.
func TestKDTreeRemove(t *testing.T) {
	var tr kdTree
	var h kbest
	pointTrials(75, 76, 100, 60, func(trial int, rng *rand.Rand, x, y []float64) {
		n := len(x)
		tr.build(x, y, nil)
		w := make([]float64, n)
		tr.setWeights(w)
		alive := make([]bool, n)
		for p := range alive {
			alive[p] = true
		}
		for _, p := range rng.Perm(n) { // until none is left
			tr.remove(int32(p))
			alive[p] = false
			for k, nd := range tr.nodes {
				v := math.Inf(1)
				for _, q := range tr.perm[nd.lo:nd.hi] {
					if alive[q] {
						v = min(v, 0)
					}
				}
				if tr.wmin[k] != v {
					t.Fatalf("trial %d: node %d least weight %v, want %v", trial, k, tr.wmin[k], v)
				}
			}
			px, py := 5*rng.Float64()-1, 5*rng.Float64()-1
			best := math.Inf(1)
			for q := range n {
				if alive[q] {
					best = min(best, math.Sqrt((x[q]-px)*(x[q]-px)+(y[q]-py)*(y[q]-py)))
				}
			}
			h.reset(1, math.Inf(1))
			tr.search(px, py, &h)
			if math.IsInf(best, 1) != (len(h.idx) == 0) || len(h.idx) > 0 && (h.key[0] != best || !alive[h.idx[0]]) {
				t.Fatalf("trial %d: nearest live point %v (key %v), want key %v", trial, h.idx, h.key, best)
			}
		}
	})
}
