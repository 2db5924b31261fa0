package bavslap

import (
	"fmt"
	"math"

	"privic/kernels"
	"privic/kernels/emd"
)

// pointEMD computes exact earth mover's distances (Euclidean ground
// distance) between distributions given by index over the first n cells
// of a grid g in row-major order. With n = g.Len() it is the plain EMD on
// g (kernels.EMD). With g a widened grid and n the base grid's size it
// replays the reference code's defective LAP utility (see the package
// comment): the masses of base cell i are placed at the i-th cell of the
// widened grid, which is not where they belong.
//
// It does what kernels.EMD(g, p, g, q) does, with the same checks and the
// same arithmetic (each side divided by its sum, shared mass cancelled,
// network simplex), so the results are identical bit for bit; but the
// distances between the n cells are tabulated once and one solver's work
// space serves every call, instead of both being rebuilt per EMD. Only
// the first n cells can hold mass, and cells without mass drop out of the
// transport anyway, so the table covers just those cells. A pointEMD is
// used by one goroutine (one job) at a time.
type pointEMD struct {
	g      kernels.Grid
	n      int
	pts    *emd.Points
	sv     emd.Solver
	pb, qb []float64 // normalised copies
}

// tableMaxCells is the largest number of cells whose distances a
// pointEMD tabulates (8 bytes a pair: 32 MB at 2,048 cells); larger
// grids solve each EMD with kernels.EMD, which prices arcs from the
// cells' coordinates.
const tableMaxCells = 2048

// gridEMD is pointEMD on grids of up to tableMaxCells cells and
// kernels.EMD on larger ones: the same distances (the reference code's
// defect included: masses on the first n cells), without an n x n table.
type gridEMD struct {
	g     kernels.Grid
	n     int
	table *pointEMD // nil: kernels.EMD
	pb    []float64 // the first n cells' masses padded to the grid
	qb    []float64
}

func newGridEMD(g kernels.Grid, n int) (*gridEMD, error) {
	if n > tableMaxCells {
		if n < 1 || n > g.Len() {
			return nil, fmt.Errorf("emd on the first %d cells of the %d-cell grid %v", n, g.Len(), g)
		}
		return &gridEMD{g: g, n: n}, nil
	}
	t, err := newPointEMD(g, n)
	if err != nil {
		return nil, err
	}
	return &gridEMD{g: g, n: n, table: t}, nil
}

// dist is EMD(p, q) with p and q placed on the first n cells.
func (e *gridEMD) dist(p, q []float64) (float64, error) {
	if e.table != nil {
		return e.table.dist(p, q)
	}
	if len(p) != e.n || len(q) != e.n {
		return 0, fmt.Errorf("emd of %d and %d masses on %d points", len(p), len(q), e.n)
	}
	if e.n == e.g.Len() {
		return kernels.EMD(e.g, p, e.g, q)
	}
	if e.pb == nil {
		e.pb, e.qb = make([]float64, e.g.Len()), make([]float64, e.g.Len())
	}
	copy(e.pb, p)
	copy(e.qb, q)
	return kernels.EMD(e.g, e.pb, e.g, e.qb)
}

// emdBytes estimates the memory of the EMDs of a job with tables
// gridEMDs on g: each one's distance table on small grids, and the
// network simplex's costs between the surpluses and the deficits of one
// problem (at most m/2 x m/2 arcs, 8 bytes each), doubled on large grids
// where every EMD allocates them afresh (the collector's headroom).
func emdBytes(g kernels.Grid, tables int) int64 {
	m := int64(g.Len())
	arcs := 8 * (m / 2) * ((m + 1) / 2)
	if g.Len() <= tableMaxCells {
		return int64(tables)*8*m*m + arcs
	}
	return 2 * arcs
}

func newPointEMD(g kernels.Grid, n int) (*pointEMD, error) {
	if n < 1 || n > g.Len() {
		return nil, fmt.Errorf("emd on the first %d cells of the %d-cell grid %v", n, g.Len(), g)
	}
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		r, c := g.Abs(i)
		x[i], y[i] = float64(r), float64(c)
	}
	pts, err := emd.NewPoints(x, y)
	if err != nil {
		return nil, fmt.Errorf("emd on %v: %w", g, err)
	}
	return &pointEMD{g: g, n: n, pts: pts, pb: make([]float64, n), qb: make([]float64, n)}, nil
}

// dist is EMD(p, q) with p and q placed on the first n cells.
func (e *pointEMD) dist(p, q []float64) (float64, error) {
	if len(p) != e.n || len(q) != e.n {
		return 0, fmt.Errorf("emd of %d and %d masses on %d points", len(p), len(q), e.n)
	}
	// kernels.EMD's input check: a distribution over all g.Len() cells
	// (the rest being zero), summing to 1 within StochasticTol per cell.
	tol := kernels.StochasticTol * float64(e.g.Len())
	norm := func(name string, dst, v []float64) error {
		s := 0.0
		for i, x := range v {
			if !(x >= 0) || math.IsInf(x, 1) {
				return fmt.Errorf("emd: %s[%d] = %v: entries must be finite and >= 0", name, i, x)
			}
			s += x
		}
		if math.Abs(s-1) > tol {
			return fmt.Errorf("emd: %s sums to %v, want 1 (tolerance %g)", name, s, tol)
		}
		for i, x := range v {
			dst[i] = x / s
		}
		return nil
	}
	if err := norm("p", e.pb, p); err != nil {
		return 0, err
	}
	if err := norm("q", e.qb, q); err != nil {
		return 0, err
	}
	r, err := e.sv.SolveOn(e.pts, e.pb, e.qb)
	if err != nil {
		return 0, fmt.Errorf("emd on %v: %w", e.g, err)
	}
	return r.Cost, nil
}
