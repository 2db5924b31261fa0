package emd

import (
	"fmt"
	"math"
	"slices"
)

// Parameters of the coarse-to-fine solver (see solveSparse).
const (
	// coarseArcs bounds n*m on the coarsest level.
	coarseArcs = 1 << 14
	// nearTransport: when the coarsest level's optimum moves its mass less
	// than this many point spacings on average, the finest level is solved
	// directly from its nearest neighbours. Measured on hotspot grids
	// against blurred copies of themselves: solving every level pays from
	// about one spacing (the prior and its IBU estimate on the synthetic
	// cities: 0.3).
	nearTransport = 1
)

// level is one coarsening of the problem of the finer level below it.
// Its points are cells: a cell's net mass is the supply less the demand
// of the finer nodes in it, so that, as for the cells of the finest grid,
// mass that a cell both supplies and demands stays put (the Euclidean
// distance is a metric, so the optimum depends only on the net masses).
// A cell with more supply is a supply here, at the mass-weighted centroid
// of its finer supplies; one with more demand is a demand, at that of its
// finer demands; one whose masses cancel exactly is not in the problem.
type level struct {
	h          float64   // side of the cells
	sx, sy, sm []float64 // supplies of this level
	dx, dy, dm []float64 // demands
	// The cell of each finer supply and demand, and each cell's node here:
	// a supply i, a demand n+j, or -1.
	sUp, dUp []int32
	node     []int32
	cx, cy   []float64 // each cell's centroid (all its finer nodes)
	// The finer supplies and demands of each cell, in CSR form.
	sKids, dKids csr
}

// csr lists the members of each of a set of groups.
type csr struct {
	start, item, fill []int32
}

// of is the members of group g.
func (c *csr) of(g int) []int32 { return c.item[c.start[g]:c.start[g+1]] }

// group sets c to the members of each of ng groups, up[k] being the group
// of member k (members in increasing order).
func (c *csr) group(up []int32, ng int) {
	c.start = grow(c.start, ng+1)
	clear(c.start)
	for _, g := range up {
		c.start[g+1]++
	}
	for g := range ng {
		c.start[g+1] += c.start[g]
	}
	c.item = grow(c.item, len(up))
	c.fill = append(c.fill[:0], c.start[:ng]...)
	for k, g := range up {
		c.item[c.fill[g]] = int32(k)
		c.fill[g]++
	}
}

