package emd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

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
	return x, y, p, blurred(x, y, p)
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
		if got.Sweeps < 1 {
			t.Errorf("trial %d: %d sweeps: no sweep proved the optimum over all arcs", trial, got.Sweeps)
		}
		if err := certificate(a, b, euclidCost(ax, ay, bx, by), got); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// checked wraps a pricer and, before every pricing, checks the basis: the
// thread is a preorder of the tree with consistent depths and reverse
// links (or the Euler tour is one of the tree, see checkTour), flows are
// conserved and non-negative, artificial arcs carry nothing, basic arcs
// have zero reduced cost, and the tree is strongly feasible (a real arc
// with zero flow points away from the root, i.e. is a supply's arc to a
// demand child), which is what rules out cycling.
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
	if s.et != nil {
		if err := checkTour(s); err != nil {
			return err
		}
	} else if err := checkThread(s); err != nil {
		return err
	}
	net := make([]float64, root) // supply left at each node
	copy(net, sup)
	for j, v := range dem {
		net[n+j] = -v
	}
	for x := range root {
		p := s.parent[x]
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
		if rc := s.acost[x] + s.potential(i) - s.potential(j); math.Abs(rc) > 1e-12*(1+math.Abs(s.acost[x])) {
			return fmt.Errorf("basic arc %d -> %d has reduced cost %g", i, j-n, rc)
		}
	}
	for x, v := range net {
		if math.Abs(v) > 1e-12 {
			return fmt.Errorf("node %d: %g not shipped", x, v)
		}
	}
	return nil
}

// checkThread checks the preorder thread: it visits every node once, each
// after its parent, at its parent's depth plus one, with reverse links.
func checkThread(s *network) error {
	root := s.n + s.m
	seen := make([]bool, root+1)
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
	}
	if count != root {
		return fmt.Errorf("thread visits %d of %d nodes", count, root)
	}
	return nil
}

// checkTour checks the Euler tour form of the tree: the blocks form a
// doubly linked list from the head, none empty or over the merge
// threshold, each element's block and index are right, every element
// appears once, the root's self element first; and the elements nest as
// the tree does: dn[x] opens x's stretch right inside its parent's (or the
// root's), x's self element lies inside it and up[x] closes it.
func checkTour(s *network) error {
	t := s.et
	root := s.n + s.m
	N := int32(root + 1)
	for x := range root {
		if t.owner[t.dn[x]] != int32(x) || t.owner[t.up[x]] != -1 {
			return fmt.Errorf("edge elements of %d: owners %d, %d", x, t.owner[t.dn[x]], t.owner[t.up[x]])
		}
	}
	seen := make([]bool, len(t.eb))
	var stack []int32
	top := func() int32 {
		if len(stack) == 0 {
			return int32(root)
		}
		return stack[len(stack)-1]
	}
	if t.prev[t.head] != noBlock {
		return fmt.Errorf("head block %d has a predecessor", t.head)
	}
	count := 0
	for b := t.head; b != noBlock; b = t.next[b] {
		if len(t.items[b]) == 0 || len(t.items[b]) > t.bs {
			return fmt.Errorf("block %d holds %d elements (at most %d)", b, len(t.items[b]), t.bs)
		}
		if nb := t.next[b]; nb != noBlock && t.prev[nb] != b {
			return fmt.Errorf("block %d: next %d, whose prev is %d", b, nb, t.prev[nb])
		}
		for k, e := range t.items[b] {
			if t.eb[e] != b || int(t.ei[e]) != k {
				return fmt.Errorf("element %d at block %d index %d, recorded %d, %d", e, b, k, t.eb[e], t.ei[e])
			}
			if seen[e] {
				return fmt.Errorf("element %d twice", e)
			}
			seen[e] = true
			count++
			switch {
			case count == 1:
				if e != int32(root) {
					return fmt.Errorf("the tour starts with %d, not the root", e)
				}
			case e < N:
				if top() != e {
					return fmt.Errorf("self element of %d inside the stretch of %d", e, top())
				}
			case t.owner[e] >= 0:
				x := t.owner[e]
				if s.parent[x] != int(top()) {
					return fmt.Errorf("node %d entered inside %d, its parent is %d", x, top(), s.parent[x])
				}
				stack = append(stack, x)
			default:
				if len(stack) == 0 || t.up[top()] != e {
					return fmt.Errorf("element %d closes the stretch of %d out of turn", e, top())
				}
				stack = stack[:len(stack)-1]
			}
		}
	}
	if count != len(t.eb) || len(stack) != 0 {
		return fmt.Errorf("the tour holds %d of %d elements, %d stretches open", count, len(t.eb), len(stack))
	}
	return nil
}

