package emd

import "math"

// Parameters of the sparse solver (see sparse).
const (
	// nearK is how many nearest demands of each supply, and nearest
	// supplies of each demand, form the starting arc set of a level
	// without a coarser one; nearKSeeded is that number on the levels
	// that start from a coarser level's arcs (see solveSparse).
	nearK       = 8
	nearKSeeded = 2
	// addPerRow is how many improving arcs of each supply a pricing sweep
	// (or a local sweep) adds at most (its most negative ones).
	addPerRow = 4
	// localK is how many nearest supplies of each supply, and nearest
	// demands of each demand, a local sweep looks through.
	localK = 8
)

// sparse solves a Euclidean transport problem without a cost matrix: the
// network simplex runs on a sparse arc set whose costs are computed from
// the coordinates, and a pricing sweep over all n*m arcs, priced from
// coordinates with a kd-tree bound that skips far arcs, either proves the
// basis optimal for the full problem or adds improving arcs and resumes.
//
// The arc set starts as the nearest neighbours of every node plus the arcs
// of a greedy plan, and grows only by arcs that a sweep found improving,
// so memory stays O((n+m) k): no n x m array exists.
type sparse struct {
	sx, sy, dx, dy []float64

	// Arc set in CSR form by supply: arcs start[i]..start[i+1]-1 leave
	// supply i for demand head[e] at cost cost[e].
	start []int
	head  []int32
	cost  []float64

	next, nextRow int // pricing resumes at arc next, of supply nextRow
	block         int // arcs per pricing block

	stree, dtree kdTree
	h            kbest
	w            []float64 // demand weights: -pi in a sweep, 0 or +Inf (exhausted) in finish

	// Greedy keys: arcs are taken in the order of c + ku[i] - kv[j]
	// (ku, kv nil: by cost).
	ku, kv []float64
	gkey   []float64

	// Local sweeps: the localK nearest supplies of each supply and demands
	// of each demand (built on first use), basis partners, marks.
	ssnn, ddnn   []int32
	spart, dpart adjacency
	pstart       []int32
	mark         []int32
	spare        []arcPair

	// Workspace for the start and for merging arcs.
	pairs  []arcPair
	resid  []float64
	near   []int32 // finish: nearest live demand of each supply
	key    []float64
	ptr    []int
	heap   indexHeap
	nstart []int
	nhead  []int32
	ncost  []float64
}

// arcPair is a candidate arc from supply i to demand j.
type arcPair struct{ i, j int32 }

// dist is the cost of the arc from supply i to demand j.
func (s *sparse) dist(i, j int) float64 {
	u, v := s.sx[i]-s.dx[j], s.sy[i]-s.dy[j]
	return math.Sqrt(u*u + v*v)
}

// setArcs makes the arc set the given pairs (deduplicated), each row
// sorted by key (the cost, less kv[j] with greedy keys) and then demand.
func (s *sparse) setArcs(n int, pairs []arcPair) {
	s.start = grow(s.start, n+1)
	clear(s.start)
	for _, p := range pairs {
		s.start[p.i+1]++
	}
	for i := 1; i <= n; i++ {
		s.start[i] += s.start[i-1]
	}
	s.head = grow(s.head, len(pairs))
	s.cost = grow(s.cost, len(pairs))
	s.gkey = grow(s.gkey, len(pairs))
	fill := grow(s.ptr, n)
	copy(fill, s.start[:n])
	for _, p := range pairs {
		k := fill[p.i]
		c := s.dist(int(p.i), int(p.j))
		s.head[k], s.cost[k], s.gkey[k] = p.j, c, c
		if s.kv != nil {
			s.gkey[k] = c - s.kv[p.j]
		}
		fill[p.i]++
	}
	// Sort each row by (key, demand) and drop repeats, compacting.
	w := 0
	for i := 0; i < n; i++ {
		lo, hi := s.start[i], s.start[i+1]
		s.start[i] = w
		row := rowSorter{s.head[lo:hi], s.cost[lo:hi], s.gkey[lo:hi]}
		row.sort()
		for k := range row.head {
			if k > 0 && row.head[k] == row.head[k-1] {
				continue
			}
			s.head[w], s.cost[w], s.gkey[w] = row.head[k], row.cost[k], row.key[k]
			w++
		}
	}
	s.start[n] = w
	s.head, s.cost, s.gkey = s.head[:w], s.cost[:w], s.gkey[:w]
	s.ptr = fill
}

