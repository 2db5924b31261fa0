package lp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// SolveGonum solves p with gonum's dense simplex (pure Go, always
// available; dense, so for small programs only) from a given feasible
// basis, and returns the solution. Every row of p must be an equality
// (RowLo = RowUp) or have only an upper bound (RowLo = -Inf). The
// standard form gonum takes adds a slack column to each row of the
// second kind, after p's columns and in row order; the starting basis is
// the columns start (one per equality row) and every slack. Starting
// there skips gonum's phase one, which would add an artificial column per
// row; the caller must make sure that the basis is non-singular and
// feasible.
func SolveGonum(p *Problem, start []int) (sol []float64, err error) {
	// gonum panics on inconsistent input; a panic must not escape to the
	// caller.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gonum simplex: %v", r)
		}
	}()
	if err := p.check(); err != nil {
		return nil, err
	}
	nRow, nVar := len(p.RowLo), len(p.Cost)
	slack := make([]int, nRow) // the slack column of each row, -1 if none
	cols := nVar
	for i, lo := range p.RowLo {
		switch up := p.RowUp[i]; {
		case lo == up:
			slack[i] = -1
		case math.IsInf(lo, -1) && !math.IsInf(up, 0):
			slack[i] = cols
			cols++
		default:
			return nil, fmt.Errorf("lp: row %d has bounds [%v, %v]: gonum takes equalities and upper bounds only", i, lo, up)
		}
	}
	a := mat.NewDense(nRow, cols, nil)
	b := make([]float64, nRow)
	c := make([]float64, cols)
	copy(c, p.Cost)
	for t, v := range p.Val {
		a.Set(int(p.Row[t]), int(p.Col[t]), v)
	}
	basis := append(make([]int, 0, nRow), start...)
	for i, s := range slack {
		if s < 0 {
			b[i] = p.RowLo[i]
			continue
		}
		a.Set(i, s, 1)
		b[i] = p.RowUp[i]
		basis = append(basis, s)
	}
	_, x, err := gonumlp.Simplex(c, a, b, 1e-10, basis)
	if err != nil {
		return nil, fmt.Errorf("gonum simplex (%d rows x %d columns): %w", nRow, cols, err)
	}
	return x[:nVar], nil
}