// TestBasisInvariants runs both solvers with the basis checked before
// every pivot, on degenerate problems (unit and equal masses on lattices,
// where many blocking arcs tie) and on generic ones; the sparse one's
// result counts the sweeps it made.
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
			s.net.et = &s.tour
			sp.initial(&s.net, s.sup, s.dem, nearK, nil, nil, nil)
			pr = &checked{pricer: sp, sup: s.sup, dem: s.dem}
			sweeps := 0
			res, err := s.simplex(pr, func() int { sweeps++; return sp.sweep(&s.net) })
			if err != nil {
				t.Fatal(err)
			}
			if res.Sweeps != sweeps || sweeps < 1 {
				t.Fatalf("trial %d: %d sweeps counted, %d done", trial, res.Sweeps, sweeps)
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

// randomSparse sets up a solver for n supplies and m demands, each drawn
// from 1 to most, at random points in the unit square (distances all
// distinct) with random masses of equal totals.
func randomSparse(rng *rand.Rand, most int) (s *Solver, n, m int) {
	n, m = 1+rng.IntN(most), 1+rng.IntN(most)
	s = new(Solver)
	s.sup, s.dem = randDist(rng, n, false, false), randDist(rng, m, false, false)
	s.sx, s.sy = randPoints(rng, n, false)
	s.dx, s.dy = randPoints(rng, m, false)
	sp := &s.sparse
	sp.sx, sp.sy, sp.dx, sp.dy = s.sx, s.sy, s.dx, s.dy
	maxc, _ := s.diameter()
	s.net.reset(n, m, maxc)
	return s, n, m
}

// nearestK returns the indices of the k points of (x, y) nearest to
// (px, py), by brute force.
func nearestK(px, py float64, x, y []float64, k int) []int {
	idx := make([]int, len(x))
	for p := range idx {
		idx[p] = p
	}
	d := func(p int) float64 { return math.Sqrt((x[p]-px)*(x[p]-px) + (y[p]-py)*(y[p]-py)) }
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(d(a), d(b)) })
	return idx[:min(k, len(idx))]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestSparseInitial checks the starting arc set and plan: rows sorted by
