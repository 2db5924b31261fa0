package emd

import (
	"fmt"
	"math"
	"slices"
)

// coarseArcs bounds n*m on the coarsest level of the sparse solver.
const coarseArcs = 1 << 14

// level is one coarsening of the supplies and demands of the finer level
// below it: the nodes of a side that share a cell are merged into one
// node with their total mass at their mass-weighted centroid. up maps
// each node of the finer level to its merged node here.
type level struct {
	sx, sy, sm []float64
	dx, dy, dm []float64
	sUp, dUp   []int32
	// The merged nodes' members on the finer level, in CSR form.
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

// merge groups the points (x, y) with masses w by the cells (cx, cy),
// appending the merged points to gx, gy, gm (centroids and total masses)
// and writing each point's group to up; groups are numbered in order of
// first appearance.
func merge(gx, gy, gm []float64, x, y, w []float64, cx, cy []int32, up []int32, idx map[uint64]int32) ([]float64, []float64, []float64) {
	clear(idx)
	for k := range x {
		key := uint64(uint32(cx[k]))<<32 | uint64(uint32(cy[k]))
		g, ok := idx[key]
		if !ok {
			g = int32(len(gm))
			idx[key] = g
			gx, gy, gm = append(gx, 0), append(gy, 0), append(gm, 0)
		}
		up[k] = g
		gx[g] += w[k] * x[k]
		gy[g] += w[k] * y[k]
		gm[g] += w[k]
	}
	for g := range gm {
		gx[g] /= gm[g]
		gy[g] /= gm[g]
	}
	return gx, gy, gm
}

// coarsen builds the levels above the problem in s (supplies at s.sx,
// s.sy with masses s.sup, demands likewise), finest first, until the
// coarsest has at most coarseArcs arcs. Cells are squares of side 2^e on
// the first level, about four points of a full grid (side 2 on an integer
// grid), and double on each level; a level that would merge less than a
// quarter of the nodes is skipped (its cells doubled again).
func (s *Solver) coarsen() []level {
	x0 := min(slices.Min(s.sx), slices.Min(s.dx))
	x1 := max(slices.Max(s.sx), slices.Max(s.dx))
	y0 := min(slices.Min(s.sy), slices.Min(s.dy))
	y1 := max(slices.Max(s.sy), slices.Max(s.dy))
	N := len(s.sx) + len(s.dx)
	span := max(x1-x0, y1-y0)
	lv := s.levels[:0]
	if int64(len(s.sx))*int64(len(s.dx)) <= coarseArcs || !(span > 0) {
		return lv
	}
	// Cells of side h = 2^e >= 2 span/sqrt(N): at most sqrt(N)/2 a side.
	h := math.Exp2(math.Ceil(math.Log2(span/math.Sqrt(float64(N)))) + 1)
	cell := func(dst []int32, v []float64, o float64) []int32 {
		dst = grow(dst, len(v))
		for k, x := range v {
			dst[k] = int32(math.Floor((x - o) / h))
		}
		return dst
	}
	scx, scy := cell(s.cells[0], s.sx, x0), cell(s.cells[1], s.sy, y0)
	dcx, dcy := cell(s.cells[2], s.dx, x0), cell(s.cells[3], s.dy, y0)
	s.cells[0], s.cells[1], s.cells[2], s.cells[3] = scx, scy, dcx, dcy
	if s.cellIdx == nil {
		s.cellIdx = make(map[uint64]int32)
	}
	sx, sy, sm, dx, dy, dm := s.sx, s.sy, s.sup, s.dx, s.dy, s.dem
	for int64(len(sm))*int64(len(dm)) > coarseArcs {
		if len(lv) == cap(lv) {
			lv = append(lv, level{})
		} else {
			lv = lv[:len(lv)+1]
		}
		L := &lv[len(lv)-1]
		L.sUp, L.dUp = grow(L.sUp, len(sm)), grow(L.dUp, len(dm))
		for {
			L.sx, L.sy, L.sm = merge(L.sx[:0], L.sy[:0], L.sm[:0], sx, sy, sm, scx, scy, L.sUp, s.cellIdx)
			L.dx, L.dy, L.dm = merge(L.dx[:0], L.dy[:0], L.dm[:0], dx, dy, dm, dcx, dcy, L.dUp, s.cellIdx)
			// Halve the cells (in place: each node keeps its cell).
			for _, c := range [][]int32{scx, scy, dcx, dcy} {
				for k := range c {
					c[k] >>= 1
				}
			}
			if 4*(len(L.sm)+len(L.dm)) <= 3*(len(sm)+len(dm)) || len(L.sm)*len(L.dm) == 1 {
				break
			}
		}
		// The merged nodes' cells: one member's (all share it).
		scx, scy = gather32(scx, L.sUp, len(L.sm)), gather32(scy, L.sUp, len(L.sm))
		dcx, dcy = gather32(dcx, L.dUp, len(L.dm)), gather32(dcy, L.dUp, len(L.dm))
		L.sKids.group(L.sUp, len(L.sm))
		L.dKids.group(L.dUp, len(L.dm))
		// The sums of the two sides differ by rounding: rescale the
		// demands so that the plan balances, as split does.
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
		sx, sy, sm, dx, dy, dm = L.sx, L.sy, L.sm, L.dx, L.dy, L.dm
	}
	s.levels = lv
	return lv
}

// gather32 returns, for each of ng groups, the value of c at one of its
// members (up maps members to groups), reusing c's storage.
func gather32(c []int32, up []int32, ng int) []int32 {
	for k, g := range up {
		c[g] = c[k] // g <= k: groups are numbered by first appearance
	}
	return c[:ng]
}

// solveSparse solves the Euclidean problem in s.sup, s.dem at points
// s.sx, s.sy and s.dx, s.dy (costs at most maxc) without a cost matrix,
// coarse to fine.
//
// Each level of coarsen is solved exactly in turn, from the coarsest, by
// the network simplex on a sparse arc set with pricing sweeps (see
// sparse). The coarsest starts from the nearK nearest neighbours of each
// node. Every finer level starts from its coarser level's optimal basis:
// its arc set is the nearKSeeded nearest neighbours of each node plus
// every arc between the members of the two ends of a coarse basic arc,
// and the greedy start ships along those arcs in the order of their
// reduced costs under the coarse potentials (each node inheriting its
// merged node's), which is where the coarse optimum says the mass goes.
// After each optimum over the arc set, a local sweep (sparse.localSweep)
// adds arcs near the basis; when it finds none, a full sweep prices all
// n*m arcs and either adds arcs or proves the level optimal. So the time
// depends on how far the plans of consecutive levels differ, about a
// cell, not on how far the mass travels.
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
	sp := &s.sparse
	res := Result{Levels: len(lv) + 1}
	for l := len(lv); l >= 0; l-- {
		sx, sy, sm, dx, dy, dm := s.sx, s.sy, s.sup, s.dx, s.dy, s.dem
		if l > 0 {
			L := &lv[l-1]
			sx, sy, sm, dx, dy, dm = L.sx, L.sy, L.sm, L.dx, L.dy, L.dm
		}
		n, m := len(sm), len(dm)
		s.net.reset(n, m, maxc)
		s.net.et = &s.tour
		sp.sx, sp.sy, sp.dx, sp.dy = sx, sy, dx, dy
		if l == len(lv) {
			sp.initial(&s.net, sm, dm, nearK, nil, nil, nil)
		} else {
			seeds, ku, kv := s.seeds(&lv[l], n, m)
			sp.initial(&s.net, sm, dm, nearKSeeded, seeds, ku, kv)
		}
		s.net.buildTree()
		err := s.optimise(sp, &res, maxp)
		if err != nil {
			return Result{Pivots: res.Pivots}, fmt.Errorf("emd: %d x %d problem: %w", n0, m0, err)
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
// in res.
func (s *Solver) optimise(sp *sparse, res *Result, maxp int) error {
	for {
		var err error
		res.Pivots, err = s.net.run(sp, res.Pivots, maxp)
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
// between the members of the two ends of every basic arc, and each
// node's inherited potential as the greedy keys ku (supplies) and kv
// (demands).
func (s *Solver) seeds(L *level, n, m int) (seeds []arcPair, ku, kv []float64) {
	seeds = s.seedBuf[:0]
	for _, p := range s.basis {
		for _, i := range L.sKids.of(int(p.i)) {
			for _, j := range L.dKids.of(int(p.j)) {
				seeds = append(seeds, arcPair{i, j})
			}
		}
	}
	s.seedBuf = seeds
	nc := len(L.sm)
	s.keys = grow(s.keys, n+m)
	ku, kv = s.keys[:n], s.keys[n:]
	for i, g := range L.sUp {
		ku[i] = s.coarsePi[g]
	}
	for j, g := range L.dUp {
		kv[j] = s.coarsePi[nc+int(g)]
	}
	return seeds, ku, kv
}