// rowSorter sorts one row of arcs by (key, demand) by insertion: rows
// hold a few dozen arcs.
type rowSorter struct {
	head      []int32
	cost, key []float64
}

func (r rowSorter) sort() {
	for k := 1; k < len(r.head); k++ {
		h, c, y := r.head[k], r.cost[k], r.key[k]
		q := k
		for ; q > 0 && (r.key[q-1] > y || r.key[q-1] == y && r.head[q-1] > h); q-- {
			r.head[q], r.cost[q], r.key[q] = r.head[q-1], r.cost[q-1], r.key[q-1]
		}
		r.head[q], r.cost[q], r.key[q] = h, c, y
	}
}

// nearest appends to s.pairs the k nearest demands of every supply and
// the k nearest supplies of every demand.
func (s *sparse) nearest(k int) {
	for i := range s.sx {
		s.h.reset(k, math.Inf(1))
		s.dtree.search(s.sx[i], s.sy[i], &s.h)
		for _, j := range s.h.idx {
			s.pairs = append(s.pairs, arcPair{int32(i), j})
		}
	}
	for j := range s.dx {
		s.h.reset(k, math.Inf(1))
		s.stree.search(s.dx[j], s.dy[j], &s.h)
		for _, i := range s.h.idx {
			s.pairs = append(s.pairs, arcPair{i, int32(j)})
		}
	}
}

// initial builds the arc set and the greedy start (t.edges): the k
// nearest neighbours of every node and the seeds, then the dense solver's
// matrix-minimum greedy restricted to those arcs (greedy, on the keys
// c + ku[i] - kv[j] when ku and kv are not nil), finished over all arcs
// for the supplies it leaves over (finish), whose arcs join the set.
func (s *sparse) initial(t *network, supply, demand []float64, k int, seeds []arcPair, ku, kv []float64) {
	n, m := t.n, t.m
	s.stree.build(s.sx, s.sy, nil)
	s.dtree.build(s.dx, s.dy, nil)
	s.ssnn, s.ddnn = s.ssnn[:0], s.ddnn[:0]
	s.ku, s.kv = ku, kv
	s.pairs = s.pairs[:0]
	s.nearest(k)
	s.pairs = append(s.pairs, seeds...)
	s.setArcs(n, s.pairs)
	s.resid = grow(s.resid, n+m)
	rs, rd := s.resid[:n], s.resid[n:]
	copy(rs, supply)
	copy(rd, demand)
	t.edges = t.edges[:0]
	s.greedy(t, rs, rd)
	from := len(t.edges)
	s.finish(t, rs, rd)
	for _, e := range t.edges[from:] {
		s.pairs = append(s.pairs, arcPair{int32(e.i), int32(e.j)})
	}
	s.setArcs(n, s.pairs)
	s.ku, s.kv = nil, nil
	s.next, s.nextRow = 0, 0
	s.block = max(16, int(math.Sqrt(float64(len(s.head)))))
}

// greedy ships along the arc set's cheapest live arcs (repeatedly as much
// as possible along the cheapest arc between a supply and a demand that
// both have mass left; cheapest by key, see initial), appending the plan's
// arcs to t.edges; each step exhausts a supply or a demand, so they form a
// forest. Each supply's cheapest arc to a live demand (rows are sorted by
// key) sits in a binary heap; entries made stale by an exhausted demand
// are refreshed lazily at the top. Supplies whose arcs all lead to
// exhausted demands are left over with their mass.
func (s *sparse) greedy(t *network, rs, rd []float64) {
	n := len(rs)
	ptr := grow(s.ptr, n)
	copy(ptr, s.start[:n])
	heap := &s.heap
	heap.items = heap.items[:0]
	key := func(i int) float64 {
		if s.ku != nil {
			return s.gkey[ptr[i]] + s.ku[i]
		}
		return s.gkey[ptr[i]]
	}
	heap.less = func(a, b int) bool {
		ca, cb := key(a), key(b)
		return ca < cb || ca == cb && a < b
	}
	for i := range n {
		heap.push(i) // every supply has mass and arcs (its nearest demands)
	}
	for len(heap.items) > 0 {
		i := heap.items[0]
		e := ptr[i]
		j := s.head[e]
		if rd[j] > 0 {
			f := min(rs[i], rd[j])
			t.edges = append(t.edges, edge{i, int(j), f, s.cost[e]})
			rs[i] -= f
			rd[j] -= f
			if rs[i] <= 0 {
				heap.pop()
				continue
			}
		}
		if ptr[i]++; ptr[i] == s.start[i+1] {
			heap.pop() // left over: no live demand among its arcs
		} else {
			heap.down()
		}
	}
}