// (cost, demand) without repeats and with exact costs, holding the nearK
// nearest demands of each supply and the nearK nearest supplies of each
// demand; the greedy plan ships every mass along arcs of the set, as a
// forest.
func TestSparseInitial(t *testing.T) {
	rng := rand.New(rand.NewPCG(67, 68))
	for trial := range 60 {
		s, n, m := randomSparse(rng, 30)
		lattice := trial%3 == 0 // equal costs: rows ordered by demand
		if lattice {
			s.sx, s.sy = randPoints(rng, n, true)
			s.dx, s.dy = randPoints(rng, m, true)
			s.sparse.sx, s.sparse.sy, s.sparse.dx, s.sparse.dy = s.sx, s.sy, s.dx, s.dy
		}
		sp := &s.sparse
		sp.initial(&s.net, s.sup, s.dem, nearK, nil, nil, nil)
		has := map[arcPair]bool{}
		for i := range n {
			for e := sp.start[i]; e < sp.start[i+1]; e++ {
				j := sp.head[e]
				if has[arcPair{int32(i), j}] {
					t.Fatalf("trial %d: arc %d -> %d twice", trial, i, j)
				}
				has[arcPair{int32(i), j}] = true
				if sp.cost[e] != sp.dist(i, int(j)) {
					t.Fatalf("trial %d: arc %d -> %d costs %v, distance %v", trial, i, j, sp.cost[e], sp.dist(i, int(j)))
				}
				if e > sp.start[i] && (sp.cost[e-1] > sp.cost[e] || sp.cost[e-1] == sp.cost[e] && sp.head[e-1] > j) {
					t.Fatalf("trial %d: row %d out of order at arc %d", trial, i, e)
				}
			}
			if lattice {
				continue // the nearest ones tie
			}
			for _, j := range nearestK(s.sx[i], s.sy[i], s.dx, s.dy, nearK) {
				if !has[arcPair{int32(i), int32(j)}] {
					t.Fatalf("trial %d: supply %d lacks its near demand %d", trial, i, j)
				}
			}
		}
		for j := range m {
			if lattice {
				break
			}
			for _, i := range nearestK(s.dx[j], s.dy[j], s.sx, s.sy, nearK) {
				if !has[arcPair{int32(i), int32(j)}] {
					t.Fatalf("trial %d: demand %d lacks its near supply %d", trial, j, i)
				}
			}
		}
		if sp.next != 0 || sp.nextRow != 0 || sp.block != max(16, int(math.Sqrt(float64(len(sp.head))))) {
			t.Fatalf("trial %d: pricing starts at %d (row %d), block %d", trial, sp.next, sp.nextRow, sp.block)
		}
		checkForestPlan(t, s.net.edges, s.sup, s.dem, func(i, j int) bool { return has[arcPair{int32(i), int32(j)}] })
	}
}

// checkForestPlan checks that edges ship sup onto dem (to rounding), along
// arcs ok accepts, with positive flows and exact costs, forming a forest.
func checkForestPlan(t *testing.T, edges []edge, sup, dem []float64, ok func(i, j int) bool) {
	t.Helper()
	n := len(sup)
	comp := make([]int, n+len(dem))
	for x := range comp {
		comp[x] = x
	}
	var find func(x int) int
	find = func(x int) int {
		if comp[x] != x {
			comp[x] = find(comp[x])
		}
		return comp[x]
	}
	out, in := make([]float64, n), make([]float64, len(dem))
	for _, e := range edges {
		if !ok(e.i, e.j) || !(e.f > 0) {
			t.Fatalf("plan arc %+v: not in the set or not positive", e)
		}
		out[e.i] += e.f
		in[e.j] += e.f
		a, b := find(e.i), find(n+e.j)
		if a == b {
			t.Fatalf("plan arc %+v closes a cycle", e)
		}
		comp[a] = b
	}
	for i := range sup {
		if math.Abs(out[i]-sup[i]) > 1e-12 {
			t.Fatalf("supply %d: ships %v of %v", i, out[i], sup[i])
		}
	}
	for j := range dem {
		if math.Abs(in[j]-dem[j]) > 1e-12 {
			t.Fatalf("demand %d: gets %v of %v", j, in[j], dem[j])
		}
	}
}

