package paper

import (
	"fmt"

	"privic/kernels"
)

// pointEMD computes exact earth mover's distances (kernels.EMD, Euclidean
// ground distance) between distributions given by index over the first n
// cells of a grid g in row-major order. With n = g.Len() it is the plain
// EMD on g. With g a widened grid and n the base grid's size it replays the
// reference code's defective LAP utility (PROTOCOL.md, experiment 2): the
// masses of base cell i are placed at the i-th cell of the widened grid,
// which is not where they belong.
type pointEMD struct {
	g    kernels.Grid
	n    int
	p, q []float64 // padded copies (when n < g.Len())
}

func newPointEMD(g kernels.Grid, n int) (*pointEMD, error) {
	if n < 1 || n > g.Len() {
		return nil, fmt.Errorf("EMD on the first %d cells of the %d-cell grid %v", n, g.Len(), g)
	}
	e := &pointEMD{g: g, n: n}
	if n < g.Len() {
		e.p, e.q = make([]float64, g.Len()), make([]float64, g.Len())
	}
	return e, nil
}

// dist is EMD(p, q) with p and q placed on the first n cells.
func (e *pointEMD) dist(p, q []float64) (float64, error) {
	if len(p) != e.n || len(q) != e.n {
		return 0, fmt.Errorf("EMD of %d and %d masses on %d points", len(p), len(q), e.n)
	}
	if e.n == e.g.Len() {
		return kernels.EMD(e.g, p, e.g, q)
	}
	copy(e.p, p)
	copy(e.q, q)
	return kernels.EMD(e.g, e.p, e.g, e.q)
}
