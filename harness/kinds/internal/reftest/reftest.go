// Package reftest holds what the kinds' tests check against: plain,
// deliberately independent implementations of the paper's definitions
// (they share nothing with package kernels but the Grid type's
// coordinates), an exact transport LP, and helpers that read job tables.
// Only tests import it.
package reftest

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"privic/harness"
	"privic/kernels"
)

// Dist is the Euclidean distance between absolute cells.
func Dist(a kernels.Grid, i int, b kernels.Grid, j int) float64 {
	ar, ac := a.Row0+i/a.Cols, a.Col0+i%a.Cols
	br, bc := b.Row0+j/b.Cols, b.Col0+j%b.Cols
	return math.Sqrt(float64((ar-br)*(ar-br) + (ac-bc)*(ac-bc)))
}

// BA runs Blahut-Arimoto from the uniform channel for iters steps:
// c = prior . C, then C[x,y] = c[y] exp(-beta d(x,y)) / sum_z c[z] exp(-beta d(x,z)).
func BA(g kernels.Grid, prior []float64, beta float64, iters int) [][]float64 {
	m := g.Len()
	C := make([][]float64, m)
	for x := range C {
		C[x] = make([]float64, m)
		for y := range C[x] {
			C[x][y] = 1 / float64(m)
		}
	}
	for t := 0; t < iters; t++ {
		c := make([]float64, m)
		for x := 0; x < m; x++ {
			for y := 0; y < m; y++ {
				c[y] += prior[x] * C[x][y]
			}
		}
		for x := 0; x < m; x++ {
			z := 0.0
			for y := 0; y < m; y++ {
				C[x][y] = c[y] * math.Exp(-beta*Dist(g, x, g, y))
				z += C[x][y]
			}
			for y := 0; y < m; y++ {
				C[x][y] /= z
			}
		}
	}
	return C
}

// Laplace is C[x,y] proportional to exp(-eps d(x,y)) over out.
func Laplace(in, out kernels.Grid, eps float64) [][]float64 {
	C := make([][]float64, in.Len())
	for x := range C {
		C[x] = make([]float64, out.Len())
		z := 0.0
		for y := range C[x] {
			C[x][y] = math.Exp(-eps * Dist(in, x, out, y))
			z += C[x][y]
		}
		for y := range C[x] {
			C[x][y] /= z
		}
	}
	return C
}

// TightEps is max over y and x != x' of |ln C[x,y] - ln C[x',y]| / d(x,x').
func TightEps(g kernels.Grid, C [][]float64) float64 {
	m := len(C)
	best := 0.0
	for y := range C[0] {
		for x := 0; x < m; x++ {
			lx := math.Log(C[x][y])
			for x2 := x + 1; x2 < m; x2++ {
				v := math.Abs(lx-math.Log(C[x2][y])) / Dist(g, x, g, x2)
				best = math.Max(best, v)
			}
		}
	}
	return best
}

// IBU runs IBU from uniform: theta(x) <- theta(x) sum_y q(y) C[x,y] / sum_z theta(z) C[z,y].
func IBU(C [][]float64, q []float64, iters int) []float64 {
	m := len(C)
	th := make([]float64, m)
	for i := range th {
		th[i] = 1 / float64(m)
	}
	for t := 0; t < iters; t++ {
		next := make([]float64, m)
		for y := range q {
			if q[y] == 0 {
				continue
			}
			den := 0.0
			for z := 0; z < m; z++ {
				den += th[z] * C[z][y]
			}
			if den == 0 {
				continue
			}
			for x := 0; x < m; x++ {
				next[x] += th[x] * q[y] * C[x][y] / den
			}
		}
		th = next
	}
	return th
}

// EMD solves the transport problem min sum c(i,j) f(i,j) subject to
// row sums a, column sums b, f >= 0 with gonum's simplex (the last column
// constraint is implied by the others and dropped so the constraint matrix
// has full row rank).
func EMD(t testing.TB, a, b []float64, cost func(i, j int) float64) float64 {
	t.Helper()
	n, m := len(a), len(b)
	nv := n * m
	rows := n + m - 1
	A := mat.NewDense(rows, nv, nil)
	c := make([]float64, nv)
	rhs := make([]float64, rows)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			v := i*m + j
			c[v] = cost(i, j)
			A.Set(i, v, 1)
			if j < m-1 {
				A.Set(n+j, v, 1)
			}
		}
		rhs[i] = a[i]
	}
	for j := 0; j < m-1; j++ {
		rhs[n+j] = b[j]
	}
	opt, _, err := lp.Simplex(c, A, rhs, 1e-12, nil)
	if err != nil {
		t.Fatalf("LP transport: %v", err)
	}
	return opt
}

// ReferenceIsland builds the reference code's island prior from a prior
// on the Paris grid: the 5x5 block rows 4-8, cols 1-5 zeroed, A = (6,3) set
// to 0.01, everything else scaled to total 0.99.
func ReferenceIsland(g kernels.Grid, prior []float64) []float64 {
	out := make([]float64, len(prior))
	rest := 0.0
	a := 6*g.Cols + 3
	in := func(i int) bool {
		r, c := i/g.Cols, i%g.Cols
		return r >= 4 && r <= 8 && c >= 1 && c <= 5
	}
	for i, v := range prior {
		if !in(i) {
			rest += v
		}
	}
	for i, v := range prior {
		if !in(i) {
			out[i] = v * 0.99 / rest
		}
	}
	out[a] = 0.01
	return out
}

// RelClose reports whether a and b agree to tol, relative to the larger
// of them (and absolute below 1).
func RelClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Close12 compares probabilities to 1e-12 relative (with an absolute
// floor for values that underflow towards 0).
func Close12(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))+1e-300
}

// Table returns the job table called name among ts.
func Table(t testing.TB, ts []harness.Table, name string) *harness.Table {
	t.Helper()
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i]
		}
	}
	t.Fatalf("no table %q among %d tables", name, len(ts))
	return nil
}

// Cell returns a row's value in the named column.
func Cell(t testing.TB, tb *harness.Table, row []string, name string) string {
	t.Helper()
	for i, h := range tb.Header {
		if h == name {
			return row[i]
		}
	}
	t.Fatalf("table %s has no column %q", tb.Name, name)
	return ""
}

// Float is Cell parsed as a number.
func Float(t testing.TB, tb *harness.Table, row []string, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(Cell(t, tb, row, name), 64)
	if err != nil {
		t.Fatalf("table %s column %s: %v", tb.Name, name, err)
	}
	return v
}

// Int is Cell parsed as an integer.
func Int(t testing.TB, tb *harness.Table, row []string, name string) int {
	t.Helper()
	v, err := strconv.Atoi(Cell(t, tb, row, name))
	if err != nil {
		t.Fatalf("table %s column %s: %v", tb.Name, name, err)
	}
	return v
}