// TestSparseGreedyMatchesDense: from the full masses, the sparse solver's
// greedy over all arcs (finish), its greedy over a complete arc set
// (greedy) and the dense solver's start are the matrix-minimum plan found
// by brute force (distinct costs: no ties to break differently), edge for
// edge and in order.
func TestSparseGreedyMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(69, 70))
	for trial := range 60 {
		s, n, m := randomSparse(rng, 25)
		// Unequal totals: the greedy stops when one side has no mass
		// left, several nodes of the other side keeping theirs.
		for j := range s.dem {
			s.dem[j] *= []float64{1, 0.5, 2}[trial%3]
		}
		sp := &s.sparse
		sp.dtree.build(s.dx, s.dy, nil)
		rs, rd := slices.Clone(s.sup), slices.Clone(s.dem)
		s.net.edges = s.net.edges[:0]
		sp.finish(&s.net, rs, rd)
		got := slices.Clone(s.net.edges)
		var all []arcPair
		for i := range n {
			for j := range m {
				all = append(all, arcPair{int32(i), int32(j)})
			}
		}
		sp.setArcs(n, all)
		rs, rd = slices.Clone(s.sup), slices.Clone(s.dem)
		s.net.edges = s.net.edges[:0]
		sp.greedy(&s.net, rs, rd)
		got2 := slices.Clone(s.net.edges)
		if sp.finish(&s.net, rs, rd); len(s.net.edges) != len(got2) {
			t.Fatalf("trial %d: finish shipped after a complete greedy", trial)
		}
		cost := make([]float64, n*m)
		for e := range cost {
			cost[e] = sp.dist(e/m, e%m)
		}
		var d dense
		d.reset(n, m, cost)
		d.matrixMinimum(&s.net, s.sup, s.dem)
		want := s.net.edges
		ref := matrixMinimumRef(s.sup, s.dem, cost)
		for name, g := range map[string][]edge{"finish": got, "greedy": got2, "dense": want} {
			if !slices.Equal(g, ref) {
				t.Fatalf("trial %d: %s %v, brute force %v", trial, name, g, ref)
			}
		}
	}
}

// TestSparseSweep: a sweep adds, for each supply, exactly its addPerRow
// arcs of least reduced cost below -eps (brute force over all n*m arcs,
// with random potentials), after the arcs already in its row.
func TestSparseSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for trial := range 40 {
		s, n, m := randomSparse(rng, 20)
		sp := &s.sparse
		sp.stree.build(s.sx, s.sy, nil)
		sp.dtree.build(s.dx, s.dy, nil)
		var pairs []arcPair
		for i := range n {
			pairs = append(pairs, arcPair{int32(i), int32(rng.IntN(m))})
		}
		sp.setArcs(n, pairs)
		oldStart, oldHead := slices.Clone(sp.start), slices.Clone(sp.head)
		for x := range s.net.pi {
			s.net.pi[x] = rng.NormFloat64()
		}
		s.net.eps = 0.01
		sp.next, sp.nextRow = 3, 1
		added := sp.sweep(&s.net)
		total := 0
		for i := range n {
			var want []int
			for j := range m {
				if sp.dist(i, j)-s.net.pi[n+j] < -s.net.pi[i]-s.net.eps {
					want = append(want, j)
				}
			}
			key := func(j int) float64 { return sp.dist(i, j) - s.net.pi[n+j] }
			slices.SortFunc(want, func(a, b int) int { return cmpFloat(key(a), key(b)) })
			want = want[:min(addPerRow, len(want))]
			total += len(want)
			row := sp.head[sp.start[i]:sp.start[i+1]]
			old := oldHead[oldStart[i]:oldStart[i+1]]
			if !slices.Equal(row[:len(old)], old) || len(row) != len(old)+len(want) {
				t.Fatalf("trial %d supply %d: row %v, old arcs %v, adds %v", trial, i, row, old, want)
			}
			got := make([]int, 0, len(want))
			for k, j := range row[len(old):] {
				got = append(got, int(j))
				if c := sp.cost[sp.start[i]+len(old)+k]; c != sp.dist(i, int(j)) {
					t.Fatalf("trial %d: added arc %d -> %d costs %v", trial, i, j, c)
				}
			}
			slices.SortFunc(got, func(a, b int) int { return cmpFloat(key(a), key(b)) })
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d supply %d: added %v, want %v", trial, i, got, want)
			}
		}
		if added != total || sp.start[n] != len(sp.head) || len(sp.head) != len(oldHead)+total {
			t.Fatalf("trial %d: sweep says %d added, brute force %d, arcs %d of %d", trial, added, total, len(sp.head), sp.start[n])
		}
		if total > 0 && (sp.next != 0 || sp.nextRow != 0 || sp.block != max(16, int(math.Sqrt(float64(len(sp.head)))))) {
			t.Fatalf("trial %d: after adding arcs pricing resumes at %d (row %d), block %d", trial, sp.next, sp.nextRow, sp.block)
		}
	}
}