// finish continues the greedy from the residual masses rs and rd over all
// arcs, as the dense solver's matrix-minimum start would: repeatedly ship
// as much as possible along the shortest arc between a supply and a demand
// that both have mass left, appending to t.edges. Each such supply's
// nearest live demand, found in the demands' kd-tree from which exhausted
// demands are removed (weight +Inf), sits in a binary heap keyed by its
// distance; entries made stale by an exhausted demand are refreshed lazily
// at the top.
func (s *sparse) finish(t *network, rs, rd []float64) {
	n, m := t.n, t.m
	s.w = grow(s.w, m)
	live := 0
	for j, v := range rd {
		s.w[j] = math.Inf(1)
		if v > 0 {
			s.w[j] = 0
			live++
		}
	}
	s.dtree.setWeights(s.w)
	s.near, s.key = grow(s.near, n), grow(s.key, n)
	query := func(i int) {
		s.h.reset(1, math.Inf(1))
		s.dtree.search(s.sx[i], s.sy[i], &s.h)
		s.near[i], s.key[i] = s.h.idx[0], s.h.key[0]
	}
	heap := &s.heap
	heap.items = heap.items[:0]
	heap.less = func(a, b int) bool {
		return s.key[a] < s.key[b] || s.key[a] == s.key[b] && a < b
	}
	for i := range n {
		if rs[i] > 0 && live > 0 {
			query(i)
			heap.push(i)
		}
	}
	for len(heap.items) > 0 && live > 0 {
		i := heap.items[0]
		if j := s.near[i]; rd[j] > 0 {
			f := min(rs[i], rd[j])
			t.edges = append(t.edges, edge{i, int(j), f, s.dist(i, int(j))})
			rs[i] -= f
			rd[j] -= f
			if rd[j] <= 0 {
				s.dtree.remove(j)
				live--
			}
			if rs[i] <= 0 || live == 0 {
				heap.pop()
				continue
			}
		}
		query(i)
		heap.down()
	}
	s.dtree.setWeights(nil)
}

// price returns an arc of the set with reduced cost < -eps by block
// search, as dense.price does over the matrix, or i = -1 when a full pass
// finds none. The tree is in its Euler tour form: a potential is pi plus
// the shift of its node's block.
func (s *sparse) price(t *network) (int, int, float64) {
	n := t.n
	pi, piD := t.pi, t.pi[n:]
	lz, eb, ebD := t.et.lz, t.et.eb, t.et.eb[n:]
	total := len(s.head)
	best := -t.eps
	bestArc, bestRow := -1, 0 // bestRow is set with bestArc
	e, i := s.next, s.nextRow
	inBlock := 0
	for scanned := 0; scanned < total; {
		end := s.start[i+1]
		lim := min(end, e+s.block-inBlock)
		pii := pi[i] + lz[eb[i]]
		thr := best - pii
		found := false
		for k := e; k < lim; k++ {
			j := s.head[k]
			if r := s.cost[k] - (piD[j] + lz[ebD[j]]); r < thr {
				thr, bestArc, found = r, k, true
			}
		}
		if found {
			best, bestRow = thr+pii, i
		}
		cnt := lim - e
		scanned += cnt
		inBlock += cnt
		e = lim
		if lim == end {
			if i++; i == n {
				i, e = 0, 0
			}
		}
		if inBlock >= s.block {
			if bestArc >= 0 {
				s.next, s.nextRow = e, i
				return bestRow, int(s.head[bestArc]), s.cost[bestArc]
			}
			inBlock = 0
		}
	}
	if bestArc < 0 {
		return -1, 0, 0
	}
	s.next, s.nextRow = e, i
	return bestRow, int(s.head[bestArc]), s.cost[bestArc]
}

