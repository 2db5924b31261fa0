package mechanisms

import (
	"math"
	"strings"
	"testing"

	"privic/kernels/mechanism"
)

// sparseSolver is the sparse LP solver compiled in (CLP first); the
// tests of the whole-grid optimum skip loudly without one.
func sparseSolver(t *testing.T) string {
	t.Helper()
	for _, s := range []string{mechanism.SolverCLP, mechanism.SolverGLPK} {
		if mechanism.SolverAvailable(s) {
			return s
		}
	}
	t.Skip("SKIPPED: neither CLP nor GLPK compiled in (go test -tags clp,glpk; Debian packages coinor-libclp-dev, libglpk-dev): the whole-grid optimal mechanism is not tested")
	return ""
}

// exactParams solves the optimal mechanism on the whole toy grid with
// every pair constrained.
func exactParams(t *testing.T, solver string) *params {
	p := toyParams(t)
	p.LP = lpParams{Solver: solver, Method: mechanism.MethodDecompose, Spanner: 1, Spanners: map[string]int{"paris": 0},
		Coarsen: map[string]int{"paris": 1}, CalibrationTol: 1e-5}
	return p
}

// TestExactOptimalJob: the whole-grid optimum at tight eps 0.8 on the toy
// city equals GLPK's or CLP's dual simplex on the whole LP (another
// algorithm on the 7,620-row program), its lp_solves rows certify the gap
// and the tight epsilon, and its average distortion, its own objective,
// is no larger than that of LAP, the planar Laplace mechanism and the
// coarse optimum at the same tight epsilon.
func TestExactOptimalJob(t *testing.T) {
	solver := sparseSolver(t)
	const eps = 0.8
	p := exactParams(t, solver)
	fr, cb, lps := runJobLP(t, p, "optimal", "eps", eps)
	if st := col(t, cb, cb.Rows[0], "status"); st != "ok" {
		t.Fatalf("status %q", st)
	}
	if len(lps.Rows) != 2 || col(t, lps, lps.Rows[0], "prior") != "city" || col(t, lps, lps.Rows[1], "prior") != "island" {
		t.Fatalf("lp_solves rows %v, want one on the city prior and one on the island prior", lps.Rows)
	}
	g := toy().Grid
	n := g.Len()
	for _, r := range lps.Rows {
		if got, want := int(fcol(t, lps, r, "constraints")), n+n*(n-1)*n; got != want {
			t.Errorf("constraints %d, want %d (row sums and 2 per pair and output)", got, want)
		}
		if d := fcol(t, lps, r, "dilation"); d != 1 {
			t.Errorf("all pairs: dilation %v", d)
		}
		primal, dual, gap := fcol(t, lps, r, "primal"), fcol(t, lps, r, "dual"), fcol(t, lps, r, "gap")
		if !(dual <= primal) || gap > mechanism.DefaultGap || math.Abs(gap-(primal-dual)/primal) > 1e-12 {
			t.Errorf("primal %v, dual %v, gap %v", primal, dual, gap)
		}
		if te := fcol(t, lps, r, "tight_epsilon"); !(te <= eps) || te < eps*(1-1e-6) {
			t.Errorf("tight epsilon %v, want at most and about %v", te, eps)
		}
	}
	ds := toy()
	_, st, err := mechanism.Optimal{Solver: solver, Method: mechanism.MethodDual}.Solve(g, g, ds.Prior(), eps)
	if err != nil {
		t.Fatal(err)
	}
	dist := fcol(t, fr, fr.Rows[0], "avg_distortion")
	if math.Abs(dist-st.Primal) > 2e-6*st.Primal || math.Abs(fcol(t, lps, lps.Rows[0], "primal")-dist) > 1e-9*dist {
		t.Errorf("whole-grid optimum's distortion %v (lp_solves %v), dual simplex on the whole LP %v", dist, fcol(t, lps, lps.Rows[0], "primal"), st.Primal)
	}
	for _, m := range []string{"lap", "planar-laplace"} {
		other, _ := runJob(t, p, m, "eps", eps)
		if d := fcol(t, other, other.Rows[0], "avg_distortion"); dist > d*(1+1e-9) {
			t.Errorf("optimum %v above %s %v at tight eps %v", dist, m, d, eps)
		}
	}
	coarse := toyParams(t) // the LP on 2x2 blocks, lifted back
	other, _ := runJob(t, coarse, "optimal", "eps", eps)
	if d := fcol(t, other, other.Rows[0], "avg_distortion"); dist > d*(1+1e-9) {
		t.Errorf("optimum %v above the coarse optimum %v", dist, d)
	}
}