// TestObjective: the plan's cost is summed with compensation, so that
// terms cancelling at 1e16 do not swallow a unit (in either order).
func TestObjective(t *testing.T) {
	for _, costs := range [][]float64{{1e16, 1, -1e16}, {1, 1e16, -1e16}, {-1e16, 1e16, 1}} {
		var s network
		s.reset(3, 1, 0)
		root := 4
		for x, c := range costs {
			s.parent[x], s.acost[x], s.flow[x] = 3, c, 1
		}
		s.parent[3] = root
		if got := s.objective(); got != 1 {
			t.Errorf("costs %v: objective %v, want 1", costs, got)
		}
	}
}

// TestMaxPivotsExact: the cap allows exactly MaxPivots pivots.
func TestMaxPivotsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	x, y := gridPoints(6, 6)
	p, q := randDist(rng, len(x), false, false), randDist(rng, len(x), false, false)
	for _, path := range []int{pathDense, pathSparse} {
		s := Solver{path: path}
		free, err := s.SolveCommon(x, y, p, q)
		if err != nil || free.Pivots < 2 {
			t.Fatalf("path %d: %v after %d pivots", path, err, free.Pivots)
		}
		s.MaxPivots = free.Pivots
		if got, err := s.SolveCommon(x, y, p, q); err != nil || got.Cost != free.Cost {
			t.Errorf("path %d: cap %d: %v, %v; want %v", path, s.MaxPivots, got.Cost, err, free.Cost)
		}
		s.MaxPivots = free.Pivots - 1
		if got, err := s.SolveCommon(x, y, p, q); !errors.Is(err, ErrMaxPivots) || got.Pivots != s.MaxPivots {
			t.Errorf("path %d: cap %d: %v after %d pivots; want ErrMaxPivots", path, s.MaxPivots, err, got.Pivots)
		}
	}
}

// matrixMinimumRef is the matrix-minimum greedy by brute force: ship as
// much as possible along the cheapest arc between a supply and a demand
// that both have mass left, until one side has none.
func matrixMinimumRef(sup, dem, cost []float64) []edge {
	n, m := len(sup), len(dem)
	rs, rd := slices.Clone(sup), slices.Clone(dem)
	var plan []edge
	for {
		bi, bj := -1, -1
		for i := range n {
			for j := range m {
				if rs[i] > 0 && rd[j] > 0 && (bi < 0 || cost[i*m+j] < cost[bi*m+bj]) {
					bi, bj = i, j
				}
			}
		}
		if bi < 0 {
			return plan
		}
		f := min(rs[bi], rd[bj])
		plan = append(plan, edge{bi, bj, f, cost[bi*m+bj]})
		rs[bi] -= f
		rd[bj] -= f
	}
}

// TestPathDispatch: Euclidean problems with more than 2^18 arcs (after
// cancellation) go to the sparse solver, which reports its sweeps; the
// dense one reports none. A forced path is taken whatever the size.
func TestPathDispatch(t *testing.T) {
	// 512 supplies on the left half of a 32 x 32 grid, 512 demands on the
	// right: exactly 2^18 arcs. One more demand tips it over.
	x, y := gridPoints(32, 33)
	p, q := make([]float64, len(x)), make([]float64, len(x))
	for k := range x {
		switch {
		case y[k] < 16:
			p[k] = 1
		case y[k] < 32:
			q[k] = 1
		}
	}
	normalise(p)
	for _, c := range []struct {
		path, extra int
		sparse      bool
	}{{pathAuto, 0, false}, {pathAuto, 1, true}, {pathDense, 1, false}, {pathSparse, 0, true}} {
		qq := slices.Clone(q)
		if c.extra > 0 {
			qq[32] = 1 // (0, 32)
		}
		normalise(qq)
		s := Solver{path: c.path}
		res, err := s.SolveCommon(x, y, p, qq)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Sweeps > 0; got != c.sparse {
			t.Errorf("path %d, %d x %d arcs: %d sweeps", c.path, len(s.sup), len(s.dem), res.Sweeps)
		}
	}
}

