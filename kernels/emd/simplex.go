package emd

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// ErrMaxPivots is returned (wrapped) when the simplex does not reach an
// optimum within the pivot cap.
var ErrMaxPivots = errors.New("emd: pivot limit reached")

// errNumeric reports a numerical breakdown of the simplex (an arc of the
// basis priced as improving right after the potentials were rebuilt).
var errNumeric = errors.New("emd: numerical breakdown in the network simplex")

// pricingTol is the relative reduced-cost tolerance: an arc may enter only if
// its reduced cost is below -pricingTol*max|cost|. Rounding in the
// potentials is many orders of magnitude smaller, so basic arcs (reduced
// cost zero up to rounding) are never picked, and the final plan is within
// pricingTol*max|cost|*mass of the optimum.
const pricingTol = 1e-12

// network is the basis of the transportation simplex on n supplies and m
// demands. Nodes 0..n-1 are supplies, n..n+m-1 demands and n+m the
// artificial root. Every non-root node x owns the basic arc joining it to
// parent[x]: a real arc between a supply and a demand, of cost acost[x],
// or, when parent[x] is the root, the artificial arc root -> x, which never
// carries flow. Non-basic arcs all carry zero flow (the arcs are
// uncapacitated), so flows are stored per node and the basis never refers
// to how the non-basic arcs are stored: a pricer (dense matrix or sparse
// arc list) proposes entering arcs by their end points and cost.
//
// Potentials satisfy c + pi[i] - pi[n+j] = 0 on basic real arcs i -> j and
// pi[x] = pi[root] = 0 on artificial ones; an arc improves when that reduced
// cost is negative.
//
// The tree is kept in one of two forms. The dense solver's (et == nil)
// threads the nodes in preorder with their depths (tn, rev) and stores the
// potentials in pi; a pivot updates every node of the subtree it moves.
// The sparse solver's (et != nil) is an Euler tour in blocks (see etour):
// the potential of node x is then pi[x] plus its block's shift, and a
// pivot costs about a block plus one shift per block of the moved subtree.
// Both forms pivot alike, so they differ only in rounding.
type network struct {
	n, m   int
	eps    float64 // entering threshold: reduced cost < -eps
	parent []int
	acost  []float64 // cost of the basic arc of each node (0 if artificial)
	flow   []float64
	pi     []float64
	tn     []tnode         // preorder successor and depth of each node
	rev    []int           // preorder predecessor
	et     *etour          // the Euler tour form (then tn and rev are unused)
	ctx    context.Context // Solver.Context (nil: never stops early)

	// Workspace for buildTree and pivots.
	stem, last, pre, post []int
	edges                 []edge
	deg, adj, adjEdge     []int
	order                 []int
}

// tnode is a node's place in the preorder thread (its successor) and its
// depth, kept side by side because the subtree walks of rehang read both.
type tnode struct{ next, depth int }

// edge is an arc of a starting plan: f units from supply i to demand j at
// cost c per unit.
type edge struct {
	i, j int
	f, c float64
}

// pricer proposes entering arcs: supply i, demand j and the arc's cost c,
// with reduced cost c + pi[i] - pi[n+j] below -eps, or i < 0 when it finds
// none.
type pricer interface {
	price(s *network) (i, j int, c float64)
}

// grow returns s resized to n, reusing its storage when possible.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// reset sizes the network for n supplies and m demands whose costs are at
// most maxc in absolute value.
func (s *network) reset(n, m int, maxc float64) {
	s.n, s.m = n, m
	N := n + m + 1
	s.parent = grow(s.parent, N)
	s.acost = grow(s.acost, N)
	s.flow = grow(s.flow, N)
	s.pi = grow(s.pi, N)
	s.tn = grow(s.tn, N)
	s.rev = grow(s.rev, N)
	s.stem = grow(s.stem, N)
	s.last = grow(s.last, N)
	s.pre = grow(s.pre, N)
	s.post = grow(s.post, N)
	s.order = grow(s.order, N)
	s.eps = pricingTol * maxc
}

