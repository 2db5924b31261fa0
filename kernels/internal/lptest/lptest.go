// Package lptest holds the independent oracles the EMD tests compare
// against: the transport linear program solved by gonum's dense simplex
// (slow, dense n*m variables, for small cases only), and a checker of
// optimality certificates (a plan and dual potentials) that prices every
// arc afresh.
package lptest

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Transport returns the optimal cost of moving supplies a onto demands b
// (equal totals) at cost(i, j) per unit, from the LP in standard form:
// variables x[i*m+j] >= 0, row sums a, column sums b. One column
// constraint is implied by the others (equal totals) and is dropped so
// that the constraint matrix has full row rank, as lp.Simplex requires;
// the largest demand's is dropped, so its implied value stays clear of 0
// despite rounding.
func Transport(a, b []float64, cost func(i, j int) float64) (float64, error) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return 0, fmt.Errorf("lptest: %d supplies and %d demands", n, m)
	}
	A := mat.NewDense(n+m-1, n*m, nil)
	rhs := make([]float64, n+m-1)
	c := make([]float64, n*m)
	drop := 0
	for j := range b {
		if b[j] > b[drop] {
			drop = j
		}
	}
	row := make([]int, m) // constraint row of each kept demand
	for j, r := 0, n; j < m; j++ {
		if j != drop {
			row[j], rhs[r] = r, b[j]
			r++
		}
	}
	for i := range n {
		for j := range m {
			A.Set(i, i*m+j, 1)
			if j != drop {
				A.Set(row[j], i*m+j, 1)
			}
			c[i*m+j] = cost(i, j)
		}
		rhs[i] = a[i]
	}
	opt, _, err := lp.Simplex(c, A, rhs, 1e-13, nil)
	if err != nil {
		return 0, fmt.Errorf("lp.Simplex on %d x %d: %w", n, m, err)
	}
	return opt, nil
}

// Flow is one entry of a transport plan: Mass from supply From to demand
// To.
type Flow struct {
	From, To int
	Mass     float64
}

// Certificate checks a claimed optimum of the transport of a onto b
// (rescaled to a's total) at cost(i, j) per unit, without trusting the
// solver that produced it: the plan flows is feasible and costs total;
// u[i] + v[j] <= cost(i, j) on every pair (i, j), each priced afresh;
// equality on the plan's arcs (complementary slackness); and the dual
// objective sum a u + sum b' v equals total. Then total is optimal by weak
// duality. Feasibility and slackness are checked to tol*C with C the
// largest |cost|, the objectives to tol*C per unit of mass, the marginals
// to 1e-12 of the mass. It returns the first failure.
func Certificate(a, b []float64, cost func(i, j int) float64, total float64, flows []Flow, u, v []float64, tol float64) error {
	if len(u) != len(a) || len(v) != len(b) {
		return fmt.Errorf("%d and %d potentials for %d and %d masses", len(u), len(v), len(a), len(b))
	}
	sa, sb := 0.0, 0.0
	for _, x := range a {
		sa += x
	}
	for _, x := range b {
		sb += x
	}
	scale := sa / sb
	C := 0.0
	for i := range a {
		for j := range b {
			C = max(C, math.Abs(cost(i, j)))
		}
	}
	tol *= max(C, math.SmallestNonzeroFloat64)
	out, in := make([]float64, len(a)), make([]float64, len(b))
	primal := 0.0
	for _, f := range flows {
		if f.From < 0 || f.From >= len(a) || f.To < 0 || f.To >= len(b) || !(f.Mass > 0) {
			return fmt.Errorf("flow %+v: out of range or not positive", f)
		}
		out[f.From] += f.Mass
		in[f.To] += f.Mass
		c := cost(f.From, f.To)
		primal += f.Mass * c
		if d := u[f.From] + v[f.To] - c; math.Abs(d) > tol {
			return fmt.Errorf("plan ships %v on %d -> %d (cost %v) whose reduced cost is %g", f.Mass, f.From, f.To, c, -d)
		}
	}
	for i, x := range a {
		if math.Abs(out[i]-x) > 1e-12*sa {
			return fmt.Errorf("plan ships %v from %d, want %v", out[i], i, x)
		}
	}
	for j, x := range b {
		if math.Abs(in[j]-x*scale) > 1e-12*sa {
			return fmt.Errorf("plan delivers %v to %d, want %v", in[j], j, x*scale)
		}
	}
	if math.Abs(primal-total) > tol*sa {
		return fmt.Errorf("plan costs %v, result says %v", primal, total)
	}
	dual := 0.0
	for i, ui := range u {
		for j, vj := range v {
			if c := cost(i, j); ui+vj > c+tol {
				return fmt.Errorf("arc %d -> %d: u + v = %v exceeds its cost %v by %g", i, j, ui+vj, c, ui+vj-c)
			}
		}
		dual += a[i] * ui
	}
	for j, vj := range v {
		dual += b[j] * scale * vj
	}
	if math.Abs(dual-total) > tol*sa {
		return fmt.Errorf("dual objective %v, cost %v", dual, total)
	}
	return nil
}