// TestMaxArcs: coordinates spanning more than 1e150 need the dense
// matrix, whose size MaxArcs bounds, as it bounds Solve and NewPoints.
func TestMaxArcs(t *testing.T) {
	k := 11600 // k*k > 2^27
	ax, ay, a := make([]float64, k), make([]float64, k), make([]float64, k)
	bx, by, b := make([]float64, k), make([]float64, k), make([]float64, k)
	for i := range k {
		ax[i], a[i] = float64(i)*1e200, 1
		bx[i], by[i], b[i] = float64(i)*1e200, 1, 1
	}
	_, err := SolvePoints(ax, ay, a, bx, by, b)
	if err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Fatalf("SolvePoints: got %v, want an error about the arcs exceeding %d", err, MaxArcs)
	}
	// Checked before any cost is asked for.
	_, err = Solve(a, b, func(i, j int) float64 { panic("cost asked for") })
	if err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Fatalf("Solve: got %v, want an error about the arcs exceeding %d", err, MaxArcs)
	}
	if _, err := NewPoints(ax, ay); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Fatalf("NewPoints: got %v, want an error about the arcs exceeding %d", err, MaxArcs)
	}
}

// TestGrow: grow reuses the storage whenever it is large enough.
func TestGrow(t *testing.T) {
	s := make([]int, 2, 5)
	for _, n := range []int{0, 3, 5} {
		if g := grow(s, n); len(g) != n || cap(g) != 5 || &g[:1][0] != &s[:1][0] {
			t.Errorf("grow to %d: len %d cap %d, a new array: %v", n, len(g), cap(g), &g[:1][0] != &s[:1][0])
		}
	}
	if g := grow(s, 6); len(g) != 6 || &g[0] == &s[:1][0] {
		t.Errorf("grow to 6: len %d, same array %v", len(g), &g[0] == &s[:1][0])
	}
}

// TestSparseGreedyTies: supplies whose cheapest arcs cost the same ship
// in the order of their indices (the heaps break ties by index), as the
// brute-force matrix minimum does. Each supply has its own three demands
// at distances 1, 2 and 3, so every step ties across supplies but never
// within one; supply indices are shuffled against the positions.
func TestSparseGreedyTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	for trial := range 10 {
		k := 2 + trial
		var s Solver
		s.sx, s.sy = make([]float64, k), make([]float64, k)
		s.sup = make([]float64, k)
		for i, c := range rng.Perm(k) {
			s.sx[i], s.sup[i] = float64(10*c), 1
		}
		for _, c := range rng.Perm(k) {
			x := float64(10 * c)
			s.dx, s.dy = append(s.dx, x+1, x, x+3), append(s.dy, 0, 2, 0)
			s.dem = append(s.dem, 1.0/3, 1.0/3, 1.0/3)
		}
		n, m := k, 3*k
		sp := &s.sparse
		sp.sx, sp.sy, sp.dx, sp.dy = s.sx, s.sy, s.dx, s.dy
		s.net.reset(n, m, 0)
		cost := make([]float64, n*m)
		for e := range cost {
			cost[e] = sp.dist(e/m, e%m)
		}
		ref := matrixMinimumRef(s.sup, s.dem, cost)
		sp.dtree.build(s.dx, s.dy, nil)
		s.net.edges = s.net.edges[:0]
		sp.finish(&s.net, slices.Clone(s.sup), slices.Clone(s.dem))
		if !slices.Equal(s.net.edges, ref) {
			t.Fatalf("trial %d: finish %v, brute force %v", trial, s.net.edges, ref)
		}
		var all []arcPair
		for i := range n {
			for j := range m {
				all = append(all, arcPair{int32(i), int32(j)})
			}
		}
		sp.setArcs(n, all)
		s.net.edges = s.net.edges[:0]
		sp.greedy(&s.net, slices.Clone(s.sup), slices.Clone(s.dem))
		if !slices.Equal(s.net.edges, ref) {
			t.Fatalf("trial %d: greedy %v, brute force %v", trial, s.net.edges, ref)
		}
	}
}