// coarsen builds the levels above the problem in s (supplies at s.sx,
// s.sy with masses s.sup, demands likewise), finest first, until the
// coarsest has at most coarseArcs arcs. Cells are squares of side 2^e on
// the first level, about four points' share of the bounding box (side 2
// on a full integer grid), and double on each level; a level with nothing
// left to transport (every cell's masses cancel) ends the coarsening.
func (s *Solver) coarsen() []level {
	x0 := min(slices.Min(s.sx), slices.Min(s.dx))
	x1 := max(slices.Max(s.sx), slices.Max(s.dx))
	y0 := min(slices.Min(s.sy), slices.Min(s.dy))
	y1 := max(slices.Max(s.sy), slices.Max(s.dy))
	N := len(s.sx) + len(s.dx)
	span := max(x1-x0, y1-y0)
	lv := s.levels[:0]
	most := int64(coarseArcs)
	if s.coarse > 0 {
		most = int64(s.coarse)
	}
	if !(span > 0) {
		return lv // all at one point: nothing to gather
	}
	// Cells of side h = 2^e holding about four points' share of the
	// bounding box (its area, or for points along a line its length,
	// per point), so at most N/2 of them a side.
	area := max((x1-x0)*(y1-y0), span*span/float64(N)) / float64(N)
	h := math.Exp2(math.Ceil(math.Log2(2 * math.Sqrt(area))))
	s.spacing = h / 2
	cell := func(dst []int32, v []float64, o float64) []int32 {
		dst = grow(dst, len(v))
		for k, x := range v {
			dst[k] = int32(math.Floor((x - o) / h))
		}
		return dst
	}
	scx, scy := cell(s.cells[0], s.sx, x0), cell(s.cells[1], s.sy, y0)
	dcx, dcy := cell(s.cells[2], s.dx, x0), cell(s.cells[3], s.dy, y0)
	if s.cellIdx == nil {
		s.cellIdx = make(map[uint64]int32)
	}
	sx, sy, sm, dx, dy, dm := s.sx, s.sy, s.sup, s.dx, s.dy, s.dem
	for int64(len(sm))*int64(len(dm)) > most {
		if len(lv) == cap(lv) {
			lv = append(lv, level{})
		} else {
			lv = lv[:len(lv)+1]
		}
		L := &lv[len(lv)-1]
		L.h = h
		h *= 2
		s.netCells(L, sx, sy, sm, dx, dy, dm, scx, scy, dcx, dcy)
		// Halve the cells (in place: each node keeps its cell).
		for _, c := range [][]int32{scx, scy, dcx, dcy} {
			for k := range c {
				c[k] >>= 1
			}
		}
		if len(L.sm) == 0 || len(L.dm) == 0 {
			lv = lv[:len(lv)-1] // every cell's masses cancel
			break
		}
		// The next level's cells: those of the nodes' cells (all members
		// of a cell share it).
		ncx, ncy := grow(s.cells[4], len(L.node)), grow(s.cells[5], len(L.node))
		for k, c := range L.sUp {
			ncx[c], ncy[c] = scx[k], scy[k]
		}
		for k, c := range L.dUp {
			ncx[c], ncy[c] = dcx[k], dcy[k]
		}
		s.cells[4], s.cells[5] = ncx, ncy
		scx, scy, dcx, dcy = scx[:0], scy[:0], dcx[:0], dcy[:0]
		for c, x := range L.node {
			switch {
			case x < 0:
			case int(x) < len(L.sm):
				scx, scy = append(scx, ncx[c]), append(scy, ncy[c])
			default:
				dcx, dcy = append(dcx, ncx[c]), append(dcy, ncy[c])
			}
		}
		sx, sy, sm, dx, dy, dm = L.sx, L.sy, L.sm, L.dx, L.dy, L.dm
	}
	s.cells[0], s.cells[1], s.cells[2], s.cells[3] = scx, scy, dcx, dcy
	s.levels = lv
	return lv
}

// netCells fills L from the finer nodes (supplies at sx, sy with masses
// sm in cells scx, scy; demands likewise): the cells numbered in order of
// first appearance (supplies first), each finer node's cell, the cells'
// nodes (supplies, then demands, each in cell order) and members. The
// demands are rescaled so that the two sides' totals agree exactly, as
// split does.
func (s *Solver) netCells(L *level, sx, sy, sm, dx, dy, dm []float64, scx, scy, dcx, dcy []int32) {
	idx := s.cellIdx
	clear(idx)
	acc := s.acc[:0] // per cell: supply mass, x and y sums; demand likewise
	find := func(cx, cy int32) int32 {
		key := uint64(uint32(cx))<<32 | uint64(uint32(cy))
		c, ok := idx[key]
		if !ok {
			c = int32(len(acc) / 6)
			idx[key] = c
			acc = append(acc, 0, 0, 0, 0, 0, 0)
		}
		return c
	}
	L.sUp, L.dUp = grow(L.sUp, len(sm)), grow(L.dUp, len(dm))
	for k, w := range sm {
		c := find(scx[k], scy[k])
		L.sUp[k] = c
		a := acc[6*c : 6*c+3]
		a[0], a[1], a[2] = a[0]+w, a[1]+w*sx[k], a[2]+w*sy[k]
	}
	for k, w := range dm {
		c := find(dcx[k], dcy[k])
		L.dUp[k] = c
		a := acc[6*c+3 : 6*c+6]
		a[0], a[1], a[2] = a[0]+w, a[1]+w*dx[k], a[2]+w*dy[k]
	}
	s.acc = acc
	nc := len(acc) / 6
	L.sx, L.sy, L.sm = L.sx[:0], L.sy[:0], L.sm[:0]
	L.dx, L.dy, L.dm = L.dx[:0], L.dy[:0], L.dm[:0]
	L.node = grow(L.node, nc)
	L.cx, L.cy = grow(L.cx, nc), grow(L.cy, nc)
	for c := range nc {
		a := acc[6*c : 6*c+6]
		t := a[0] + a[3]
		L.cx[c], L.cy[c] = (a[1]+a[4])/t, (a[2]+a[5])/t
		L.node[c] = -1
		if w := a[0] - a[3]; w > 0 {
			L.node[c] = int32(len(L.sm))
			L.sx, L.sy, L.sm = append(L.sx, a[1]/a[0]), append(L.sy, a[2]/a[0]), append(L.sm, w)
		}
	}
	n := int32(len(L.sm))
	for c := range nc {
		a := acc[6*c : 6*c+6]
		if w := a[3] - a[0]; w > 0 {
			L.node[c] = n + int32(len(L.dm))
			L.dx, L.dy, L.dm = append(L.dx, a[4]/a[3]), append(L.dy, a[5]/a[3]), append(L.dm, w)
		}
	}
	L.sKids.group(L.sUp, nc)
	L.dKids.group(L.dUp, nc)
	ts, td := 0.0, 0.0
	for _, v := range L.sm {
		ts += v
	}
	for _, v := range L.dm {
		td += v
	}
	for j := range L.dm {
		L.dm[j] *= ts / td
	}
}

