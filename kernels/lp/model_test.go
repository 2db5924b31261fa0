package lp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// solvers returns the solvers compiled in, skipping t loudly when none is.
func solvers(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range []string{GLPK, CLP} {
		if Available(s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Skip("SKIPPED: neither GLPK nor CLP compiled in (go test -tags glpk,clp): the models are not checked")
	}
	return out
}

// cover is min c.x subject to A x >= 1, x >= 0, with 20 random entries
// in [0, 1) per column of A and costs in [1, 2): a program that keeps a
// simplex busy for seconds at 2,000 rows and 20,000 columns. Its columns
// are in compressed form.
type cover struct {
	lo, up, cost, lb, ub, val []float64
	start, idx                []int32
}

func newCover(rows, cols int) *cover {
	rng := rand.New(rand.NewPCG(5, 6))
	c := &cover{lo: make([]float64, rows), up: make([]float64, rows),
		cost: make([]float64, cols), lb: make([]float64, cols), ub: make([]float64, cols),
		start: make([]int32, cols+1), idx: make([]int32, 0, 20*cols), val: make([]float64, 0, 20*cols)}
	for i := range c.lo {
		c.lo[i], c.up[i] = 1, math.Inf(1)
	}
	for j := range c.cost {
		c.cost[j], c.ub[j] = 1+rng.Float64(), math.Inf(1)
		for _, i := range rng.Perm(rows)[:20] {
			c.idx, c.val = append(c.idx, int32(i)), append(c.val, rng.Float64())
		}
		slices.Sort(c.idx[c.start[j]:])
		c.start[j+1] = int32(len(c.idx))
	}
	return c
}

// loadCover adds the cover program of rows x cols to m.
func loadCover(t *testing.T, m Model, rows, cols int) {
	t.Helper()
	c := newCover(rows, cols)
	if err := m.AddRows(c.lo, c.up, make([]int32, rows+1), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.AddCols(c.cost, c.lb, c.ub, c.start, c.idx, c.val); err != nil {
		t.Fatal(err)
	}
}

// newModel returns a model of solver s and the function that frees it
// and closes its backend.
func newModel(t *testing.T, s string) (Model, func()) {
	t.Helper()
	back, err := NewBackend(s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := back.Model()
	if err != nil {
		back.Close()
		t.Fatal(err)
	}
	return m, func() {
		m.Free()
		back.Close()
	}
}

// wantErr fails t unless err's message contains part.
func wantErr(t *testing.T, name string, err error, part string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), part) {
		t.Errorf("%s: error %v, want one saying %q", name, err, part)
	}
}

func TestStallBudgetGrowsWithTheModel(t *testing.T) {
	// A re-solve may take at least 20,000 iterations, and at least 10 per
	// row and column of a large model, before it counts as stalled.
	for _, c := range [][2]int32{{10, 20}, {1500, 600}, {3000, 4000}, {100000, 7}} {
		got := stallIterations(c[0], c[1])
		if got < 20000 || got < 10*int(c[0]+c[1]) || got > max(20000, 20*int(c[0]+c[1])) {
			t.Errorf("%d rows, %d columns: budget %d", c[0], c[1], got)
		}
	}
}

func TestUnknownAndMissingSolvers(t *testing.T) {
	// An unknown solver is named in the error; a solver not compiled in
	// says how to build it in.
	if Available("gonum") || Available("") {
		t.Error("only glpk and clp are solvers of this package")
	}
	_, err := NewBackend("nosuch")
	wantErr(t, "nosuch", err, `unknown LP solver "nosuch" (known: glpk, clp)`)
	for _, s := range []string{GLPK, CLP} {
		if Available(s) {
			continue
		}
		b, err := NewBackend(s)
		if err == nil {
			_, err = b.Model()
		}
		wantErr(t, s, err, s+": not compiled in (build with -tags "+s)
	}
}

// releaser is a model that can tell whether Free has released it (the
// solvers' test files give their models the method).
type releaser interface{ released() bool }

func TestModelContract(t *testing.T) {
	// Each model: adding nothing is a no-op; a solve finds the optimum
	// and its duals; a re-solve of an optimal model costs no iterations;
	// deleting a column removes it (the later ones move up) and a new
	// objective is re-solved from there; Solution fills only what it is
	// given; Free releases the model, and freeing twice is harmless.
	for _, s := range solvers(t) {
		back, err := NewBackend(s)
		if err != nil {
			t.Fatal(err)
		}
		lm, err := back.Model()
		if err != nil {
			t.Fatal(err)
		}
		// min c.x  s.t.  x0 + x1 + x2 = 1, x >= 0.
		if err := lm.AddRows([]float64{1}, []float64{1}, []int32{0, 0}, nil, nil); err != nil {
			t.Fatal(err)
		}
		inf := math.Inf(1)
		if err := lm.AddCols([]float64{1, 3, 2}, []float64{0, 0, 0}, []float64{inf, inf, inf}, []int32{0, 1, 2, 3}, []int32{0, 0, 0}, []float64{1, 1, 1}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []func() error{
			func() error { return lm.AddRows(nil, nil, []int32{0}, nil, nil) },
			func() error { return lm.AddCols(nil, nil, nil, []int32{0}, nil, nil) },
			func() error { return lm.DelCols(nil) },
		} {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
		if err := lm.Solve(true, 0); err != nil {
			t.Fatal(err)
		}
		x, y := make([]float64, 3), make([]float64, 1)
		lm.Solution(x, y)
		it := lm.Iterations()
		if x[0] != 1 || x[1] != 0 || x[2] != 0 || y[0] != 1 || it < 1 {
			t.Fatalf("%s: x = %v, y = %v after %d iterations; want x = (1, 0, 0), y = 1", s, x, y, it)
		}
		if err := lm.Solve(false, 0); err != nil {
			t.Fatal(err)
		}
		if got := lm.Iterations(); got != it {
			t.Errorf("%s: re-solving an optimal model: %d iterations in all, %d before", s, got, it)
		}
		// Delete the nonbasic x1 (cost 3); make the old x2 (cost 2) cheapest.
		if err := lm.DelCols([]int32{1}); err != nil {
			t.Fatal(err)
		}
		lm.SetObj([]float64{5, 2})
		if err := lm.Solve(false, 0); err != nil {
			t.Fatal(err)
		}
		x = []float64{-7, -7, -7}
		lm.Solution(x, nil)
		if x[0] != 0 || x[1] != 1 || x[2] != -7 {
			t.Errorf("%s: after deleting x1: x = %v, want (0, 1) and the third entry untouched", s, x)
		}
		y = []float64{-7, -7}
		lm.Solution(nil, y)
		if y[0] != 2 || y[1] != -7 {
			t.Errorf("%s: after deleting x1: y = %v, want 2 and the second entry untouched", s, y)
		}
		lm.Free()
		lm.Free()
		if r, ok := lm.(releaser); !ok || !r.released() {
			t.Errorf("%s: model %T not released by Free", s, lm)
		}
		back.Close()
	}
}

func TestGLPKModelTimeLimit(t *testing.T) {
	// A GLPK model's solve past its time limit says so.
	if !Available(GLPK) {
		t.Skip("SKIPPED: GLPK not compiled in (go test -tags glpk): its models' time limit is not checked")
	}
	big, done := newModel(t, GLPK)
	defer done()
	loadCover(t, big, 2000, 20000)
	wantErr(t, "model", big.Solve(false, 0.001), "glpk: time limit of 0.001 s exceeded")
}

// smallProblem is min x0 + 3 x1 + 2 x2 s.t. x0 + x1 + x2 = 1,
// x0 - x2 <= 0, x >= 0, with its triplets in a shuffled order: optimum
// x = (1/2, 0, 1/2) with duals y = (3/2, -1/2) (x0 and x2 basic: 1 -
// y0 - y1 = 0 and 2 - y0 + y1 = 0).
func smallProblem() *Problem {
	return &Problem{
		Cost:  []float64{1, 3, 2},
		RowLo: []float64{1, math.Inf(-1)},
		RowUp: []float64{1, 0},
		Row:   []int32{0, 1, 0, 1, 0},
		Col:   []int32{0, 2, 1, 0, 2},
		Val:   []float64{1, -1, 1, 1, 1},
	}
}

func TestSolveGLPK(t *testing.T) {
	// Every method finds the small problem's optimum and duals (the
	// interior point to its tolerance); a simplex past its time limit says
	// so; a problem whose arrays disagree or whose triplets point outside
	// it is refused.
	if !Available(GLPK) {
		_, _, err := SolveGLPK(smallProblem(), DualPrimal, 0)
		wantErr(t, "glpk missing", err, "glpk: not compiled in (build with -tags glpk)")
		t.Skip("SKIPPED: GLPK not compiled in (go test -tags glpk): SolveGLPK is not checked")
	}
	want, wantY := []float64{0.5, 0, 0.5}, []float64{1.5, -0.5}
	for _, c := range []struct {
		m   Method
		tol float64
	}{{DualPrimal, 1e-15}, {Primal, 1e-15}, {Interior, 1e-6}} {
		x, y, err := SolveGLPK(smallProblem(), c.m, 0)
		if err != nil {
			t.Fatalf("method %d: %v", c.m, err)
		}
		for i := range want {
			if math.Abs(x[i]-want[i]) > c.tol {
				t.Errorf("method %d: x = %v, want %v", c.m, x, want)
				break
			}
		}
		for i := range wantY {
			if math.Abs(y[i]-wantY[i]) > c.tol {
				t.Errorf("method %d: y = %v, want %v", c.m, y, wantY)
				break
			}
		}
	}
	cv := newCover(500, 5000)
	big := &Problem{Cost: cv.cost, RowLo: cv.lo, RowUp: cv.up}
	for j := range cv.cost {
		for k := cv.start[j]; k < cv.start[j+1]; k++ {
			big.Row, big.Col, big.Val = append(big.Row, cv.idx[k]), append(big.Col, int32(j)), append(big.Val, cv.val[k])
		}
	}
	_, _, err := SolveGLPK(big, Primal, time.Millisecond)
	wantErr(t, "time limit", err, "glpk: time limit of 1 ms exceeded")
	for i, mod := range []func(p *Problem){
		func(p *Problem) { p.RowUp = p.RowUp[:1] },
		func(p *Problem) { p.Col = p.Col[:4] },
		func(p *Problem) { p.Row[3] = 2 },
		func(p *Problem) { p.Col[1] = -1 },
	} {
		p := smallProblem()
		mod(p)
		_, _, err := SolveGLPK(p, DualPrimal, 0)
		wantErr(t, fmt.Sprint("bad problem ", i), err, "lp: ")
	}
}

func TestSolveGonum(t *testing.T) {
	// gonum's simplex from the basis {x2, the second row's slack} (x2 = 1,
	// slack 1: feasible) finds the small problem's optimum; a row with a
	// finite lower bound below its upper one, a basis of the wrong size
	// and inconsistent arrays are errors, not panics.
	x, err := SolveGonum(smallProblem(), []int{2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 0, 0.5}; !slices.EqualFunc(x, want, func(a, b float64) bool { return math.Abs(a-b) <= 1e-15 }) {
		t.Errorf("x = %v, want %v", x, want)
	}
	for i, c := range []struct {
		mod   func(p *Problem)
		start []int
		want  string
	}{
		{func(p *Problem) { p.RowLo[1] = -1 }, []int{2}, "lp: row 1 has bounds [-1, 0]: gonum takes equalities and upper bounds only"},
		{func(p *Problem) { p.RowUp[0] = math.Inf(1) }, []int{2}, "lp: row 0 has bounds [1, +Inf]"},
		{func(*Problem) {}, nil, "gonum simplex"},
		{func(*Problem) {}, []int{2, 0}, "gonum simplex"},
		{func(p *Problem) { p.Val = p.Val[:2] }, []int{2}, "lp: triplets of 5 rows, 5 columns, 2 values"},
	} {
		p := smallProblem()
		c.mod(p)
		_, err := SolveGonum(p, c.start)
		wantErr(t, fmt.Sprint("case ", i), err, c.want)
	}
}

func TestModelReportsInfeasibleAndUnbounded(t *testing.T) {
	// A model without an optimum says why: x0 + x1 = 1 and x0 + x1 = 2
	// have no solution; min -x0 s.t. x0 - x1 = 0, x >= 0 is unbounded.
	want := map[string][2]string{
		CLP:  {"clp: primal infeasible", "clp: dual infeasible (unbounded)"},
		GLPK: {"glpk: solution status 4, not optimal", "glpk: solution status 6, not optimal"},
	}
	inf := math.Inf(1)
	for _, s := range solvers(t) {
		for i, c := range []struct {
			lo, up, cost []float64
			start        []int32
			idx          []int32
			val          []float64
		}{
			{[]float64{1, 2}, []float64{1, 2}, []float64{1, 1}, []int32{0, 2, 4}, []int32{0, 1, 0, 1}, []float64{1, 1, 1, 1}},
			{[]float64{0}, []float64{0}, []float64{-1, 0}, []int32{0, 1, 2}, []int32{0, 0}, []float64{1, -1}},
		} {
			m, done := newModel(t, s)
			if err := m.AddRows(c.lo, c.up, make([]int32, len(c.lo)+1), nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := m.AddCols(c.cost, []float64{0, 0}, []float64{inf, inf}, c.start, c.idx, c.val); err != nil {
				t.Fatal(err)
			}
			wantErr(t, fmt.Sprintf("%s program %d", s, i), m.Solve(false, 0), want[s][i])
			done()
		}
	}
}
