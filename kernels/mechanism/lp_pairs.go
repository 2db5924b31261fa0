package mechanism

import (
	"container/heap"
	"math"
	"time"

	"privic/kernels"
	"privic/kernels/lp"
)

// geoPairs is the cone K of one column of a geo-ind LP,
// K = {v >= 0 : e^{-eps d} v[a] <= v[b] for every constrained pair (a, b)},
// either with every ordered pair of input cells at Euclidean distance
// (edges == nil) or with both directions of a spanner's edges at their
// lengths (eps then being the tightened eps/δ).
type geoPairs struct {
	g     kernels.Grid
	eps   float64
	edges []edge
	// kern[a*n+b] = e^{-eps d(a,b)}, all pairs only.
	kern []float64
}

// pairRow is the row e^{-eps d} v[a] - v[b] <= 0.
type pairRow struct {
	a, b int32
	d    float64
}

func newGeoPairs(g kernels.Grid, eps float64, edges []edge) *geoPairs {
	p := &geoPairs{g: g, eps: eps, edges: edges}
	if edges == nil {
		n := g.Len()
		p.kern = make([]float64, n*n)
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				p.kern[a*n+b] = math.Exp(-eps * kernels.Dist(g, a, g, b))
			}
		}
	}
	return p
}

// factor is the coefficient e^{-eps d} of r in this cone.
func (p *geoPairs) factor(r pairRow) float64 { return math.Exp(-p.eps * r.d) }

// initialRows are the rows a pricing model starts from: the spanner's
// edges, or for all pairs the 8-neighbour pairs (the rest are added by
// separate).
func (p *geoPairs) initialRows() []pairRow {
	es := p.edges
	if es == nil {
		es = spannerEdges(p.g, 1)
	}
	rs := make([]pairRow, 0, 2*len(es))
	for _, e := range es {
		rs = append(rs, pairRow{int32(e.a), int32(e.b), e.d}, pairRow{int32(e.b), int32(e.a), e.d})
	}
	return rs
}

// separate appends to dst, for every b whose v[b] is below what some a
// forces by more than tol, the row of the most violating a. A spanner's
// rows are all in the model from the start, so it has none to add.
func (p *geoPairs) separate(dst []pairRow, v []float64, tol float64) []pairRow {
	if p.edges != nil {
		return dst
	}
	n := len(v)
	for b := 0; b < n; b++ {
		k := p.kern[b*n : (b+1)*n]
		best, ba := v[b]+tol, -1
		for a, va := range v {
			if t := k[a] * va; t > best {
				best, ba = t, a
			}
		}
		if ba >= 0 {
			dst = append(dst, pairRow{int32(ba), int32(b), kernels.Dist(p.g, ba, p.g, b)})
		}
	}
	return dst
}

// metric returns the distances that K's pairs bound, n*n: Euclidean for
// all pairs, shortest paths over the spanner's edges otherwise. K is then
// exactly {v >= 0 : v[a] <= e^{eps metric(a,b)} v[b] for all a, b}, since
// chaining the edges' constraints along a path multiplies their factors.
func (p *geoPairs) metric() []float64 {
	n := p.g.Len()
	if p.edges == nil {
		m := make([]float64, n*n)
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				m[a*n+b] = kernels.Dist(p.g, a, p.g, b)
			}
		}
		return m
	}
	return graphDist(n, p.edges)
}

// bumps are vectors of K to start the master from: the constant vector
// (on its own a feasible channel, everyone reporting one cell) and, for
// every cell z, e^{-eps metric(., z)}, the columns of a Laplace-like
// mechanism.
func (p *geoPairs) bumps() [][]float64 {
	n := p.g.Len()
	m := p.metric()
	out := make([][]float64, 0, n+1)
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	out = append(out, one)
	for z := 0; z < n; z++ {
		b := make([]float64, n)
		for x := range b {
			b[x] = math.Exp(-p.eps * m[x*n+z])
		}
		out = append(out, b)
	}
	return out
}

// graphDist is the n*n matrix of shortest-path lengths over edges
// (Dijkstra from every vertex).
func graphDist(n int, edges []edge) []float64 {
	adj := make([][]edge, n)
	for _, e := range edges {
		adj[e.a] = append(adj[e.a], edge{e.a, e.b, e.d})
		adj[e.b] = append(adj[e.b], edge{e.b, e.a, e.d})
	}
	out := make([]float64, n*n)
	for s := 0; s < n; s++ {
		dist := out[s*n : (s+1)*n]
		for i := range dist {
			dist[i] = math.Inf(1)
		}
		dist[s] = 0
		h := &distHeap{{s, 0}}
		for h.Len() > 0 {
			it := heap.Pop(h).(distItem)
			if it.d > dist[it.v] {
				continue
			}
			for _, e := range adj[it.v] {
				if nd := it.d + e.d; nd < dist[e.b] {
					dist[e.b] = nd
					heap.Push(h, distItem{e.b, nd})
				}
			}
		}
	}
	return out
}

// edge is an unordered pair of input cells constrained by the LP.
type edge struct {
	a, b int
	d    float64
}