// buildTree turns the forest s.edges (a greedy plan: every greedy step
// exhausts a supply or a demand, so its positive arcs form a forest) into
// the basis: parent pointers, arcs, flows, preorder thread, depths and
// potentials. Each tree of the forest hangs from the root by an
// artificial arc pointing away from the root with zero flow, and all real
// basic arcs carry positive flow, so the basis is strongly feasible.
func (s *network) buildTree() {
	n, m := s.n, s.m
	N := n + m
	root := N
	// Adjacency of the forest in CSR form.
	s.deg = grow(s.deg, N+1)
	clear(s.deg)
	for _, e := range s.edges {
		s.deg[e.i+1]++
		s.deg[n+e.j+1]++
	}
	for x := 1; x <= N; x++ {
		s.deg[x] += s.deg[x-1]
	}
	s.adj = grow(s.adj, 2*len(s.edges))
	s.adjEdge = grow(s.adjEdge, 2*len(s.edges))
	fill := s.last[:N] // reused as per-node fill cursors
	copy(fill, s.deg[:N])
	for k, e := range s.edges {
		u, v := e.i, n+e.j
		s.adj[fill[u]], s.adjEdge[fill[u]] = v, k
		fill[u]++
		s.adj[fill[v]], s.adjEdge[fill[v]] = u, k
		fill[v]++
	}
	// Depth-first preorder from the root; each forest component hangs from
	// the root by an artificial arc. parent doubles as the visited mark.
	for x := range s.parent {
		s.parent[x] = -1
	}
	order := s.order[:0]
	order = append(order, root)
	s.parent[root] = root
	s.acost[root], s.flow[root], s.pi[root], s.tn[root].depth = 0, 0, 0, 0
	stack := s.stem[:0]
	for r := range N {
		if s.parent[r] >= 0 {
			continue
		}
		s.parent[r], s.acost[r], s.flow[r] = root, 0, 0
		stack = append(stack, r)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			order = append(order, x)
			for k := s.deg[x]; k < s.deg[x+1]; k++ {
				y := s.adj[k]
				if s.parent[y] >= 0 {
					continue
				}
				e := s.edges[s.adjEdge[k]]
				s.parent[y], s.acost[y], s.flow[y] = x, e.c, e.f
				stack = append(stack, y)
			}
		}
	}
	if s.et != nil {
		s.et.build(s.parent)
		s.refresh()
		return
	}
	for k, x := range order {
		nx := order[(k+1)%len(order)]
		s.tn[x].next = nx
		s.rev[nx] = x
	}
	s.refresh()
}

// refresh recomputes depths and potentials from scratch along the thread
// (or the tour), removing the rounding drift that accumulates in subtree
// shifts.
func (s *network) refresh() {
	if s.et != nil {
		s.etRefresh()
		return
	}
	n, m := s.n, s.m
	root := n + m
	s.pi[root], s.tn[root].depth = 0, 0
	for x := s.tn[root].next; x != root; x = s.tn[x].next {
		p := s.parent[x]
		s.tn[x].depth = s.tn[p].depth + 1
		switch {
		case p == root:
			s.pi[x] = s.pi[root]
		case x < n: // supply x -> demand p
			s.pi[x] = s.pi[p] - s.acost[x]
		default: // supply p -> demand x
			s.pi[x] = s.pi[p] + s.acost[x]
		}
	}
}

// isBasic reports whether the real arc from supply i to demand j is in the
// basis tree (the root is neither end, so no artificial arc matches).
func (s *network) isBasic(i, j int) bool {
	l := s.n + j
	return s.parent[i] == l || s.parent[l] == i
}

