package emd

import (
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

// network is the state of the transportation simplex on n supplies and m
// demands. Nodes 0..n-1 are supplies, n..n+m-1 demands and n+m the
// artificial root. Every non-root node x owns the basic arc joining it to
// parent[x]: arc[x] = i*m+j for the real arc supply i -> demand j, or -1 for
// the artificial arc root -> x, which never carries flow. Non-basic arcs all
// carry zero flow (the arcs are uncapacitated), so flows are stored per node
// and no n*m flow array exists.
//
// Potentials satisfy cost[i*m+j] + pi[i] - pi[n+j] = 0 on basic real arcs and
// pi[x] = pi[root] = 0 on artificial ones; an arc improves when that reduced
// cost is negative.
type network struct {
	n, m   int
	cost   []float64 // n*m, row-major
	eps    float64   // entering threshold: reduced cost < -eps
	parent []int
	arc    []int
	flow   []float64
	pi     []float64
	depth  []int
	thread []int // preorder successor (circular, starting at the root)
	rev    []int // preorder predecessor

	next  int // pricing resumes at this arc
	block int // arcs per pricing block

	// Workspace for initial plan and pivots.
	stem, last, pre, post []int
	resid                 []float64
	active                []int
	edges                 []edge
	deg, adj, adjEdge     []int
	order                 []int
	heap                  []int
	hkey                  []float64
	hbest                 []int
}

type edge struct {
	i, j int
	f    float64
}

// grow returns s resized to n, reusing its storage when possible.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// reset sizes the network for n supplies and m demands with costs cost
// (n*m, kept by reference) whose largest absolute value is maxc.
func (s *network) reset(n, m int, cost []float64, maxc float64) {
	s.n, s.m, s.cost = n, m, cost
	N := n + m + 1
	s.parent = grow(s.parent, N)
	s.arc = grow(s.arc, N)
	s.flow = grow(s.flow, N)
	s.pi = grow(s.pi, N)
	s.depth = grow(s.depth, N)
	s.thread = grow(s.thread, N)
	s.rev = grow(s.rev, N)
	s.stem = grow(s.stem, N)
	s.last = grow(s.last, N)
	s.pre = grow(s.pre, N)
	s.post = grow(s.post, N)
	s.order = grow(s.order, N)
	s.eps = pricingTol * maxc
	s.next = 0
	s.block = int(math.Sqrt(float64(n * m)))
	if s.block < 16 {
		s.block = 16
	}
}

// initial builds a greedy feasible plan (matrixMinimum) and the basis tree
// from it. Every greedy step exhausts a supply or a demand, so the positive arcs
// form a forest; each of its trees hangs from the root by an artificial arc
// pointing away from the root with zero flow, and all real basic arcs carry
// positive flow, so the tree is strongly feasible.
func (s *network) initial(supply, demand []float64) {
	s.matrixMinimum(supply, demand)
	s.buildTree()
}

// matrixMinimum is the greedy start: repeatedly ship as much as possible
// along the cheapest arc between a supply and a demand that both have mass
// left. Each supply's cheapest live demand sits in a binary heap keyed by
// that cost; entries made stale by an exhausted demand are refreshed lazily
// when they reach the top. On grid problems this start needs about a third
// of the pivots of a row-by-row greedy start.
func (s *network) matrixMinimum(supply, demand []float64) {
	n, m := s.n, s.m
	s.resid = grow(s.resid, n+m)
	rs, rd := s.resid[:n], s.resid[n:n+m]
	copy(rs, supply)
	copy(rd, demand)
	// live demands, compact, with positions for O(1) removal
	s.active = grow(s.active, 2*m)
	act, pos := s.active[:m], s.active[m:2*m]
	for j := range act {
		act[j], pos[j] = j, j
	}
	nact := m
	s.hkey = grow(s.hkey, n)
	s.hbest = grow(s.hbest, n)
	heap := s.heap[:0]
	scan := func(i int) {
		row := s.cost[i*m : (i+1)*m]
		bj := act[0]
		bc := row[bj]
		for _, j := range act[1:nact] {
			if c := row[j]; c < bc {
				bc, bj = c, j
			}
		}
		s.hkey[i], s.hbest[i] = bc, bj
	}
	key := s.hkey
	up := func(k int) {
		for k > 0 {
			p := (k - 1) / 2
			if key[heap[p]] <= key[heap[k]] {
				break
			}
			heap[p], heap[k] = heap[k], heap[p]
			k = p
		}
	}
	down := func(k int) {
		h := len(heap)
		for {
			c := 2*k + 1
			if c >= h {
				return
			}
			if c+1 < h && key[heap[c+1]] < key[heap[c]] {
				c++
			}
			if key[heap[k]] <= key[heap[c]] {
				return
			}
			heap[k], heap[c] = heap[c], heap[k]
			k = c
		}
	}
	for i := 0; i < n; i++ {
		scan(i)
		heap = append(heap, i)
		up(len(heap) - 1)
	}
	s.edges = s.edges[:0]
	for len(heap) > 0 && nact > 0 {
		i := heap[0]
		j := s.hbest[i]
		if pos[j] < 0 {
			scan(i)
			down(0)
			continue
		}
		f := min(rs[i], rd[j])
		s.edges = append(s.edges, edge{i, j, f})
		rs[i] -= f
		rd[j] -= f
		if rd[j] <= 0 {
			p := pos[j]
			last := act[nact-1]
			act[p], pos[last] = last, p
			pos[j] = -1
			nact--
		}
		if rs[i] <= 0 {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
			down(0)
		} else if nact > 0 {
			scan(i)
			down(0)
		}
	}
	s.heap = heap
}

// buildTree turns the forest s.edges into the basis: parent pointers, arcs,
// flows, preorder thread, depths and potentials.
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
	s.arc[root], s.flow[root], s.pi[root], s.depth[root] = -1, 0, 0, 0
	stack := s.stem[:0]
	for r := 0; r < N; r++ {
		if s.parent[r] >= 0 {
			continue
		}
		s.parent[r], s.arc[r], s.flow[r] = root, -1, 0
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
				s.parent[y], s.arc[y], s.flow[y] = x, e.i*m+e.j, e.f
				stack = append(stack, y)
			}
		}
	}
	for k, x := range order {
		nx := order[(k+1)%len(order)]
		s.thread[x] = nx
		s.rev[nx] = x
	}
	s.refresh()
}