// TestExactOptimalCalibratesWarm: a distortion calibration solves the LP
// once cold and then warm from the previous solve, logs every solve, and
// lands within lp.calibration_tol; lp.calibrations leaves out the others
// with a reason; a spanner's dilation is logged.
func TestExactOptimalCalibratesWarm(t *testing.T) {
	p := exactParams(t, sparseSolver(t))
	p.LP.Spanners = map[string]int{"paris": 1}
	const goal = 1.2
	fr, cb, lps := runJobLP(t, p, "optimal", "distortion", goal)
	if got := fcol(t, fr, fr.Rows[0], "avg_distortion"); math.Abs(got-goal) > 1e-5*goal {
		t.Errorf("distortion %v, goal %v", got, goal)
	}
	evals := int(fcol(t, cb, cb.Rows[0], "evals"))
	city := 0
	for _, r := range lps.Rows {
		if col(t, lps, r, "prior") != "city" {
			continue
		}
		if warm := col(t, lps, r, "warm"); warm != map[bool]string{true: "false", false: "true"}[city == 0] {
			t.Errorf("solve %d: warm %s", city, warm)
		}
		if d := fcol(t, lps, r, "dilation"); !(d > 1.05 && d < 1.1) {
			t.Errorf("spanner 1 on 4x5: dilation %v", d)
		}
		city++
	}
	if city != evals || evals < 2 {
		t.Errorf("%d solves logged on the city prior, %d calibration evaluations", city, evals)
	}
	p.LP.Calibrations = []string{"eps"}
	_, cb, lps = runJobLP(t, p, "optimal", "mi", 0.5)
	if st := col(t, cb, cb.Rows[0], "status"); !strings.HasPrefix(st, "skipped: ") || !strings.Contains(st, "lp.calibrations") || len(lps.Rows) != 0 {
		t.Errorf("mi left out by lp.calibrations: status %q, %d solves", st, len(lps.Rows))
	}
}

// TestExactOptimalTimeLimit: a job whose LP budget runs out is recorded
// with status "time limit" and no frontier rows, not as a failure.
func TestExactOptimalTimeLimit(t *testing.T) {
	p := exactParams(t, sparseSolver(t))
	p.LP.TimeLimit = 1e-9
	fr, cb, _ := runJobLP(t, p, "optimal", "distortion", 1.2)
	if st := col(t, cb, cb.Rows[0], "status"); !strings.HasPrefix(st, "time limit: ") || len(fr.Rows) != 0 {
		t.Errorf("status %q, %d frontier rows", st, len(fr.Rows))
	}
}

// TestExactOptimalWithoutSolver: without the solver compiled in, the job
// is skipped and says how to build it.
func TestExactOptimalWithoutSolver(t *testing.T) {
	if mechanism.SolverAvailable(mechanism.SolverCLP) {
		t.Skip("SKIPPED: CLP is compiled in; this tests the build without it")
	}
	_, cb, _ := runJobLP(t, exactParams(t, mechanism.SolverCLP), "optimal", "eps", 1)
	if st := col(t, cb, cb.Rows[0], "status"); !strings.Contains(st, "not compiled in") || !strings.Contains(st, "-tags clp") {
		t.Errorf("status %q", st)
	}
}

// TestLPWords: the report's summary of the solves counts them, takes the
// median of the cold and of the warm times, and the worst gap and tight
// epsilon; the comparison flags an optimum above another mechanism.
func TestLPWords(t *testing.T) {
	solves := []lpSolve{
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 40, eps: 1, tight: 0.99999999, gap: 4e-7, seconds: 30},
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 12, eps: 0.5, tight: 0.5, gap: 6e-7, seconds: 5, warm: true},
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 50, eps: 2, tight: 1.9, gap: 1e-7, seconds: 50},
	}
	w := lpWords(solves)
	if len(w) != 1 {
		t.Fatalf("%d lines: %q", len(w), w)
	}
	for _, want := range []string{"3 solves", "all pairs", "4465065 constraints", "12-50 rounds", "median 40 s (max 50 s)", "warm-started median 5 s", "gap 6e-07", "/ eps 1"} {
		if !strings.Contains(w[0], want) {
			t.Errorf("%q lacks %q", w[0], want)
		}
	}
	p := toyParams(t)
	cells := []*cell{
		{city: "paris", mech: "optimal", cal: "eps", level: 1, dist: 1.5, emdMean: 0.3},
		{city: "paris", mech: "lap", cal: "eps", level: 1, dist: 1.4, emdMean: 0.2},
		{city: "paris", mech: "rr", cal: "eps", level: 1, dist: 3},
	}
	o := optimumWords(p, cells, solves)
	if len(o) != 1 || !strings.Contains(o[0], "1.5 is ABOVE the lowest other (lap, 1.4)") || !strings.Contains(o[0], "EMD 0.3 against LAP's 0.2") {
		t.Errorf("comparison %q", o)
	}
}