// pivot brings the non-basic arc from supply i to demand j, of cost c and
// negative reduced cost, into the basis.
func (s *network) pivot(i, j int, c float64) {
	n := s.n
	root := n + s.m
	k, l := i, n+j
	parent, flow := s.parent, s.flow
	var rc float64
	var join int // apex of the cycle closed by the arc
	if s.et != nil {
		rc = c + s.pot(k) - s.pot(l)
		join = s.apexMarks(k, l)
	} else {
		rc = c + s.pi[k] - s.pi[l]
		join = s.apexDepth(k, l)
	}

	// Flow goes k -> l, up from l to the apex and down from the apex to k.
	// Arcs pointing against that direction block: on k's side a supply's
	// arc to its parent demand, on l's side a demand's arc from its parent
	// supply and any artificial arc (root -> x points down).
	//
	// Anti-cycling (Cunningham's strongly feasible trees): the basis keeps
	// every arc with zero flow pointing away from the root, so that some
	// flow can reach every node from the root along the tree. Of the
	// blocking arcs with the least flow, the leaving arc is the first one
	// met when walking the cycle from the apex in the entering arc's
	// direction: down k's side (the one nearest the apex: <= walking up
	// from k, and k's side wins ties), else up l's side (the one nearest l:
	// < walking up from l). Then the new basis keeps that property, and no
	// basis repeats on degenerate pivots.
	// Some arc always blocks: unless l is the apex, l's own arc (from its
	// parent supply, or from the root) points down on l's side; if l is
	// the apex, k lies below it, so k's parent is a demand and k's arc to
	// it points up on k's side.
	delta := math.Inf(1)
	var out int
	var outOnL bool
	for x := l; x != join; x = parent[x] {
		if x >= n || parent[x] == root { // parent -> x: against the flow
			if f := flow[x]; f < delta {
				delta, out, outOnL = f, x, true
			}
		}
	}
	for x := k; x != join; x = parent[x] {
		if x < n && parent[x] != root { // x -> parent: against the flow
			if f := flow[x]; f <= delta {
				delta, out, outOnL = f, x, false
			}
		}
	}
	for x := k; x != join; x = parent[x] { // (delta may be 0: degenerate)
		if x < n && parent[x] != root {
			flow[x] -= delta
		} else {
			flow[x] += delta
		}
	}
	for x := l; x != join; x = parent[x] {
		if x >= n || parent[x] == root {
			flow[x] -= delta
		} else {
			flow[x] += delta
		}
	}

	// The leaving arc cuts off the subtree of out; it is re-hung from the
	// entering arc: uIn (inside it) becomes its root, attached to vIn.
	uIn, vIn, sigma := k, l, -rc
	if outOnL {
		uIn, vIn, sigma = l, k, rc
	}
	if s.et != nil {
		s.etRehang(uIn, vIn, out, c, delta, sigma)
	} else {
		s.rehang(uIn, vIn, out, c, delta, sigma)
	}
}

// apexDepth is the apex of the cycle that arc k - l closes, by depths: the
// deeper end walks up until the two meet.
func (s *network) apexDepth(k, l int) int {
	parent, tn := s.parent, s.tn
	u, v := k, l
	for u != v {
		switch {
		case tn[u].depth > tn[v].depth:
			u = parent[u]
		case tn[v].depth > tn[u].depth:
			v = parent[v]
		default:
			u, v = parent[u], parent[v]
		}
	}
	return u
}