// TestLocalSweep: after an optimum over a small arc set, a local sweep
// adds for each supply exactly its (at most addPerRow) arcs of least
// reduced cost below -eps among the demands that the basis joins to it or
// to one of its localK nearest supplies and their localK nearest demands,
// and for each demand likewise from the other side; each arc once, after
// the arcs already in its row (brute force over those definitions). Up to
// 40 supplies and demands, and in ten more trials up to 100 (where the
// candidates of one node are not all those of the ones before it).
func TestLocalSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	total := 0
	for trial := range 40 {
		s, n, m := randomSparse(rng, 40+60*(trial/30))
		sp := &s.sparse
		s.net.et = &s.tour
		sp.initial(&s.net, s.sup, s.dem, 1, nil, nil, nil)
		s.net.buildTree()
		if _, err := s.net.run(sp, 0, DefaultMaxPivots(n, m)); err != nil {
			t.Fatal(err)
		}
		net := &s.net
		oldStart, oldHead := slices.Clone(sp.start), slices.Clone(sp.head)
		near := func(x, y []float64, k int) []int {
			others := nearestK(x[k], y[k], x, y, localK+1)
			out := slices.DeleteFunc(slices.Clone(others), func(q int) bool { return q == k })
			return out[:min(localK, len(out))]
		}
		partS, partD := make([][]int, n), make([][]int, m)
		for x := range n + m {
			if i, j, real := net.arcOf(x); real {
				partS[i], partD[j] = append(partS[i], j), append(partD[j], i)
			}
		}
		rc := func(i, j int) float64 { return sp.dist(i, j) + net.pi[i] - net.pi[n+j] }
		best := func(cands map[int]bool, key func(int) float64) []int {
			var out []int
			for c := range cands {
				if key(c) < -net.eps {
					out = append(out, c)
				}
			}
			slices.SortFunc(out, func(a, b int) int { return cmpFloat(key(a), key(b)) })
			return out[:min(addPerRow, len(out))]
		}
		want := map[arcPair]bool{}
		for i := range n {
			cands := map[int]bool{}
			for _, i2 := range append(near(s.sx, s.sy, i), i) {
				for _, j2 := range partS[i2] {
					cands[j2] = true
					for _, j := range near(s.dx, s.dy, j2) {
						cands[j] = true
					}
				}
			}
			for _, j := range best(cands, func(j int) float64 { return rc(i, j) }) {
				want[arcPair{int32(i), int32(j)}] = true
			}
		}
		for j := range m {
			cands := map[int]bool{}
			for _, j2 := range append(near(s.dx, s.dy, j), j) {
				for _, i2 := range partD[j2] {
					cands[i2] = true
					for _, i := range near(s.sx, s.sy, i2) {
						cands[i] = true
					}
				}
			}
			for _, i := range best(cands, func(i int) float64 { return rc(i, j) }) {
				want[arcPair{int32(i), int32(j)}] = true
			}
		}
		added := sp.localSweep(net)
		got := map[arcPair]bool{}
		for i := range n {
			row := sp.head[sp.start[i]:sp.start[i+1]]
			old := oldHead[oldStart[i]:oldStart[i+1]]
			if !slices.Equal(row[:len(old)], old) {
				t.Fatalf("trial %d supply %d: row %v does not start with the old arcs %v", trial, i, row, old)
			}
			for k, j := range row[len(old):] {
				p := arcPair{int32(i), j}
				if got[p] || slices.Contains(old, j) {
					t.Fatalf("trial %d: arc %v added twice or again", trial, p)
				}
				got[p] = true
				if c := sp.cost[sp.start[i]+len(old)+k]; c != sp.dist(i, int(j)) {
					t.Fatalf("trial %d: added arc %v costs %v", trial, p, c)
				}
			}
		}
		if added != len(got) || len(got) != len(want) {
			t.Fatalf("trial %d: %d said added, %d added, %d wanted", trial, added, len(got), len(want))
		}
		total += added
		for p := range want {
			if !got[p] {
				t.Fatalf("trial %d: arc %v not added", trial, p)
			}
		}
	}
	if total < 30 {
		t.Fatalf("%d arcs added in all: the cases test little", total)
	}
}