// spannerEdges lists the constrained pairs: all pairs for k = 0, else the
// pairs whose offset is a primitive vector of Chebyshev length <= k.
func spannerEdges(g kernels.Grid, k int) []edge {
	var es []edge
	n := g.Len()
	if k == 0 {
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				es = append(es, edge{a, b, kernels.Dist(g, a, g, b)})
			}
		}
		return es
	}
	var offs [][2]int
	for dr := 0; dr <= k; dr++ {
		for dc := -k; dc <= k; dc++ {
			if (dr == 0 && dc <= 0) || gcd(dr, abs(dc)) != 1 {
				continue
			}
			offs = append(offs, [2]int{dr, dc})
		}
	}
	for a := 0; a < n; a++ {
		r, c := g.Cell(a)
		for _, o := range offs {
			r2, c2 := r+o[0], c+o[1]
			if r2 < 0 || r2 >= g.Rows || c2 < 0 || c2 >= g.Cols {
				continue
			}
			b := g.Index(r2, c2)
			es = append(es, edge{a, b, math.Hypot(float64(o[0]), float64(o[1]))})
		}
	}
	return es
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// dilation is the largest ratio of shortest-path distance in the graph of
// edges to Euclidean distance over all pairs of cells.
func dilation(g kernels.Grid, edges []edge) float64 {
	n := g.Len()
	dist := graphDist(n, edges)
	worst := 1.0
	for s := 0; s < n; s++ {
		for t := s + 1; t < n; t++ {
			worst = math.Max(worst, dist[s*n+t]/kernels.Dist(g, s, g, t))
		}
	}
	return worst
}

type distItem struct {
	v int
	d float64
}

type distHeap []distItem

func (h distHeap) Len() int           { return len(h) }
func (h distHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h distHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// geoLP is the whole LP, as the direct methods take it:
//
//	minimise cost . v  s.t.  sum_y v[x*nOut+y] = 1 for every x,
//	                         coef[k] v[lo[k]] - v[hi[k]] <= 0 for every k,
//	                         v >= 0.
//
// Each geo-ind constraint C[x,y] <= e^{e d} C[x',y] is stored divided by
// e^{e d}, so that no coefficient exceeds 1 in magnitude.
type geoLP struct {
	nIn, nOut int
	cost      []float64
	coef      []float64
	lo, hi    []int
	// start is an output cell whose constant channel (everyone reports
	// it) is a feasible starting vertex.
	start int
	// timeLimit bounds GLPK's run time (0: none).
	timeLimit time.Duration
	// glpkMethod is GLPK's algorithm.
	glpkMethod lp.Method
}

func buildGeoLP(in, out kernels.Grid, prior []float64, eps float64, edges []edge) *geoLP {
	nIn, nOut := in.Len(), out.Len()
	p := &geoLP{nIn: nIn, nOut: nOut, cost: make([]float64, nIn*nOut)}
	best := math.Inf(1)
	for y := 0; y < nOut; y++ {
		s := 0.0
		for x := 0; x < nIn; x++ {
			c := prior[x] * kernels.Dist(in, x, out, y)
			p.cost[x*nOut+y] = c
			s += c
		}
		if s < best {
			best, p.start = s, y
		}
	}
	n := 2 * len(edges) * nOut
	p.coef, p.lo, p.hi = make([]float64, 0, n), make([]int, 0, n), make([]int, 0, n)
	for _, e := range edges {
		c := math.Exp(-eps * e.d)
		for y := 0; y < nOut; y++ {
			p.coef = append(p.coef, c, c)
			p.lo = append(p.lo, e.a*nOut+y, e.b*nOut+y)
			p.hi = append(p.hi, e.b*nOut+y, e.a*nOut+y)
		}
	}
	return p
}

// problem is p as an lp.Problem: the row sums (= 1), then the geo-ind
// rows (<= 0); the matrix's triplets are the row-sum entries (one per
// variable) first, then each geo-ind row's two entries.
func (p *geoLP) problem() *lp.Problem {
	nIn, nOut := p.nIn, p.nOut
	nVar, nIneq := nIn*nOut, len(p.coef)
	nnz := nVar + 2*nIneq
	q := &lp.Problem{Cost: p.cost, RowLo: make([]float64, nIn+nIneq), RowUp: make([]float64, nIn+nIneq),
		Row: make([]int32, nnz), Col: make([]int32, nnz), Val: make([]float64, nnz)}
	for i := 0; i < nIn; i++ {
		q.RowLo[i], q.RowUp[i] = 1, 1
	}
	for k := range p.coef {
		q.RowLo[nIn+k] = math.Inf(-1)
	}
	for j := 0; j < nVar; j++ {
		q.Row[j], q.Col[j], q.Val[j] = int32(j/nOut), int32(j), 1
	}
	for k, c := range p.coef {
		t := nVar + 2*k
		q.Row[t], q.Col[t], q.Val[t] = int32(nIn+k), int32(p.lo[k]), c
		q.Row[t+1], q.Col[t+1], q.Val[t+1] = int32(nIn+k), int32(p.hi[k]), -1
	}
	return q
}

// geoViolation is the largest e^{-eps d} C[x,y] - C[x',y] over the edges,
// in both directions: the constraints' violation in the scale the LP
// states them in.
func geoViolation(ch *kernels.Channel, eps float64, edges []edge) float64 {
	n := ch.Out.Len()
	worst := math.Inf(-1)
	for _, e := range edges {
		f := math.Exp(-eps * e.d)
		for y := 0; y < n; y++ {
			a, b := ch.P[e.a*n+y], ch.P[e.b*n+y]
			worst = math.Max(worst, math.Max(f*a-b, f*b-a))
		}
	}
	return worst
}