// rehang re-roots the subtree of q at its descendant u (the stem
// u = s_1, ..., s_t = q reverses), hangs it under v by a real arc of cost c
// with flow f, and shifts its potentials by sigma.
//
// Thread update: in the old preorder the subtree of every s_i is a
// contiguous segment containing that of s_{i-1}. The new preorder of the
// re-rooted subtree is: the old subtree of s_1, then for i = 2..t the part
// of s_i's old subtree before s_{i-1}'s (A_i, which starts with s_i) and the
// part after it (B_i, possibly empty). Each piece keeps its internal links,
// so only piece ends are relinked.
func (s *network) rehang(u, v, q int, c, f, sigma float64) {
	tn, rev, parent := s.tn, s.rev, s.parent
	stem := s.stem[:0]
	for x := u; ; x = parent[x] {
		stem = append(stem, x)
		if x == q {
			break
		}
	}
	t := len(stem)
	last, pre, post := s.last[:t], s.pre[:t], s.post[:t]
	// Old subtree ends, nested: walk on from the previous end.
	x := stem[0]
	for i, si := range stem {
		ds := tn[si].depth
		for {
			nx := tn[x].next
			if tn[nx].depth <= ds {
				break
			}
			x = nx
		}
		last[i] = x
		pre[i] = rev[si]
		post[i] = tn[x].next
	}
	before, after := pre[t-1], post[t-1]

	// Link the pieces in their new order.
	cur := last[0]
	for i := 1; i < t; i++ {
		si := stem[i]
		tn[cur].next, rev[si] = si, cur
		cur = pre[i-1]
		if last[i] != last[i-1] {
			b := post[i-1]
			tn[cur].next, rev[b] = b, cur
			cur = last[i]
		}
	}
	newLast := cur

	// Cut the subtree out of the thread and splice it in right after v.
	tn[before].next, rev[after] = after, before
	nx := tn[v].next
	tn[v].next, rev[u] = u, v
	tn[newLast].next, rev[nx] = nx, newLast

	// Reverse the stem: s_i inherits the arc (and flow) that joined s_{i-1}
	// to it, a real arc since both ends lie below the root.
	for i := t - 1; i > 0; i-- {
		si, sp := stem[i], stem[i-1]
		parent[si] = sp
		s.acost[si] = s.acost[sp]
		s.flow[si] = s.flow[sp]
	}
	parent[u], s.acost[u], s.flow[u] = v, c, f

	// Potentials shift uniformly. Depths shift by one amount per piece:
	// s_i moves to depth depth[v] + i and its pieces move with it (read
	// its old depth before its piece is shifted).
	pi, base := s.pi, tn[v].depth+1
	shift := func(from, to, d int) {
		for x := from; ; x = tn[x].next {
			tn[x].depth += d
			pi[x] += sigma
			if x == to {
				break
			}
		}
	}
	shift(u, last[0], base-tn[u].depth)
	for i := 1; i < t; i++ {
		si := stem[i]
		d := base + i - tn[si].depth
		shift(si, pre[i-1], d)
		if last[i] != last[i-1] {
			shift(post[i-1], last[i], d)
		}
	}
}

// stopCheck masks the pivot counts at which run checks the context.
const stopCheck = 1<<10 - 1

// run pivots to optimality over the arcs pr prices, at most maxPivots
// times in all (pivots counts those already done), and returns the new
// pivot count.
func (s *network) run(pr pricer, pivots, maxPivots int) (int, error) {
	fresh := true // potentials rebuilt since the last pivot
	for {
		i, j, c := pr.price(s)
		if i < 0 {
			if fresh {
				return pivots, nil
			}
			// Confirm optimality against drift-free potentials.
			s.refresh()
			fresh = true
			continue
		}
		if s.isBasic(i, j) {
			if fresh {
				return pivots, fmt.Errorf("%w: basic arc priced at %g", errNumeric, c+s.potential(i)-s.potential(s.n+j))
			}
			s.refresh()
			fresh = true
			continue
		}
		if pivots >= maxPivots {
			return pivots, fmt.Errorf("%w (%d pivots on %d x %d)", ErrMaxPivots, pivots, s.n, s.m)
		}
		if pivots&stopCheck == 0 && s.ctx != nil {
			if err := s.ctx.Err(); err != nil {
				return pivots, fmt.Errorf("emd: stopped after %d pivots on %d x %d: %w", pivots, s.n, s.m, err)
			}
		}
		s.pivot(i, j, c)
		pivots++
		fresh = false
	}
}

// potential is the potential of node x, in either form of the tree.
func (s *network) potential(x int) float64 {
	if s.et != nil {
		return s.pot(x)
	}
	return s.pi[x]
}

// objective is the cost of the current plan (compensated sum).
func (s *network) objective() float64 {
	root := s.n + s.m
	sum, comp := 0.0, 0.0
	for x := range root {
		if s.parent[x] != root {
			v := s.flow[x] * s.acost[x]
			t := sum + v
			if math.Abs(sum) >= math.Abs(v) {
				comp += (sum - t) + v
			} else {
				comp += (v - t) + sum
			}
			sum = t
		}
	}
	return sum + comp
}

// arcOf returns the supply and demand of node x's basic arc (x not the
// root), and whether it is a real arc.
func (s *network) arcOf(x int) (i, j int, real bool) {
	p := s.parent[x]
	if p == s.n+s.m {
		return 0, 0, false
	}
	if x < s.n {
		return x, p - s.n, true
	}
	return p, x - s.n, true
}
