package mechanisms

import (
	"context"
	"math"
	"math/rand/v2"
	"privic/harness"
	"slices"
	"strings"
	"testing"
	"time"

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
		// All pairs: the bracket is the solve's own dual and primal.
		if lo, up, g := fcol(t, lps, r, "lower"), fcol(t, lps, r, "upper"), fcol(t, lps, r, "all_pairs_gap"); lo != dual || up != primal || g > 1e-6 {
			t.Errorf("bracket [%v, %v] gap %v, solve %v, %v", lo, up, g, dual, primal)
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
// with a reason; a spanner's dilation is logged, and its relaxation (the
// spanner's edges at the full eps) brackets the all-pairs optimum at the
// calibrated eps, which the dual simplex on the whole all-pairs LP gives.
func TestExactOptimalCalibratesWarm(t *testing.T) {
	p := exactParams(t, sparseSolver(t))
	p.LP.Spanners = map[string]int{"paris": 1}
	const goal = 1.2
	fr, cb, lps := runJobLP(t, p, "optimal", "distortion", goal)
	if got := fcol(t, fr, fr.Rows[0], "avg_distortion"); math.Abs(got-goal) > 1e-5*goal {
		t.Errorf("distortion %v, goal %v", got, goal)
	}
	evals := int(fcol(t, cb, cb.Rows[0], "evals"))
	city, relax := 0, 0
	for _, r := range lps.Rows {
		if col(t, lps, r, "prior") != "city" {
			continue
		}
		if col(t, lps, r, "role") == "relaxation" {
			relax++
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
	if city != evals || evals < 2 || relax != 1 {
		t.Errorf("%d solves logged on the city prior, %d calibration evaluations, %d relaxations", city, evals, relax)
	}
	param := fcol(t, cb, cb.Rows[0], "parameter")
	lo, up := fcol(t, cb, cb.Rows[0], "optimum_lower"), fcol(t, cb, cb.Rows[0], "optimum_upper")
	g := toy().Grid
	_, st, err := mechanism.Optimal{Solver: sparseSolver(t), Method: mechanism.MethodDual}.Solve(g, g, toy().Prior(), param)
	if err != nil {
		t.Fatal(err)
	}
	if !(lo <= st.Primal*(1+1e-7)) || !(up >= st.Primal*(1-1e-7)) || !(lo > 0) || math.Abs(up-fcol(t, fr, fr.Rows[0], "avg_distortion")) > 1e-9*up {
		t.Errorf("bracket [%v, %v] at eps %v, all-pairs optimum %v (dual simplex), channel's distortion %v", lo, up, param, st.Primal, fcol(t, fr, fr.Rows[0], "avg_distortion"))
	}
	if gap := fcol(t, cb, cb.Rows[0], "optimum_gap"); math.Abs(gap-(up-lo)/up) > 1e-12 || !(gap > 0) {
		t.Errorf("optimum_gap %v for [%v, %v]", gap, lo, up)
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
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 40, eps: 1, tight: 0.99999999, gap: 4e-7, seconds: 30, role: "solve", status: "ok"},
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 12, eps: 0.5, tight: 0.5, gap: 6e-7, seconds: 5, warm: true, role: "solve", status: "ok"},
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 50, eps: 2, tight: 1.9, gap: 1e-7, seconds: 50, role: "solve", status: "ok"},
		{city: "paris", mech: "optimal", solver: "clp", method: "decompose", dilation: 1, constraints: 4465065, rounds: 9, eps: 4, tight: math.NaN(), gap: math.NaN(), seconds: 420, role: "solve", status: "time limit"},
		{city: "sf", mech: "optimal-spanner1", solver: "clp", method: "decompose", dilation: 1.08, constraints: 1089408, rounds: 30, eps: 1, tight: 1, gap: 3e-7, seconds: 200, role: "solve", status: "ok"},
		{city: "sf", mech: "optimal-spanner1", solver: "clp", method: "decompose", dilation: 1.08, constraints: 1089408, rounds: 20, eps: 1.08, tight: 1.07, gap: 3e-7, seconds: 100, role: "relaxation", status: "ok"},
	}
	w := lpWords(solves)
	if len(w) != 2 {
		t.Fatalf("%d lines: %q", len(w), w)
	}
	if !strings.Contains(w[1], "1 solves") || !strings.Contains(w[1], "1 relaxations") || !strings.Contains(w[1], "median 100 s") {
		t.Errorf("spanner line %q", w[1])
	}
	for _, want := range []string{"3 solves", "all pairs", "4465065 constraints", "12-50 rounds", "median 40 s (max 50 s)", "warm-started median 5 s", "gap 6e-07", "/ eps 1"} {
		if !strings.Contains(w[0], want) {
			t.Errorf("%q lacks %q", w[0], want)
		}
	}
	p := toyParams(t)
	none := bracket{lower: math.NaN(), upper: math.NaN()}
	cells := []*cell{
		{city: "paris", mech: "optimal", cal: "eps", level: 1, eps: 1, dist: 1.5, emdMean: 0.3, opt: bracket{1.4999995, 1.5}},
		{city: "paris", mech: "lap", cal: "eps", level: 1, eps: 1, dist: 1.4, emdMean: 0.2, opt: none},
		{city: "paris", mech: "rr", cal: "eps", level: 1, eps: 1, dist: 3, opt: none},
		{city: "sf", mech: "optimal-spanner1", cal: "eps", level: 4, eps: 4, dist: 0.1162, emdMean: 0.05, opt: bracket{0.081, 0.1162}},
		{city: "sf", mech: "lap", cal: "eps", level: 4, eps: 4, dist: 0.0903, emdMean: 0.008, opt: none},
	}
	o := optimumWords(p, cells)
	if len(o) != 2 || !strings.Contains(o[0], "the optimum's average distortion 1.5 (all-pairs gap 3.3e-07) is ABOVE the lowest other (lap, 1.4)") || !strings.Contains(o[0], "EMD 0.3 against LAP's 0.2") {
		t.Errorf("certified: %q", o)
	}
	if len(o) == 2 && (strings.Contains(o[1], "optimum's") || !strings.Contains(o[1], "upper bound: the all-pairs optimum lies in [0.081, 0.1162]") ||
		!strings.Contains(o[1], "the optimum itself cannot be above lap's 0.0903")) {
		t.Errorf("spanner: %q", o[1])
	}
}

// The bracket rule on hand-made solves: all pairs bound themselves; a
// spanner solve at eps (edges at eps/δ) gets its lower bound from the
// best certified bound of the solves on the same prior whose edges are
// at eps or more (the relaxation at δ·eps, and solves at larger eps),
// never from another prior or from edges below eps; a solve that
// stopped has no upper bound but its bound counts; without any bound the
// lower bound is 0.
func TestBrackets(t *testing.T) {
	st := func(eps, dil, primal, dual float64) mechanism.LPStats {
		return mechanism.LPStats{Eps: eps, Dilation: dil, Primal: primal, Dual: dual}
	}
	rows := []lpRow{
		{prior: "city", role: "solve", status: "ok", st: st(1, 1.08, 1.50, 1.4999)},                    // 0: spanner at 1
		{prior: "city", role: "solve", status: "ok", st: st(2, 1.08, 0.67, 0.6699)},                    // 1: spanner at 2: edges at 1.85 >= 1
		{prior: "city", role: "relaxation", status: "ok", st: st(1.08, 1.08, 1.45, 1.4449)},            // 2: edges at 1
		{prior: "island", role: "solve", status: "ok", st: st(1, 1.08, 1.6, 1.5999)},                   // 3: another prior
		{prior: "city", role: "relaxation", status: "time limit", st: st(4.4, 1.08, math.NaN(), 0.05)}, // 4: edges at 4.07, bound reached
		{prior: "city", role: "solve", status: "ok", st: st(4, 1.08, 0.116, 0.11599)},                  // 5
	}
	br := brackets(rows)
	for i, want := range []bracket{{1.4449, 1.50}, {0.11599, 0.67}, {0.6699, 1.45}, {0, 1.6}, {0, math.NaN()}, {0.05, 0.116}} {
		if br[i].lower != want.lower || br[i].upper != want.upper && !(math.IsNaN(want.upper) && math.IsNaN(br[i].upper)) {
			t.Errorf("row %d: %+v, want %+v", i, br[i], want)
		}
	}
	if b, ok := bracketAt(rows, br, 1); !ok || b != br[0] {
		t.Errorf("bracket at 1: %+v, %v", b, ok)
	}
	if _, ok := bracketAt(rows, br, 1.08); ok {
		t.Error("a relaxation's eps gave the calibrated channel's bracket")
	}
	allPairs := []lpRow{{prior: "city", role: "solve", status: "ok", st: st(0.5, 1, 2.5148910, 2.5148898)}}
	if b := brackets(allPairs)[0]; b.lower != 2.5148898 || !(b.gap() <= certified) {
		t.Errorf("all pairs: %+v gap %v", b, b.gap())
	}
}

// The winner rule: a leader separated from every other by Welch's test
// with Holm's correction, from at least 5 simulations, wins; the issue's
// SF eps 0.5 pair (0.6308 against 0.6380, 3 simulations) ties; a leader
// not separated from the runner-up ties with it; exact quantities win by
// value and tie within 1e-9; degenerate channels are left out, and a
// spanner's bracket is noted.
func TestRank(t *testing.T) {
	five := func(m float64, sd float64) []float64 {
		return []float64{m - 2*sd, m - sd, m, m + sd, m + 2*sd}
	}
	mk := func(mech string, emd []float64, dist float64) *cell {
		m, _, _ := harness.MeanSD(emd)
		return &cell{city: "sf", mech: mech, cal: "eps", level: 0.5, eps: 0.5, emd: emd, emdMean: m, dist: dist,
			opt: bracket{lower: math.NaN(), upper: math.NaN()}}
	}
	for _, tc := range []struct {
		name      string
		cs        []*cell
		criterion string
		better    string
		winner    string
		tied      string
	}{
		{"separated, 5 sims", []*cell{mk("ba", five(3.16, 0.01), 2), mk("lap", five(0.638, 0.002), 1), mk("rr", five(7.37, 0.01), 5)}, "emd", "lower", "lap", "lap"},
		{"the issue's pair, 3 sims", []*cell{mk("planar-laplace", []float64{0.6308, 0.6241, 0.6375}, 1), mk("lap", []float64{0.6380, 0.6363, 0.6397}, 1)}, "emd", "lower", "", "planar-laplace lap"},
		{"3 sims, far apart: still no winner", []*cell{mk("ba", []float64{3.1, 3.2, 3.15}, 1), mk("lap", []float64{0.6, 0.61, 0.62}, 1)}, "emd", "lower", "", "lap ba"},
		{"not separated from the runner-up", []*cell{mk("ba", five(3.16, 0.01), 2), mk("lap", five(0.638, 0.02), 1), mk("pl", five(0.640, 0.02), 1)}, "emd", "lower", "", "lap pl"},
		{"exact: by value", []*cell{mk("ba", five(1, 0.1), 2), mk("lap", five(1, 0.1), 1.5)}, "avg_distortion", "lower", "lap", "lap"},
		{"exact: tie within 1e-9", []*cell{mk("a", five(1, 0.1), 1.5), mk("b", five(1, 0.1), 1.5*(1+1e-12))}, "avg_distortion", "lower", "", "a b"},
		{"higher is better", []*cell{mk("a", five(1, 0.1), 1.5), mk("b", five(1.5, 0.1), 1.2)}, "emd", "higher", "b", "b"},
	} {
		w := rank(tc.cs, tc.criterion, tc.better)
		if w.winner != tc.winner || strings.Join(w.tied, " ") != tc.tied {
			t.Errorf("%s: winner %q tied %q (note %q), want %q and %q", tc.name, w.winner, w.tied, w.note, tc.winner, tc.tied)
		}
	}
	p := toyParams(t)
	p.Calibrations, p.Eps = []string{"eps"}, harness.SweepOf(0.5)
	deg := mk("optimal-spanner1-coarse21", five(37.4, 0.001), 37)
	deg.eps = 0
	opt := mk("optimal-spanner1", five(0.46, 0.01), 1.5025)
	opt.opt = bracket{lower: 1.41, upper: 1.5025}
	cs := []*cell{mk("lap", five(0.29, 0.01), 1.899), deg, opt}
	for _, c := range cs {
		c.city = "paris"
	}
	var dist winner
	for _, w := range winners(p, cs) {
		if w.criterion == "emd" && (slices.Contains(w.tied, deg.mech) || w.winner == deg.mech) {
			t.Errorf("a degenerate channel competes: %+v", w)
		}
		if !strings.Contains(w.note, "degenerate") {
			t.Errorf("%s: note %q does not name the degenerate channel", w.criterion, w.note)
		}
		if w.criterion == "avg_distortion" {
			dist = w
		}
	}
	if dist.winner != "optimal-spanner1" || dist.opt != opt.opt || !strings.Contains(dist.note, "all-pairs optimum lies in [1.41, 1.5025]") {
		t.Errorf("distortion: %+v", dist)
	}
	// A criterion measured on one mechanism alone (the Bayes error of the
	// dense channel among operators) has no row.
	cs[0].bayes, cs[2].bayes = math.NaN(), 2.5
	for _, w := range winners(p, cs) {
		if w.criterion == "bayes_error" {
			t.Errorf("a winner among one: %+v", w)
		}
	}
}

// TestIslandTimeLimitKeepsTheCitySolve: when the island prior's LP runs
// out of time after the city's solve, the city's channel is measured
// (every simulation's frontier row), the identification of A is NaN and
// the missing part is named, for Finish to list as skipped.
func TestIslandTimeLimitKeepsTheCitySolve(t *testing.T) {
	p := exactParams(t, sparseSolver(t))
	ds := toy()
	j := job{p: p, ds: ds, mech: "optimal", calibration: "eps", level: 0.8}
	s := build(p, ds.Name, j.mech, ds.Grid)
	solver, err := s.opt.NewSolver(s.in, s.out, ds.Prior())
	if err != nil {
		t.Fatal(err)
	}
	res, err := calibrate(context.Background(), j, s, solver.Mechanism())
	if err != nil {
		t.Fatal(err)
	}
	solver.Deadline = time.Now().Add(-time.Second) // the island's solve starts out of time
	s.lp = solver
	fr := harness.NewTable("frontier", frontierHeader...)
	_, missing, err := measure(context.Background(), j, s, res, rand.New(rand.NewPCG(1, 2)), fr)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Rows) != p.Sims || !strings.Contains(missing, "identification of A on the island prior: time limit") {
		t.Fatalf("%d frontier rows, missing %q", len(fr.Rows), missing)
	}
	if id := fcol(t, *fr, fr.Rows[0], "identification_A"); !math.IsNaN(id) {
		t.Errorf("identification %v without the island's solve", id)
	}
	sk := skipped([]calRow{{city: "paris", mech: "optimal", cal: "eps", level: 0.8, status: "ok", missing: missing}})
	if len(sk) != 1 || !strings.Contains(sk[0].Figure, "identification_A") || sk[0].Reason != missing {
		t.Errorf("skipped %+v", sk)
	}
	if w := missingWhat(missing); w != "identification of A on the island prior (time limit)" {
		t.Errorf("section words %q", w)
	}
}