// solveSparse solves the Euclidean problem in s.sup, s.dem at points
// s.sx, s.sy and s.dx, s.dy (costs at most maxc) without a cost matrix,
// coarse to fine.
//
// Each level of coarsen is solved exactly in turn, from the coarsest, by
// the network simplex on a sparse arc set with pricing sweeps (see
// sparse). The coarsest starts from the nearK nearest neighbours of each
// node. Every finer level starts from its coarser level's optimal basis
// (see seeds): its arc set is the nearKSeeded nearest neighbours of each
// node plus, for every coarse basic arc, the arcs from the finer supplies
// in one end's cell to the finer demands in the other's, and the greedy
// start ships along those arcs in the order of their reduced costs under
// the coarse potentials (each node inheriting its cell's), which is where
// the coarse optimum says the mass goes.
// After each optimum over the arc set, a local sweep (sparse.localSweep)
// adds arcs near the basis; when it finds none, a full sweep prices all
// n*m arcs and either adds arcs or proves the level optimal. So the time
// depends on how far the plans of consecutive levels differ, about a
// cell, not on how far the mass travels.
//
// When the mass hardly moves (the coarsest optimum ships it less than
// nearTransport point spacings on average, as between a prior and its
// estimate), the coarse plans hold little of the fine one and its
// nearest neighbours hold most of it: the finest level is then solved
// right after the coarsest, from its nearK nearest neighbours.
func (s *Solver) solveSparse(maxc float64) (Result, error) {
	n0, m0 := len(s.sup), len(s.dem)
	if err := s.start(maxc); err != nil {
		return Result{}, err
	}
	lv := s.coarsen()
	maxp := s.MaxPivots
	if maxp <= 0 {
		maxp = DefaultMaxPivots(n0, m0)
	}
	mass := 0.0
	for _, v := range s.sup {
		mass += v
	}
	sp := &s.sparse
	res := Result{}
	direct := false // solve the finest level from its nearest neighbours
	for l := len(lv); l >= 0; l-- {
		res.Levels++
		sx, sy, sm, dx, dy, dm := s.sx, s.sy, s.sup, s.dx, s.dy, s.dem
		if l > 0 {
			L := &lv[l-1]
			sx, sy, sm, dx, dy, dm = L.sx, L.sy, L.sm, L.dx, L.dy, L.dm
		}
		n, m := len(sm), len(dm)
		s.net.reset(n, m, maxc)
		s.net.et = &s.tour
		sp.sx, sp.sy, sp.dx, sp.dy = sx, sy, dx, dy
		if l == len(lv) || direct {
			sp.initial(&s.net, sm, dm, nearK, nil, nil, nil)
		} else {
			seeds, ku, kv := s.seeds(&lv[l], n, m)
			sp.initial(&s.net, sm, dm, nearKSeeded, seeds, ku, kv)
		}
		s.net.buildTree()
		if err := s.optimise(sp, &res, maxp, sm, dm); err != nil {
			return Result{Pivots: res.Pivots}, fmt.Errorf("emd: %d x %d problem: %w", n0, m0, err)
		}
		if l > 0 && l == len(lv) && s.net.objective() < nearTransport*s.spacing*mass {
			// The mass hardly leaves its cell: the coarse plans say
			// little about the fine one, whose nearest neighbours hold
			// it. Solve the finest level next.
			direct, l = true, 1
			continue
		}
		if l > 0 {
			s.keepBasis()
		}
	}
	res.Cost = s.net.objective()
	if math.IsInf(res.Cost, 0) || math.IsNaN(res.Cost) {
		return Result{Pivots: res.Pivots}, fmt.Errorf("emd: %d x %d problem: total cost overflows", n0, m0)
	}
	return res, nil
}