// sweep prices all n*m arcs from coordinates with the current potentials
// and adds, for each supply, its (at most addPerRow) most negative arcs
// with reduced cost below -eps to the set. It returns how many it added:
// 0 proves the basis optimal over all arcs. Arcs already in the set are
// never found, since the simplex stopped with none of them below -eps.
func (s *sparse) sweep(t *network) int {
	n, m := t.n, t.m
	s.w = grow(s.w, m)
	for j := range s.w {
		s.w[j] = -t.pi[n+j]
	}
	s.dtree.setWeights(s.w)
	s.pairs = s.pairs[:0]
	for i := range n {
		s.h.reset(addPerRow, -t.pi[i]-t.eps)
		s.dtree.search(s.sx[i], s.sy[i], &s.h)
		for _, j := range s.h.idx {
			s.pairs = append(s.pairs, arcPair{int32(i), j})
		}
	}
	s.dtree.setWeights(nil)
	s.addArcs(n, s.pairs)
	return len(s.pairs)
}

// addArcs appends pairs (sorted by supply) to their rows of the arc set.
func (s *sparse) addArcs(n int, pairs []arcPair) {
	if len(pairs) == 0 {
		return
	}
	total := len(s.head) + len(pairs)
	s.nstart = grow(s.nstart, n+1)
	s.nhead = grow(s.nhead, total)
	s.ncost = grow(s.ncost, total)
	w, p := 0, 0
	for i := range n {
		s.nstart[i] = w
		w += copy(s.nhead[w:], s.head[s.start[i]:s.start[i+1]])
		copy(s.ncost[s.nstart[i]:], s.cost[s.start[i]:s.start[i+1]])
		for ; p < len(pairs) && int(pairs[p].i) == i; p++ {
			j := pairs[p].j
			s.nhead[w], s.ncost[w] = j, s.dist(i, int(j))
			w++
		}
	}
	s.nstart[n] = w
	s.start, s.nstart = s.nstart, s.start
	s.head, s.nhead = s.nhead, s.head
	s.cost, s.ncost = s.ncost, s.cost
	s.next, s.nextRow = 0, 0
	s.block = max(16, int(math.Sqrt(float64(total))))
}

// neighbours returns, in CSR form with localK per point, the localK
// nearest other points of each point of tr's point set (x, y) (the point
// itself fills in where there are fewer).
func (s *sparse) neighbours(dst []int32, tr *kdTree, x, y []float64) []int32 {
	dst = dst[:0]
	for p := range x {
		s.h.reset(localK+1, math.Inf(1))
		tr.search(x[p], y[p], &s.h)
		c := 0
		for _, q := range s.h.idx {
			if int(q) != p && c < localK {
				dst = append(dst, q)
				c++
			}
		}
		for ; c < localK; c++ {
			dst = append(dst, int32(p))
		}
	}
	return dst
}

// localSweep prices, for each supply, the arcs to the demands that its
// basis partners and those of its localK nearest supplies have, and to
// their localK nearest demands, and for each demand likewise the arcs
// from the supplies near its own and its nearest demands' partners; it
// adds each node's (at most addPerRow) most improving ones and returns
// how many arcs it added. Optimal plans with Euclidean costs ship along
// locally parallel rays, so the arcs a sweep would add lie mostly among
// these, and this finds them at a small fraction of a sweep's cost; only
// sweep proves optimality. Arcs already in the set are never found, since
// the simplex stopped with none of them below -eps.
func (s *sparse) localSweep(t *network) int {
	n, m := t.n, t.m
	if len(s.ssnn) == 0 {
		s.ssnn = s.neighbours(s.ssnn, &s.stree, s.sx, s.sy)
		s.ddnn = s.neighbours(s.ddnn, &s.dtree, s.dx, s.dy)
	}
	// The basis partners of each supply and of each demand, in CSR form.
	s.spart.partners(t, true)
	s.dpart.partners(t, false)
	s.mark = grow(s.mark, max(n, m))
	pi, piD := t.pi, t.pi[n:]
	s.pairs = s.pairs[:0]
	// c_ij + pi_i - pi_j < -eps: key c_ij - pi_j below -pi_i - eps for
	// supply i, key c_ij + pi_i below pi_j - eps for demand j.
	s.localSide(n, s.ssnn, s.ddnn, &s.spart, func(i int) float64 { return -pi[i] - t.eps },
		func(i, j int32) float64 { return s.dist(int(i), int(j)) - piD[j] }, false)
	s.localSide(m, s.ddnn, s.ssnn, &s.dpart, func(j int) float64 { return piD[j] - t.eps },
		func(j, i int32) float64 { return s.dist(int(i), int(j)) + pi[i] }, true)
	s.pairs = s.bySupply(n, s.pairs)
	s.addArcs(n, s.pairs)
	return len(s.pairs)
}