// refresh recomputes depths and potentials from scratch along the thread,
// removing the rounding drift that accumulates in subtree shifts.
func (s *network) refresh() {
	n, m := s.n, s.m
	root := n + m
	s.pi[root], s.depth[root] = 0, 0
	for x := s.thread[root]; x != root; x = s.thread[x] {
		p := s.parent[x]
		s.depth[x] = s.depth[p] + 1
		switch e := s.arc[x]; {
		case e < 0:
			s.pi[x] = s.pi[root]
		case x < n: // supply x -> demand p
			s.pi[x] = s.pi[p] - s.cost[e]
		default: // supply p -> demand x
			s.pi[x] = s.pi[p] + s.cost[e]
		}
	}
}

// price returns an arc with reduced cost < -eps by block search: arcs are
// scanned row by row from where the last search stopped and, after each
// block, the most negative arc seen so far is returned. It returns -1 when a
// full sweep finds none.
func (s *network) price() int {
	n, m := s.n, s.m
	total := n * m
	piD := s.pi[n : n+m]
	best := -s.eps
	bestArc := -1
	i, j := s.next/m, s.next%m
	inBlock := 0
	for scanned := 0; scanned < total; {
		lim := m
		if rem := s.block - inBlock; j+rem < m {
			lim = j + rem
		}
		row := s.cost[i*m+j : i*m+lim]
		d := piD[j:lim]
		// Compare cost - piD against best - pi[i] to keep the loop to one
		// subtraction per arc.
		thr, bk := argminBelow(row, d, best-s.pi[i])
		if bk >= 0 {
			best = thr + s.pi[i]
			bestArc = i*m + j + bk
		}
		cnt := lim - j
		scanned += cnt
		inBlock += cnt
		if lim == m {
			j = 0
			if i++; i == n {
				i = 0
			}
		} else {
			j = lim
		}
		if inBlock >= s.block {
			if bestArc >= 0 {
				s.next = i*m + j
				return bestArc
			}
			inBlock = 0
		}
	}
	if bestArc >= 0 {
		s.next = i*m + j
	}
	return bestArc
}