// optimise pivots the level in s.net to optimality over all its arcs:
// over the arc set, then local sweeps until they find nothing, then a
// full sweep, until that finds nothing. It counts pivots and full sweeps
// in res. sup and dem are the level's masses.
func (s *Solver) optimise(sp *sparse, res *Result, maxp int, sup, dem []float64) error {
	var pr pricer = sp
	if s.wrap != nil {
		pr = s.wrap(pr, sup, dem)
	}
	s.net.ctx = s.Context
	for {
		var err error
		res.Pivots, err = s.net.run(pr, res.Pivots, maxp)
		if err != nil {
			return err
		}
		if sp.localSweep(&s.net) > 0 {
			continue
		}
		res.Sweeps++
		if sp.sweep(&s.net) == 0 {
			return nil
		}
	}
}

// keepBasis saves the real basic arcs and the potentials of the level just
// solved, for the start of the next finer one.
func (s *Solver) keepBasis() {
	net := &s.net
	n, m := net.n, net.m
	s.basis = s.basis[:0]
	for x := range n + m {
		if i, j, real := net.arcOf(x); real {
			s.basis = append(s.basis, arcPair{int32(i), int32(j)})
		}
	}
	s.coarsePi = append(s.coarsePi[:0], net.pi[:n+m]...)
}

// seeds returns the start of the level below L (n supplies, m demands)
// from L's optimal basis and potentials (s.basis, s.coarsePi): the arcs
// from the finer supplies of one end's cell to the finer demands of the
// other's, for every basic arc, and as the greedy keys ku (supplies) and
// kv (demands) the potential of each node's cell: its node's, or, for a
// cell whose masses cancel, the largest that keeps the coarse demands'
// arcs feasible (as certifyCommon extends the certificate).
func (s *Solver) seeds(L *level, n, m int) (seeds []arcPair, ku, kv []float64) {
	nc := len(L.sm)
	seeds = s.seedBuf[:0]
	cellOf := func(x int) int32 { return s.nodeCell[x] }
	s.nodeCell = grow(s.nodeCell, nc+len(L.dm))
	for c, x := range L.node {
		if x >= 0 {
			s.nodeCell[x] = int32(c)
		}
	}
	for _, p := range s.basis {
		for _, i := range L.sKids.of(int(cellOf(int(p.i)))) {
			for _, j := range L.dKids.of(int(cellOf(nc + int(p.j)))) {
				seeds = append(seeds, arcPair{i, j})
			}
		}
	}
	s.seedBuf = seeds
	// Cell potentials.
	pot := grow(s.cellPi, len(L.node))
	s.cellPi = pot
	var tree *kdTree
	for c, x := range L.node {
		if x >= 0 {
			pot[c] = s.coarsePi[x]
			continue
		}
		if tree == nil {
			s.ctree.build(L.dx, L.dy, nil)
			w := grow(s.sparse.w, len(L.dm))
			for j := range w {
				w[j] = -s.coarsePi[nc+j]
			}
			s.sparse.w = w
			s.ctree.setWeights(w)
			tree = &s.ctree
		}
		s.h.reset(1, math.Inf(1))
		tree.search(L.cx[c], L.cy[c], &s.h)
		pot[c] = -s.h.key[0]
	}
	s.keys = grow(s.keys, n+m)
	ku, kv = s.keys[:n], s.keys[n:]
	for i, c := range L.sUp {
		ku[i] = pot[c]
	}
	for j, c := range L.dUp {
		kv[j] = pot[c]
	}
	return seeds, ku, kv
}
