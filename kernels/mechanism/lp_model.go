package mechanism

// lpModel is a linear program held by a solver between solves:
//
//	minimise cost . v  s.t.  lo <= A v <= up,  lb <= v <= ub,
//
// grown by adding rows and columns and re-solved from the last basis.
// Adding rows keeps an optimal basis dual feasible (the dual simplex's warm
// start); adding columns or changing the objective keeps it primal
// feasible (the primal simplex's). Bounds may be ±Inf. Sparse entries are
// given in compressed form: entry i of the new row (column) k is at
// idx[start[k]+i] with value val[start[k]+i], for start[k] <= ... <
// start[k+1].
type lpModel interface {
	addRows(lo, up []float64, start, idx []int32, val []float64) error
	addCols(cost, lb, ub []float64, start, idx []int32, val []float64) error
	// delCols deletes the columns idx (increasing, all nonbasic).
	delCols(idx []int32) error
	// setObj replaces the objective (one coefficient per column).
	setObj(cost []float64)
	// solve re-optimises with the dual (dual = true) or primal simplex,
	// within seconds (0: no limit).
	solve(dual bool, seconds float64) error
	// solution copies the column values into x and the row duals into y
	// (either may be nil). Row duals follow the sign convention
	// reduced cost = cost - A^T y.
	solution(x, y []float64)
	// iterations is the simplex iterations of all solves so far.
	iterations() int
	free()
}

// lpBackend makes the models of one solve. GLPK keeps its environment in
// thread-local storage, so a backend is used by one goroutine, from
// newLPBackend to close.
type lpBackend struct {
	name  string
	model func() (lpModel, error)
	close func()
}

// newLPBackend returns the backend of a sparse solver (clp or glpk).
func newLPBackend(solver string) (*lpBackend, error) {
	switch solver {
	case SolverCLP:
		return &lpBackend{name: solver, model: newCLPModel, close: func() {}}, nil
	case SolverGLPK:
		return newGLPKBackend()
	}
	return nil, errUnknownSolver(solver)
}

// stallIterations is the simplex iterations after which a re-solve is
// deemed stalled (degenerate cycling) and the solver switches algorithm:
// far above what a warm start needs, far below minutes of cycling.
func stallIterations[T ~int32](rows, cols T) int {
	return max(20000, 10*int(rows+cols))
}
