// Package lptest is the independent oracle the EMD tests compare against:
// the transport linear program solved by gonum's dense simplex. It is slow
// (dense n*m variables) and meant for small cases only.
package lptest

import (
	"fmt"

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