// TestNeighbours: each point's row holds the localK nearest other points
// (brute force, compared by distance: ties may pick either), the point
// itself filling in where there are fewer, also when more than localK
// other points share its place (then the search may not return the point
// itself).
func TestNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(113, 114))
	for trial := range 20 {
		k := 1 + rng.IntN(40)
		x, y := randPoints(rng, k, trial%2 == 0)
		if trial%4 < 2 { // localK+3 points more on one of them
			at := rng.IntN(k)
			for range localK + 3 {
				x, y = append(x, x[at]), append(y, y[at])
			}
		}
		var s sparse
		var tr kdTree
		tr.build(x, y, nil)
		got := s.neighbours(nil, &tr, x, y)
		if len(got) != len(x)*localK {
			t.Fatalf("trial %d: %d entries for %d points", trial, len(got), len(x))
		}
		for p := range x {
			row := got[p*localK : (p+1)*localK]
			var want, have []float64
			for q := range x {
				if q != p {
					want = append(want, math.Hypot(x[q]-x[p], y[q]-y[p]))
				}
			}
			slices.Sort(want)
			want = want[:min(localK, len(want))]
			seen := map[int32]bool{}
			for c, q := range row {
				if int(q) == p {
					if c < len(want) {
						t.Fatalf("trial %d: point %d lists itself among %d others", trial, p, len(x)-1)
					}
					continue
				}
				if seen[q] {
					t.Fatalf("trial %d: point %d lists %d twice", trial, p, q)
				}
				seen[q] = true
				have = append(have, math.Hypot(x[q]-x[p], y[q]-y[p]))
			}
			slices.Sort(have)
			if !slices.Equal(have, want) {
				t.Fatalf("trial %d: point %d's neighbours at %v, nearest %v", trial, p, have, want)
			}
		}
	}
}

// TestSparseGreedyKeyed: with keys ku and kv, the greedy over a complete
// arc set is the matrix-minimum plan on the costs c + ku[i] - kv[j] (brute
// force), shipping along arcs of their true costs; rows are ordered by
// c - kv[j].
func TestSparseGreedyKeyed(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	for trial := range 40 {
		s, n, m := randomSparse(rng, 20)
		sp := &s.sparse
		ku, kv := make([]float64, n), make([]float64, m)
		for i := range ku {
			ku[i] = 0.3 * rng.NormFloat64()
		}
		for j := range kv {
			kv[j] = 0.3 * rng.NormFloat64()
		}
		var all []arcPair
		for i := range n {
			for j := range m {
				all = append(all, arcPair{int32(i), int32(j)})
			}
		}
		sp.ku, sp.kv = ku, kv
		sp.setArcs(n, all)
		for i := range n {
			for e := sp.start[i] + 1; e < sp.start[i+1]; e++ {
				if a, b := sp.cost[e-1]-kv[sp.head[e-1]], sp.cost[e]-kv[sp.head[e]]; a > b {
					t.Fatalf("trial %d: row %d out of key order at arc %d", trial, i, e)
				}
			}
		}
		rs, rd := slices.Clone(s.sup), slices.Clone(s.dem)
		s.net.edges = s.net.edges[:0]
		sp.greedy(&s.net, rs, rd)
		got := slices.Clone(s.net.edges)
		keyed := make([]float64, n*m)
		for e := range keyed {
			keyed[e] = sp.dist(e/m, e%m) + ku[e/m] - kv[e%m]
		}
		want := matrixMinimumRef(s.sup, s.dem, keyed)
		for k := range want {
			want[k].c = sp.dist(want[k].i, want[k].j)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: greedy %v, brute force %v", trial, got, want)
		}
	}
}
