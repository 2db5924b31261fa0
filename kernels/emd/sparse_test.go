package emd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKDTreeSearch checks the weighted k-nearest search against brute
// force: the keys found are the k least below the threshold.
func TestKDTreeSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	var tr kdTree
	var h kbest
	for trial := range 300 {
		n := 1 + rng.IntN(60)
		x, y := randPoints(rng, n, trial%2 == 0)
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
	}
	tr.build(nil, nil, []int32{})
	h.reset(3, math.Inf(1))
	tr.search(0, 0, &h)
	if len(h.idx) != 0 {
		t.Fatalf("empty tree found %v", h.idx)
	}
}

// hotspots draws a hotspot-like distribution on an r x c grid: a few
// peaked bumps over a thin background, many cells empty; and a blurred
// copy of it (kernel exp(-d), as a BA channel at beta = 1 spreads mass).
func hotspots(rng *rand.Rand, r, c int) (x, y, p, q []float64) {
	x, y = gridPoints(r, c)
	k := len(x)
	p = make([]float64, k)
	for range 1 + rng.IntN(4) {
		cx, cy, s := rng.Float64()*float64(r), rng.Float64()*float64(c), 0.5+2*rng.Float64()
		for i := range p {
			d := math.Hypot(x[i]-cx, y[i]-cy)
			p[i] += math.Floor(40 * math.Exp(-d/s))
		}
	}
	for i := range p {
		if rng.IntN(10) == 0 {
			p[i]++
		}
	}
	if slices.Max(p) == 0 {
		p[0] = 1
	}
	normalise(p)
	q = make([]float64, k)
	for i := range q {
		z := 0.0
		for j := range q {
			w := math.Exp(-math.Hypot(x[i]-x[j], y[i]-y[j]))
			q[i] += w * p[j]
			z += w
		}
		q[i] /= z
	}
	normalise(q)
	return x, y, p, q
}

// TestSparseMatchesDense: the sparse solver agrees with the dense one to
// 1e-9 relative on random and hotspot grid problems, and certifies its
// optimum on every arc.
func TestSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	sp, dn := Solver{path: pathSparse, Duals: true}, Solver{path: pathDense}
	for trial := range 40 {
		r, c := 2+rng.IntN(14), 2+rng.IntN(14)
		var x, y, p, q []float64
		if trial%2 == 0 {
			x, y, p, q = hotspots(rng, r, c)
		} else {
			x, y = gridPoints(r, c)
			p, q = randDist(rng, len(x), true, trial%3 == 0), randDist(rng, len(x), trial%4 == 1, false)
		}
		got, err := sp.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatalf("trial %d: sparse: %v", trial, err)
		}
		want, err := dn.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatalf("trial %d: dense: %v", trial, err)
		}
		if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost {
			t.Fatalf("trial %d (%dx%d): sparse %.17g, dense %.17g", trial, r, c, got.Cost, want.Cost)
		}
		if err := certificate(p, q, euclidCost(x, y, x, y), got); err != nil {
			t.Fatalf("trial %d (%dx%d): %v", trial, r, c, err)
		}
	}
}