// argminBelow returns the smallest row[k]-d[k] that is below thr, and its
// k, or (thr, -1) if there is none. It is the pricing hot loop. Improvements
// are rare once a block is under way, so a pre-scan (scanBelow: vector
// instructions where the CPU has them) skips to the next group of four
// entries holding one below the current threshold, and that group is
// settled in order with the same scalar comparisons; the result is the
// same as a plain loop's. Kept out of line so that its loop variables stay
// in registers.
//
//go:noinline
func argminBelow(row, d []float64, thr float64) (float64, int) {
	d = d[:len(row)]
	bk := -1
	n4 := len(row) &^ 3
	for k := scanBelow(row, d, 0, n4, thr); k < n4; k = scanBelow(row, d, k+4, n4, thr) {
		for i := k; i < k+4; i++ {
			if r := row[i] - d[i]; r < thr {
				thr, bk = r, i
			}
		}
	}
	for k := n4; k < len(row); k++ {
		if r := row[k] - d[k]; r < thr {
			thr, bk = r, k
		}
	}
	return thr, bk
}

// scanBelowGo is the portable scanBelow: row, d, k and n4 as there.
func scanBelowGo(row, d []float64, k, n4 int, thr float64) int {
	for ; k < n4; k += 4 {
		r0 := row[k] - d[k]
		r1 := row[k+1] - d[k+1]
		r2 := row[k+2] - d[k+2]
		r3 := row[k+3] - d[k+3]
		if r0 < thr || r1 < thr || r2 < thr || r3 < thr {
			return k
		}
	}
	return n4
}

// isBasic reports whether real arc e is in the basis tree.
func (s *network) isBasic(e int) bool {
	return s.arc[e/s.m] == e || s.arc[s.n+e%s.m] == e
}

// pivot brings non-basic arc e (negative reduced cost) into the basis.
func (s *network) pivot(e int) error {
	n, m := s.n, s.m
	k, l := e/m, n+e%m
	rc := s.cost[e] + s.pi[k] - s.pi[l]
	parent, depth, flow, arc := s.parent, s.depth, s.flow, s.arc

	// Apex of the cycle closed by e.
	u, v := k, l
	for u != v {
		switch {
		case depth[u] > depth[v]:
			u = parent[u]
		case depth[v] > depth[u]:
			v = parent[v]
		default:
			u, v = parent[u], parent[v]
		}
	}
	join := u

	// Flow goes k -> l, up from l to the apex and down from the apex to k.
	// Arcs pointing against that direction block. Strongly feasible rule:
	// of the blocking arcs with the least flow take the last one met when
	// walking the cycle from the apex, i.e. prefer l's side (nearest the
	// apex: <=) and then k's side (nearest k: <, walking up from k).
	delta := math.Inf(1)
	out, outOnL := -1, false
	for x := k; x != join; x = parent[x] {
		if x < n && arc[x] >= 0 { // x -> parent: against the flow
			if f := flow[x]; f < delta {
				delta, out = f, x
			}
		}
	}
	for x := l; x != join; x = parent[x] {
		if x >= n || arc[x] < 0 { // parent -> x: against the flow
			if f := flow[x]; f <= delta {
				delta, out, outOnL = f, x, true
			}
		}
	}
	if out < 0 {
		return fmt.Errorf("%w: unbounded cycle", errNumeric)
	}
	if delta > 0 {
		for x := k; x != join; x = parent[x] {
			if x < n && arc[x] >= 0 {
				flow[x] -= delta
			} else {
				flow[x] += delta
			}
		}
		for x := l; x != join; x = parent[x] {
			if x >= n || arc[x] < 0 {
				flow[x] -= delta
			} else {
				flow[x] += delta
			}
		}
	}

	// The leaving arc cuts off the subtree of out; it is re-hung from the
	// entering arc: uIn (inside it) becomes its root, attached to vIn.
	uIn, vIn, sigma := k, l, -rc
	if outOnL {
		uIn, vIn, sigma = l, k, rc
	}
	s.rehang(uIn, vIn, out, e, delta, sigma)
	return nil
}