// What a channel is called: degenerate before anything else (tight
// epsilon 0), optimal only at an all-pairs gap of at most 1e-6, the
// bracket otherwise, the LP on blocks as such; a mechanism as named has
// no label. The block size comes from the spec: the optimal mechanism's
// name on a coarsened dataset.
func TestLabels(t *testing.T) {
	none := bracket{lower: math.NaN(), upper: math.NaN()}
	for _, tc := range []struct {
		name string
		c    cell
		want string
	}{
		{"degenerate block LP", cell{eps: 0, opt: none, blocks: 21}, "degenerate: constant channel"},
		{"certified", cell{eps: 1, opt: bracket{1.4453616, 1.4453624}}, "optimal: all-pairs gap 5.5e-07"},
		{"gap 2e-6", cell{eps: 1, opt: bracket{1 - 2e-6, 1}}, "upper bound on the optimum: the optimum lies in [1, 1], all-pairs gap 2e-06"},
		{"spanner", cell{eps: 4, opt: bracket{0.081, 0.1162}}, "upper bound on the optimum: the optimum lies in [0.081, 0.1162]"},
		{"blocks", cell{eps: 1, opt: none, blocks: 3}, "the LP on 3x3 blocks lifted back: not the optimum"},
		{"plain", cell{eps: 1, opt: none}, ""},
	} {
		if got := tc.c.label(); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: %q, want %q...", tc.name, got, tc.want)
		}
	}
	p := toyParams(t) // the optimal mechanism on 2x2 blocks of paris
	if b := blocks(p, "paris", "optimal-spanner1-coarse2"); b != 2 {
		t.Errorf("blocks of the coarse LP: %d", b)
	}
	if b := blocks(p, "paris", "lap"); b != 0 {
		t.Errorf("blocks of lap: %d", b)
	}
}
