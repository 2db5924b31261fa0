package kernels

import (
	"fmt"

	"privic/kernels/emd"
)

// EMD is the exact earth mover's distance (Wasserstein-1) between p on grid a
// and q on grid b, with the Euclidean distance between absolute cell
// positions (cell units) as ground distance. The grids may differ, e.g. a
// base grid and its Widen(w) output grid.
//
// p and q must have a.Len() and b.Len() entries, all finite and >= 0, each
// summing to 1 within StochasticTol*len (the rounding of a sum of len
// terms). Both are divided by their sums, so the result is the distance
// between the distributions they stand for and EMD(a, p, b, q) equals
// EMD(b, q, a, p) up to rounding.
//
// Because the ground distance is a metric, the distance depends only on the
// signed measure p - q (Kantorovich-Rubinstein duality): mass the two share
// at a cell stays put, and only the net surplus is transported, by the
// network simplex of package emd: with a dense cost matrix on small grids,
// without one (O(cells) memory, see package emd) on large ones.
func EMD(a Grid, p []float64, b Grid, q []float64) (float64, error) {
	r, err := emdSolve(a, p, b, q, false)
	return r.Cost, err
}

// emdSolve is EMD returning the solver's result. With duals it carries the
// optimality certificate (see emd.Result) for p/sum(p) on a's cells (U,
// Flows' From) and q/sum(q) on b's cells (V, Flows' To).
func emdSolve(a Grid, p []float64, b Grid, q []float64, duals bool) (emd.Result, error) {
	if err := a.Validate(); err != nil {
		return emd.Result{}, fmt.Errorf("emd: first %w", err)
	}
	if err := b.Validate(); err != nil {
		return emd.Result{}, fmt.Errorf("emd: second %w", err)
	}
	if err := checkDist("emd: p", p, a.Len()); err != nil {
		return emd.Result{}, err
	}
	if err := checkDist("emd: q", q, b.Len()); err != nil {
		return emd.Result{}, err
	}
	sp, sq := 0.0, 0.0
	for _, v := range p {
		sp += v
	}
	for _, v := range q {
		sq += v
	}
	// Net mass on the bounding box of both grids, unless the grids lie far
	// apart and the box would be mostly empty.
	r0, c0 := min(a.Row0, b.Row0), min(a.Col0, b.Col0)
	box := Grid{
		Row0: r0, Col0: c0,
		Rows: max(a.Row0+a.Rows, b.Row0+b.Rows) - r0,
		Cols: max(a.Col0+a.Cols, b.Col0+b.Cols) - c0,
	}
	sv := emd.Solver{Duals: duals}
	if box.Rows <= 0 || box.Cols <= 0 || int64(box.Rows)*int64(box.Cols) > 4*int64(a.Len()+b.Len()) {
		return emdFar(&sv, a, p, sp, b, q, sq)
	}
	// Both distributions on the box's cells, divided by their sums.
	k := box.Len()
	x, y, pb, qb := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for i := range k {
		r, c := box.Abs(i)
		x[i], y[i] = float64(r), float64(c)
	}
	for i, v := range p {
		r, c := a.Abs(i)
		pb[box.IndexOf(r, c)] = v / sp
	}
	for j, v := range q {
		r, c := b.Abs(j)
		qb[box.IndexOf(r, c)] = v / sq
	}
	r, err := sv.SolveCommon(x, y, pb, qb)
	if err != nil {
		return emd.Result{}, fmt.Errorf("emd %v -> %v: %w", a, b, err)
	}
	if duals {
		// From box cells to the cells of a and b.
		u, v := make([]float64, a.Len()), make([]float64, b.Len())
		for i := range u {
			u[i] = r.U[box.IndexOf(a.Abs(i))]
		}
		for j := range v {
			v[j] = r.V[box.IndexOf(b.Abs(j))]
		}
		for k, f := range r.Flows {
			r.Flows[k].From = a.IndexOf(box.Abs(f.From))
			r.Flows[k].To = b.IndexOf(box.Abs(f.To))
		}
		r.U, r.V = u, v
	}
	return r, nil
}

// emdFar handles grids whose bounding box is mostly empty: the point sets
// go to SolvePoints, which cancels shared mass through a hash map.
func emdFar(sv *emd.Solver, a Grid, p []float64, sp float64, b Grid, q []float64, sq float64) (emd.Result, error) {
	coords := func(g Grid, v []float64, s float64) (x, y, m []float64) {
		x, y, m = make([]float64, len(v)), make([]float64, len(v)), make([]float64, len(v))
		for i := range v {
			r, c := g.Abs(i)
			x[i], y[i], m[i] = float64(r), float64(c), v[i]/s
		}
		return x, y, m
	}
	ax, ay, pm := coords(a, p, sp)
	bx, by, qm := coords(b, q, sq)
	r, err := sv.SolvePoints(ax, ay, pm, bx, by, qm)
	if err != nil {
		return emd.Result{}, fmt.Errorf("emd %v -> %v: %w", a, b, err)
	}
	return r, nil
}

// EMDPairs are the far-transport EMD workloads of EMDPair.
func EMDPairs() []string { return []string{"uniform", "transpose"} }

// EMDPair builds a far-transport EMD workload on a square grid g from
// per-cell counts (g.Len() of them, >= 0, not all zero): p is the counts
// divided by their total, and q is
//
//	uniform    the uniform distribution over all cells (the first estimate
//	           of PRIVIC's cycle 0, whose EMD is uniform -> prior);
//	transpose  the counts reflected on the diagonal, q(r, c) = p(c, r) +
//	           0.01 / cells, divided by its total (mass must cross the
//	           city).
//
// These are the pairs of the NumPy/POT peer's emd_pairs.py, so that their
// EMDs can be set against POT's on the same machine.
func EMDPair(g Grid, counts []int, pair string) (p, q []float64, err error) {
	if err := g.Validate(); err != nil {
		return nil, nil, fmt.Errorf("emd pair: %w", err)
	}
	if g.Rows != g.Cols {
		return nil, nil, fmt.Errorf("emd pair: grid %v is not square", g)
	}
	n := g.Len()
	if len(counts) != n {
		return nil, nil, fmt.Errorf("emd pair: %d counts for %d cells", len(counts), n)
	}
	total := 0.0
	for k, c := range counts {
		if c < 0 {
			return nil, nil, fmt.Errorf("emd pair: count %d of cell %d is negative", c, k)
		}
		total += float64(c)
	}
	if total == 0 {
		return nil, nil, fmt.Errorf("emd pair: no counts")
	}
	p, q = make([]float64, n), make([]float64, n)
	for k, c := range counts {
		p[k] = float64(c) / total
	}
	switch pair {
	case "uniform":
		for k := range q {
			q[k] = 1 / float64(n)
		}
	case "transpose":
		side := g.Rows
		for r := range side {
			for c := range side {
				q[r*side+c] = float64(counts[c*side+r])/total + 0.01/float64(n)
			}
		}
	default:
		return nil, nil, fmt.Errorf("emd pair %q: allowed pairs are %q", pair, EMDPairs())
	}
	sq := 0.0
	for _, v := range q {
		sq += v
	}
	for k := range q {
		q[k] /= sq
	}
	return p, q, nil
}
