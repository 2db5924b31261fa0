package lp

import "fmt"

// Problem is a whole linear program, for SolveGLPK and SolveGonum:
//
//	minimise Cost . v  s.t.  RowLo <= A v <= RowUp,  v >= 0,
//
// with one column per entry of Cost, one row per entry of RowLo and RowUp
// (bounds may be ±Inf), and A given as triplets: A[Row[t], Col[t]] =
// Val[t], 0-based, each position at most once. The triplets' order is the
// order the solver stores them in, which may steer its pivots.
type Problem struct {
	Cost         []float64
	RowLo, RowUp []float64
	Row, Col     []int32
	Val          []float64
}

// MaxNonZeros is the most triplets a Problem may have: GLPK indexes them
// with a C int, from 1.
const MaxNonZeros = 1<<31 - 2

// Method is the algorithm of SolveGLPK.
type Method int

// Methods of SolveGLPK (their values are GLPK's own codes).
const (
	Interior   Method = iota // interior point
	Primal                   // primal simplex
	DualPrimal               // dual simplex, switching to primal if it fails
)

// check refuses a Problem whose arrays disagree, whose triplets point
// outside it, or whose size GLPK cannot index.
func (p *Problem) check() error {
	nRow, nCol := len(p.RowLo), len(p.Cost)
	switch {
	case len(p.Val) > MaxNonZeros:
		return fmt.Errorf("glpk: %d non-zeros exceed C int", len(p.Val))
	case len(p.RowUp) != nRow:
		return fmt.Errorf("lp: %d row lower bounds, %d upper bounds", nRow, len(p.RowUp))
	case len(p.Row) != len(p.Val) || len(p.Col) != len(p.Val):
		return fmt.Errorf("lp: triplets of %d rows, %d columns, %d values", len(p.Row), len(p.Col), len(p.Val))
	}
	for t := range p.Val {
		if r, c := p.Row[t], p.Col[t]; r < 0 || int(r) >= nRow || c < 0 || int(c) >= nCol {
			return fmt.Errorf("lp: triplet %d at (%d, %d), outside %d rows x %d columns", t, r, c, nRow, nCol)
		}
	}
	return nil
}