// localSide is one side of localSweep: for each of the count nodes a of
// one side, the nodes of the other side that part (the basis partners)
// joins to a or to its localK nearest nodes (own), and their localK
// nearest nodes (other); of those with key(a, b) below thr(a), the (at
// most addPerRow) least are appended to s.pairs as arcs a -> b, or b -> a
// when demands is set (a a demand).
func (s *sparse) localSide(count int, own, other []int32, part *adjacency, thr func(a int) float64, key func(a, b int32) float64, demands bool) {
	for k := range s.mark {
		s.mark[k] = -1
	}
	for a := range count {
		s.h.reset(addPerRow, thr(a))
		try := func(b int32) {
			if s.mark[b] == int32(a) {
				return
			}
			s.mark[b] = int32(a)
			if v := key(int32(a), b); v < s.h.sKey {
				s.h.offer(v, b)
			}
		}
		scan := func(a2 int32) {
			for _, b2 := range part.of(int(a2)) {
				try(b2)
				for _, b := range other[int(b2)*localK : int(b2+1)*localK] {
					try(b)
				}
			}
		}
		scan(int32(a))
		for _, a2 := range own[a*localK : (a+1)*localK] {
			scan(a2)
		}
		for _, b := range s.h.idx {
			if demands {
				s.pairs = append(s.pairs, arcPair{b, int32(a)})
			} else {
				s.pairs = append(s.pairs, arcPair{int32(a), b})
			}
		}
	}
}

// bySupply returns pairs sorted by supply (counting sort, stable) without
// repeats.
func (s *sparse) bySupply(n int, pairs []arcPair) []arcPair {
	s.pstart = grow(s.pstart, n+1)
	clear(s.pstart)
	for _, p := range pairs {
		s.pstart[p.i+1]++
	}
	for i := range n {
		s.pstart[i+1] += s.pstart[i]
	}
	out := grow(s.spare, len(pairs))
	for _, p := range pairs {
		out[s.pstart[p.i]] = p
		s.pstart[p.i]++
	}
	// Drop repeats (the same arc found from both ends).
	for k := range s.mark {
		s.mark[k] = -1
	}
	w := 0
	for _, p := range out {
		if s.mark[p.j] != p.i {
			s.mark[p.j] = p.i
			out[w] = p
			w++
		}
	}
	s.spare = pairs
	return out[:w]
}

// adjacency lists the nodes that the basis joins to each supply (or
// demand) by a real arc, in CSR form.
type adjacency struct {
	start, item, fill []int32
}

// of is the list of node k.
func (a *adjacency) of(k int) []int32 { return a.item[a.start[k]:a.start[k+1]] }

// partners sets a to the basis partners of the supplies (or demands).
func (a *adjacency) partners(t *network, supplies bool) {
	n, m := t.n, t.m
	cnt := m
	if supplies {
		cnt = n
	}
	a.start = grow(a.start, cnt+1)
	clear(a.start)
	for x := range n + m {
		if i, j, real := t.arcOf(x); real {
			if supplies {
				a.start[i+1]++
			} else {
				a.start[j+1]++
			}
		}
	}
	for k := range cnt {
		a.start[k+1] += a.start[k]
	}
	a.item = grow(a.item, int(a.start[cnt]))
	a.fill = append(a.fill[:0], a.start[:cnt]...)
	for x := range n + m {
		if i, j, real := t.arcOf(x); real {
			k, v := j, i
			if supplies {
				k, v = i, j
			}
			a.item[a.fill[k]] = int32(v)
			a.fill[k]++
		}
	}
}
