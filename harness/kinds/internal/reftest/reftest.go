package paper

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"privic/kernels"
)

// Independent, deliberately plain implementations of the protocol's
// definitions (PROTOCOL.md), used as the reference the kinds' tables are
// checked against. They share nothing with package kernels except the Grid
// type's coordinates.

// dist is the Euclidean distance between absolute cells.
func dist(a kernels.Grid, i int, b kernels.Grid, j int) float64 {
	ar, ac := a.Row0+i/a.Cols, a.Col0+i%a.Cols
	br, bc := b.Row0+j/b.Cols, b.Col0+j%b.Cols
	return math.Sqrt(float64((ar-br)*(ar-br) + (ac-bc)*(ac-bc)))
}

// plainBA runs Blahut-Arimoto from the uniform channel for iters steps:
// c = prior . C, then C[x,y] = c[y] exp(-beta d(x,y)) / sum_z c[z] exp(-beta d(x,z)).
func plainBA(g kernels.Grid, prior []float64, beta float64, iters int) [][]float64 {
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
				C[x][y] = c[y] * math.Exp(-beta*dist(g, x, g, y))
				z += C[x][y]
			}
			for y := 0; y < m; y++ {
				C[x][y] /= z
			}
		}
	}
	return C
}

// plainLaplace is C[x,y] proportional to exp(-eps d(x,y)) over out.
func plainLaplace(in, out kernels.Grid, eps float64) [][]float64 {
	C := make([][]float64, in.Len())
	for x := range C {
		C[x] = make([]float64, out.Len())
		z := 0.0
		for y := range C[x] {
			C[x][y] = math.Exp(-eps * dist(in, x, out, y))
			z += C[x][y]
		}
		for y := range C[x] {
			C[x][y] /= z
		}
	}
	return C
}

// plainTightEps is max over y and x != x' of |ln C[x,y] - ln C[x',y]| / d(x,x').
func plainTightEps(g kernels.Grid, C [][]float64) float64 {
	m := len(C)
	best := 0.0
	for y := range C[0] {
		for x := 0; x < m; x++ {
			lx := math.Log(C[x][y])
			for x2 := x + 1; x2 < m; x2++ {
				v := math.Abs(lx-math.Log(C[x2][y])) / dist(g, x, g, x2)
				best = math.Max(best, v)
			}
		}
	}
	return best
}

// plainIBU runs IBU from uniform: theta(x) <- theta(x) sum_y q(y) C[x,y] / sum_z theta(z) C[z,y].
func plainIBU(C [][]float64, q []float64, iters int) []float64 {
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

// lpEMD solves the transport problem min sum c(i,j) f(i,j) subject to
// row sums a, column sums b, f >= 0 with gonum's simplex (the last column
// constraint is implied by the others and dropped so the constraint matrix
// has full row rank).
func lpEMD(t *testing.T, a, b []float64, cost func(i, j int) float64) float64 {
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

// islandByHand builds the reference code's island prior from a prior on
// the Paris grid: the 5x5 block rows 4-8, cols 1-5 zeroed, A = (6,3) set
// to 0.01, everything else scaled to total 0.99.
func islandByHand(g kernels.Grid, prior []float64) []float64 {
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

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestLPEMDClosedForm checks the reference EMD itself on cases with known
// answers, so the comparisons below rest on something.
func TestLPEMDClosedForm(t *testing.T) {
	g := kernels.Grid{Rows: 2, Cols: 2}
	cost := func(i, j int) float64 { return dist(g, i, g, j) }
	// Point mass at (0,0) to point mass at (1,1): sqrt 2.
	if got := lpEMD(t, []float64{1, 0, 0, 0}, []float64{0, 0, 0, 1}, cost); !relClose(got, math.Sqrt2, 1e-12) {
		t.Errorf("point masses: got %v, want sqrt 2", got)
	}
	// Half the mass moves one cell, from (0,1) to (1,1): 0.5.
	if got := lpEMD(t, []float64{0.5, 0.5, 0, 0}, []float64{0.5, 0, 0, 0.5}, cost); !relClose(got, 0.5, 1e-12) {
		t.Errorf("half shift: got %v, want 0.5", got)
	}
}