// rehang re-roots the subtree of q at its descendant u (the stem
// u = s_1, ..., s_t = q reverses), hangs it under v by arc e with flow f,
// and shifts its potentials by sigma.
//
// Thread update: in the old preorder the subtree of every s_i is a
// contiguous segment containing that of s_{i-1}. The new preorder of the
// re-rooted subtree is: the old subtree of s_1, then for i = 2..t the part
// of s_i's old subtree before s_{i-1}'s (A_i, which starts with s_i) and the
// part after it (B_i, possibly empty). Each piece keeps its internal links,
// so only piece ends are relinked.
func (s *network) rehang(u, v, q, e int, f, sigma float64) {
	thread, rev, depth, parent := s.thread, s.rev, s.depth, s.parent
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
		ds := depth[si]
		for {
			nx := thread[x]
			if depth[nx] <= ds {
				break
			}
			x = nx
		}
		last[i] = x
		pre[i] = rev[si]
		post[i] = thread[x]
	}
	before, after := pre[t-1], post[t-1]

	// Link the pieces in their new order.
	cur := last[0]
	for i := 1; i < t; i++ {
		si := stem[i]
		thread[cur], rev[si] = si, cur
		cur = pre[i-1]
		if last[i] != last[i-1] {
			b := post[i-1]
			thread[cur], rev[b] = b, cur
			cur = last[i]
		}
	}
	newLast := cur

	// Cut the subtree out of the thread and splice it in right after v.
	thread[before], rev[after] = after, before
	nx := thread[v]
	thread[v], rev[u] = u, v
	thread[newLast], rev[nx] = nx, newLast

	// Reverse the stem: s_i inherits the arc (and flow) that joined s_{i-1}
	// to it.
	for i := t - 1; i > 0; i-- {
		si, sp := stem[i], stem[i-1]
		parent[si] = sp
		s.arc[si] = s.arc[sp]
		s.flow[si] = s.flow[sp]
	}
	parent[u], s.arc[u], s.flow[u] = v, e, f

	// Depths change along the reversed stem; potentials shift uniformly.
	pi := s.pi
	for x := u; ; x = thread[x] {
		depth[x] = depth[parent[x]] + 1
		pi[x] += sigma
		if x == newLast {
			break
		}
	}
}

// run pivots to optimality, at most maxPivots times, and returns the number
// of pivots done.
func (s *network) run(maxPivots int) (int, error) {
	pivots := 0
	fresh := true // potentials rebuilt since the last pivot
	for {
		e := s.price()
		if e < 0 {
			if fresh {
				return pivots, nil
			}
			// Confirm optimality against drift-free potentials.
			s.refresh()
			fresh = true
			continue
		}
		if s.isBasic(e) {
			if fresh {
				return pivots, fmt.Errorf("%w: basic arc priced at %g", errNumeric,
					s.cost[e]+s.pi[e/s.m]-s.pi[s.n+e%s.m])
			}
			s.refresh()
			fresh = true
			continue
		}
		if pivots >= maxPivots {
			return pivots, fmt.Errorf("%w (%d pivots on %d x %d)", ErrMaxPivots, pivots, s.n, s.m)
		}
		if err := s.pivot(e); err != nil {
			return pivots, err
		}
		pivots++
		fresh = false
	}
}

// objective is the cost of the current plan (compensated sum).
func (s *network) objective() float64 {
	sum, comp := 0.0, 0.0
	for x := 0; x < s.n+s.m; x++ {
		if e := s.arc[x]; e >= 0 {
			v := s.flow[x] * s.cost[e]
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
