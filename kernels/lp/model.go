package lp

import "fmt"

// Solver names.
const (
	GLPK = "glpk"
	CLP  = "clp"
)

// Available reports whether the named solver is compiled in.
func Available(solver string) bool {
	switch solver {
	case GLPK:
		return haveGLPK
	case CLP:
		return haveCLP
	}
	return false
}

// Model is a linear program held by a solver between solves:
//
//	minimise cost . v  s.t.  lo <= A v <= up,  lb <= v <= ub,
//
// grown by adding rows and columns and re-solved from the last basis.
// Adding rows keeps an optimal basis dual feasible (the dual simplex's warm
// start); adding columns or changing the objective keeps it primal
// feasible (the primal simplex's). Bounds may be ±Inf. Sparse entries are
// given in compressed form: entry i of the new row (column) k is at
// idx[start[k]+i] with value val[start[k]+i], for start[k] <= ... <
// start[k+1]. Adding no row or column is a no-op.
type Model interface {
	AddRows(lo, up []float64, start, idx []int32, val []float64) error
	AddCols(cost, lb, ub []float64, start, idx []int32, val []float64) error
	// DelCols deletes the columns idx (increasing, all nonbasic); the
	// later columns move up.
	DelCols(idx []int32) error
	// SetObj replaces the objective (one coefficient per column).
	SetObj(cost []float64)
	// Solve re-optimises with the dual (dual = true) or primal simplex,
	// within seconds of wall-clock time (0: no limit). A re-solve that
	// makes no progress for many iterations (degenerate cycling) switches
	// to the other simplex, then to a fresh basis.
	Solve(dual bool, seconds float64) error
	// Solution copies the column values into x and the row duals into y
	// (either may be nil). Row duals follow the sign convention
	// reduced cost = cost - A^T y.
	Solution(x, y []float64)
	// Iterations is the simplex iterations of all solves so far.
	Iterations() int
	// Free releases the solver's memory (not Go's: a model not freed
	// leaks). Freeing twice is harmless.
	Free()
}

// Backend makes the models of one solver. GLPK keeps its environment in
// thread-local storage, so a backend is used by one goroutine, from
// NewBackend to Close, and so are its models.
type Backend struct {
	model func() (Model, error)
	close func()
}

// NewBackend returns the backend of a solver (GLPK or CLP).
func NewBackend(solver string) (*Backend, error) {
	switch solver {
	case CLP:
		return &Backend{model: newCLPModel, close: func() {}}, nil
	case GLPK:
		return newGLPKBackend()
	}
	return nil, fmt.Errorf("unknown LP solver %q (known: glpk, clp)", solver)
}

// Model returns a new, empty model (no rows, no columns).
func (b *Backend) Model() (Model, error) { return b.model() }

// Close releases the backend; its models must be freed before.
func (b *Backend) Close() { b.close() }

// stallIterations is the simplex iterations after which a re-solve is
// deemed stalled (degenerate cycling) and the solver switches algorithm:
// far above what a warm start needs, far below minutes of cycling.
func stallIterations[T ~int32](rows, cols T) int {
	return max(20000, 10*int(rows+cols))
}