// TestSparseFarArcs: supplies in a tight cluster, demands spread far and
// wide. Every node's nearest neighbours then lie in one small region, so
// the greedy start runs out of arcs (leftovers get new neighbours) and the
// optimum needs arcs that only the pricing sweeps find.
func TestSparseFarArcs(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	for trial := range 6 {
		n, m := 20+trial*7, 30+trial*5
		ax, ay := make([]float64, n), make([]float64, n)
		for i := range ax {
			ax[i], ay[i] = rng.Float64(), rng.Float64()
		}
		bx, by := make([]float64, m), make([]float64, m)
		for j := range bx {
			a := 2 * math.Pi * float64(j) / float64(m)
			bx[j], by[j] = 10*math.Cos(a)+rng.Float64(), 3*math.Sin(a)
		}
		a, b := randDist(rng, n, false, false), randDist(rng, m, false, trial%2 == 0)
		sp, dn := Solver{path: pathSparse, Duals: true}, Solver{path: pathDense}
		got, err := sp.SolvePoints(ax, ay, a, bx, by, b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := dn.SolvePoints(ax, ay, a, bx, by, b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost {
			t.Fatalf("trial %d: sparse %.17g, dense %.17g", trial, got.Cost, want.Cost)
		}
		if got.Sweeps < 2 {
			t.Errorf("trial %d: %d sweeps; the case should need arcs from a sweep", trial, got.Sweeps)
		}
		if err := certificate(a, b, euclidCost(ax, ay, bx, by), got); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// checked wraps a pricer and, before every pricing, checks the basis: the
// thread is a preorder of the tree with consistent depths and reverse
// links, flows are conserved and non-negative, artificial arcs carry
// nothing, basic arcs have zero reduced cost, and the tree is strongly
// feasible (a real arc with zero flow points away from the root, i.e. is a
// supply's arc to a demand child), which is what rules out cycling.
type checked struct {
	pricer
	sup, dem []float64
	err      error
	calls    int
}

func (c *checked) price(s *network) (int, int, float64) {
	c.calls++
	if c.err == nil {
		c.err = checkBasis(s, c.sup, c.dem)
	}
	return c.pricer.price(s)
}

func checkBasis(s *network, sup, dem []float64) error {
	n, m := s.n, s.m
	root := n + m
	seen := make([]bool, root+1)
	net := make([]float64, root) // supply left at each node
	copy(net, sup)
	for j, v := range dem {
		net[n+j] = -v
	}
	x, count := root, 0
	for {
		nx := s.tn[x].next
		if s.rev[nx] != x {
			return fmt.Errorf("rev[thread[%d]] = %d", x, s.rev[nx])
		}
		x = nx
		if x == root {
			break
		}
		p := s.parent[x]
		if seen[x] || !seen[p] && p != root {
			return fmt.Errorf("thread visits %d before its parent %d or twice", x, p)
		}
		seen[x] = true
		count++
		if s.tn[x].depth != s.tn[p].depth+1 {
			return fmt.Errorf("depth[%d] = %d, parent's %d", x, s.tn[x].depth, s.tn[p].depth)
		}
		f := s.flow[x]
		if p == root {
			if f != 0 {
				return fmt.Errorf("artificial arc to %d carries %v", x, f)
			}
			continue
		}
		if (x < n) == (p < n) {
			return fmt.Errorf("arc %d - %d joins two nodes of one side", x, p)
		}
		if f < 0 {
			return fmt.Errorf("arc %d - %d carries %v", x, p, f)
		}
		if f == 0 && x < n {
			return fmt.Errorf("arc %d -> %d with zero flow points to the root: not strongly feasible", x, p)
		}
		i, j := x, p
		if x >= n {
			i, j = p, x
		}
		net[i] -= f
		net[j] += f
		if rc := s.acost[x] + s.pi[i] - s.pi[j]; math.Abs(rc) > 1e-12*(1+math.Abs(s.acost[x])) {
			return fmt.Errorf("basic arc %d -> %d has reduced cost %g", i, j-n, rc)
		}
	}
	if count != root {
		return fmt.Errorf("thread visits %d of %d nodes", count, root)
	}
	for x, v := range net {
		if math.Abs(v) > 1e-12 {
			return fmt.Errorf("node %d: %g not shipped", x, v)
		}
	}
	return nil
}

// TestBasisInvariants runs both solvers with the basis checked before
// every pivot, on degenerate problems (unit and equal masses on lattices,
// where many blocking arcs tie) and on generic ones.
func TestBasisInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	for trial := range 60 {
		k := 3 + rng.IntN(10)
		x, y := randPoints(rng, 2*k, true)
		a, b := make([]float64, 2*k), make([]float64, 2*k)
		for i := range k {
			if trial%3 == 2 {
				a[i], b[k+i] = rng.Float64(), rng.Float64()
			} else {
				a[i], b[k+i] = 1, 1
			}
		}
		normalise(a)
		normalise(b)
		var s Solver
		if !s.split(a, b, 1) {
			t.Fatal("nothing to solve")
		}
		s.coords(x, y)
		n, m := len(s.sup), len(s.dem)
		var pr *checked
		if trial%2 == 0 {
			maxc, _ := s.diameter()
			if err := s.start(maxc); err != nil {
				t.Fatal(err)
			}
			sp := &s.sparse
			sp.sx, sp.sy, sp.dx, sp.dy = s.sx, s.sy, s.dx, s.dy
			sp.initial(&s.net, s.sup, s.dem)
			pr = &checked{pricer: sp, sup: s.sup, dem: s.dem}
			_, err := s.simplex(pr, func() int { return sp.sweep(&s.net) })
			if err != nil {
				t.Fatal(err)
			}
		} else {
			s.cost = euclid(s.sx, s.sy, s.dx, s.dy)
			if err := s.start(slices.Max(s.cost)); err != nil {
				t.Fatal(err)
			}
			s.dense.reset(n, m, s.cost)
			s.dense.matrixMinimum(&s.net, s.sup, s.dem)
			pr = &checked{pricer: &s.dense, sup: s.sup, dem: s.dem}
			if _, err := s.simplex(pr, nil); err != nil {
				t.Fatal(err)
			}
		}
		if pr.err != nil {
			t.Fatalf("trial %d (%d pricings): %v", trial, pr.calls, pr.err)
		}
		if err := checkBasis(&s.net, s.sup, s.dem); err != nil {
			t.Fatalf("trial %d at the end: %v", trial, err)
		}
	}
}

// TestSparseDeterministic: the same input gives the same bits whatever
// the solver solved before.
func TestSparseDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(59, 60))
	x, y, p, q := hotspots(rng, 12, 13)
	var s1, s2 Solver
	s1.path, s2.path = pathSparse, pathSparse
	first, err := s1.SolveCommon(x, y, p, q)
	if err != nil {
		t.Fatal(err)
	}
	x2, y2, p2, q2 := hotspots(rng, 9, 17)
	if _, err := s2.SolveCommon(x2, y2, p2, q2); err != nil {
		t.Fatal(err)
	}
	again, err := s2.SolveCommon(x, y, p, q)
	if err != nil {
		t.Fatal(err)
	}
	if again.Cost != first.Cost || again.Pivots != first.Pivots {
		t.Fatalf("reused solver: %v (%d pivots), fresh %v (%d pivots)", again.Cost, again.Pivots, first.Cost, first.Pivots)
	}
}
