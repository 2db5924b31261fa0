package mechanism

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"privic/kernels"
)

// sparseSolvers lists the sparse solvers compiled in (CLP first); the
// tests and benchmarks that need one skip loudly without.
func sparseSolvers(tb testing.TB) []string {
	tb.Helper()
	var s []string
	for _, name := range []string{SolverCLP, SolverGLPK} {
		if SolverAvailable(name) {
			s = append(s, name)
		}
	}
	if len(s) == 0 {
		tb.Skip("SKIPPED: neither CLP nor GLPK compiled in (go test -tags clp,glpk; Debian packages coinor-libclp-dev, libglpk-dev): the LP's sparse solvers are not tested")
	}
	return s
}

// gowallaLike is an uneven prior over g with some empty cells, as the
// city priors have.
func gowallaLike(g kernels.Grid) []float64 {
	p := make([]float64, g.Len())
	for i := range p {
		r, c := g.Cell(i)
		switch {
		case (r*7+c*3)%5 == 0:
			p[i] = 0
		default:
			p[i] = math.Exp(-0.3*math.Hypot(float64(r)-float64(g.Rows)/3, float64(c)-float64(g.Cols)/2)) * float64(1+(i*7919)%5)
		}
	}
	normalise(p)
	return p
}

func TestDecomposeMatchesBruteForceLP(t *testing.T) {
	// The dense simplex on the whole LP is the brute-force reference: the
	// decomposition's value must equal it within the certified gap, and
	// its certified lower bound must not exceed it (a bound above the
	// true optimum would be a false certificate).
	solvers := sparseSolvers(t)
	cases := []struct {
		g       kernels.Grid
		spanner int
		eps     []float64
	}{
		{mustGrid(t, 2, 3), 0, []float64{0.3, 1, 2.5}},
		{mustGrid(t, 2, 3), 1, []float64{0.3, 1, 2.5}},
		{mustGrid(t, 3, 3), 0, []float64{0.5, 1.5}},
		{mustGrid(t, 3, 3), 1, []float64{0.5, 1.5}},
	}
	for _, c := range cases {
		prior := gowallaLike(c.g)
		for _, eps := range c.eps {
			_, ref, err := Optimal{Spanner: c.spanner}.Solve(c.g, c.g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range solvers {
				name := fmt.Sprintf("%v spanner %d eps %v %s", c.g, c.spanner, eps, s)
				ch, st, err := Optimal{Spanner: c.spanner, Solver: s, Method: MethodDecompose}.Solve(c.g, c.g, prior, eps)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// gonum relaxes its constraints by up to 2e-9, so its value
				// may sit up to a few 1e-8 (relative) below the optimum.
				if d := math.Abs(st.Primal-ref.Primal) / ref.Primal; d > 2e-6 {
					t.Errorf("%s: decomposition %.12g vs brute force %.12g (relative %.3g)", name, st.Primal, ref.Primal, d)
				}
				if st.Dual > ref.Primal*(1+5e-8) {
					t.Errorf("%s: certified lower bound %.12g above the brute-force optimum %.12g", name, st.Dual, ref.Primal)
				}
				if !(st.Gap <= DefaultGap) || st.Gap < -1e-12 {
					t.Errorf("%s: gap %v not in [0, %v]", name, st.Gap, DefaultGap)
				}
				if got := distortion(prior, ch); math.Abs(got-st.Primal) > 1e-12 {
					t.Errorf("%s: reported primal %v, channel's distortion %v", name, st.Primal, got)
				}
			}
		}
	}
}

func TestDecomposeGeoIndAndTightEps(t *testing.T) {
	// Every geo-ind constraint holds to 1e-9 relative, over all pairs
	// (with a spanner too), and the tight epsilon measured both by
	// kernels.Channel.TightEpsilon and by the brute force of the definition is at
	// most eps, with no tolerance.
	solvers := sparseSolvers(t)
	g := mustGrid(t, 5, 7)
	prior := gowallaLike(g)
	for _, s := range solvers {
		for _, sp := range []int{0, 1, 2} {
			for _, eps := range []float64{0.2, 1, 3} {
				name := fmt.Sprintf("%s spanner %d eps %v", s, sp, eps)
				m := Optimal{Spanner: sp, Solver: s, Method: MethodDecompose}
				ch, st, err := m.Solve(g, g, prior, eps)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkStochastic(t, name, ch, 1e-12)
				checkGeoInd(t, name, ch, eps, 0, 1e-9)
				te, err := ch.TightEpsilon()
				if err != nil {
					t.Fatal(err)
				}
				if te > eps || bruteTightEps(ch) > eps*(1+1e-12) {
					t.Errorf("%s: tight eps %v (brute force %v) above eps", name, te, bruteTightEps(ch))
				}
				if st.TightEps != te {
					t.Errorf("%s: reported tight eps %v, measured %v", name, st.TightEps, te)
				}
				if c := m.Claim(g, g, eps); c.Hi != eps || c.Tol != 0 {
					t.Errorf("%s: claim %+v, want Hi = eps exactly", name, c)
				}
			}
		}
	}
}

func TestDecomposeNoWorseThanOtherGeoIndMechanisms(t *testing.T) {
	// The exact optimum at a mechanism's own tight epsilon can be no worse
	// than that mechanism: LAP (TightEps between eps and 2 eps), the
	// snapped planar Laplace, randomized response and the coarse optimum
	// on 2x2 blocks. The spanner optimum, whose feasible set is smaller,
	// is no better than the exact one.
	solvers := sparseSolvers(t)
	g := mustGrid(t, 5, 7)
	prior := gowallaLike(g)
	others := []Mechanism{LAP{}, PlanarLaplace{}, PlanarLaplace{Point: CellCentre}, RR{}, Coarsened{Base: Optimal{Spanner: 1}, Factor: 2}}
	s := solvers[0]
	exact := Optimal{Solver: s, Method: MethodDecompose}
	for _, eps := range []float64{0.4, 2} {
		for _, o := range others {
			ch, err := o.Channel(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			te, err := ch.TightEpsilon()
			if err != nil {
				t.Fatal(err)
			}
			_, st, err := exact.Solve(g, g, prior, te)
			if err != nil {
				t.Fatal(err)
			}
			if d := distortion(prior, ch); st.Primal > d*(1+1e-9) {
				t.Errorf("eps %v: optimum at %s's tight eps %v has distortion %v above its %v", eps, o.Info().Name, te, st.Primal, d)
			}
		}
		_, ex, err := exact.Solve(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		_, sp, err := Optimal{Solver: s, Method: MethodDecompose, Spanner: 1}.Solve(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Primal < ex.Dual {
			t.Errorf("eps %v: spanner optimum %v below the exact optimum's certified bound %v", eps, sp.Primal, ex.Dual)
		}
	}
}

func TestDecomposeWarmStartAndWorkers(t *testing.T) {
	// The last steps of a calibration, eps closing in on its goal, solved
	// warm give the cold optima (within the gap) in fewer rounds; the
	// number of pricing workers does not change the channel at all.
	solvers := sparseSolvers(t)
	g := mustGrid(t, 6, 7)
	prior := gowallaLike(g)
	for _, s := range solvers {
		m := Optimal{Solver: s, Method: MethodDecompose}
		warm, err := m.NewSolver(g, g, prior)
		if err != nil {
			t.Fatal(err)
		}
		coldRounds, warmRounds := 0, 0
		for i, eps := range []float64{0.8, 0.805, 0.8051} {
			_, w, err := warm.Solve(eps)
			if err != nil {
				t.Fatal(err)
			}
			_, c, err := m.Solve(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			if w.Warm != (i > 0) || c.Warm {
				t.Errorf("%s eps %v: Warm flags %v (warm solver), %v (cold)", s, eps, w.Warm, c.Warm)
			}
			if d := math.Abs(w.Primal-c.Primal) / c.Primal; d > 2*DefaultGap {
				t.Errorf("%s eps %v: warm %v vs cold %v", s, eps, w.Primal, c.Primal)
			}
			if i > 0 {
				coldRounds += c.Rounds
				warmRounds += w.Rounds
			}
		}
		if warmRounds >= coldRounds {
			t.Errorf("%s: warm starts took %d rounds, cold %d", s, warmRounds, coldRounds)
		}
		one, _, err := m.Solve(g, g, prior, 1.1)
		if err != nil {
			t.Fatal(err)
		}
		m.Workers = 3
		three, _, err := m.Solve(g, g, prior, 1.1)
		if err != nil {
			t.Fatal(err)
		}
		for i := range one.P {
			if one.P[i] != three.P[i] {
				t.Fatalf("%s: channel entry %d differs with 3 workers: %v vs %v", s, i, one.P[i], three.P[i])
			}
		}
	}
}

func TestWarmSolverCalibrates(t *testing.T) {
	// Calibrate drives the warm solver through its Mechanism adapter: the
	// distortion goal is met, every solve after the first is warm, and
	// the channel at the parameter found equals a cold solve's optimum.
	solvers := sparseSolvers(t)
	g := mustGrid(t, 5, 6)
	prior := gowallaLike(g)
	s, err := Optimal{Solver: solvers[0], Method: MethodDecompose}.NewSolver(g, g, prior)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Calibrate(context.Background(), s.Mechanism(), g, g, prior, TargetDistortion, 0.5, CalibrateOptions{Method: Illinois, RelTol: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Value-0.5) > 0.5e-5 {
		t.Errorf("distortion %v, goal 0.5", res.Value)
	}
	if len(s.Solves) != res.Evals {
		t.Errorf("%d solves recorded, %d evaluations", len(s.Solves), res.Evals)
	}
	for i, st := range s.Solves {
		if st.Warm != (i > 0) {
			t.Errorf("solve %d (eps %v): Warm = %v", i, st.Eps, st.Warm)
		}
	}
	_, cold, err := Optimal{Solver: solvers[0], Method: MethodDecompose}.Solve(g, g, prior, res.Param)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(cold.Primal-res.Value) / cold.Primal; d > 2*DefaultGap {
		t.Errorf("calibrated distortion %v, cold optimum %v at eps %v", res.Value, cold.Primal, res.Param)
	}
}

func TestDirectSolversAgreeAndCertify(t *testing.T) {
	// The whole LP through GLPK and CLP matches gonum's dense simplex,
	// and the Lagrangian bound from their duals certifies it.
	solvers := sparseSolvers(t)
	for _, sp := range []int{0, 1} {
		// gonum needs seconds for all pairs on 3x3.
		g := mustGrid(t, 2+sp, 3)
		prior := gowallaLike(g)
		for _, eps := range []float64{0.4, 2} {
			_, ref, err := Optimal{Spanner: sp}.Solve(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range solvers {
				_, st, err := Optimal{Spanner: sp, Solver: s, Method: MethodDual}.Solve(g, g, prior, eps)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(st.Primal-ref.Primal) > 1e-7 {
					t.Errorf("%s spanner %d eps %v: %v vs gonum %v", s, sp, eps, st.Primal, ref.Primal)
				}
				if !(st.Dual <= ref.Primal*(1+5e-8)) || !(st.Gap < 1e-6) {
					t.Errorf("%s spanner %d eps %v: dual %v, gap %v (gonum optimum %v)", s, sp, eps, st.Dual, st.Gap, ref.Primal)
				}
			}
		}
	}
}

func TestDecomposeMixedSolvers(t *testing.T) {
	// The master on one solver and the pricing on the other reach the
	// same optimum as either alone.
	if !SolverAvailable(SolverCLP) || !SolverAvailable(SolverGLPK) {
		t.Skip("SKIPPED: needs both CLP and GLPK compiled in (go test -tags clp,glpk)")
	}
	g := mustGrid(t, 4, 6)
	prior := gowallaLike(g)
	_, ref, err := Optimal{Solver: SolverCLP, Method: MethodDecompose}.Solve(g, g, prior, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Optimal{
		{Solver: SolverGLPK, MasterSolver: SolverCLP, Method: MethodDecompose},
		{Solver: SolverCLP, MasterSolver: SolverGLPK, Method: MethodDecompose},
	} {
		_, st, err := m.Solve(g, g, prior, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(st.Primal-ref.Primal) / ref.Primal; d > 2*DefaultGap || st.Dual > ref.Primal {
			t.Errorf("master %s, pricing %s: %v (dual %v), clp alone %v", m.MasterSolver, m.Solver, st.Primal, st.Dual, ref.Primal)
		}
	}
}

func TestOptimalSolverRefusesBadSettings(t *testing.T) {
	g := mustGrid(t, 2, 2)
	p := uniformPrior(4)
	for _, m := range []Optimal{
		{Method: "simplex"},
		{Method: MethodDecompose},                  // gonum cannot
		{Method: MethodInterior},                   // gonum has one method
		{Solver: SolverCLP, Gap: -1},               // bad gap (or CLP missing)
		{Solver: SolverCLP, Workers: -2},           // bad workers (or CLP missing)
		{Solver: "cplex", Method: MethodDecompose}, // unknown solver
		{Solver: SolverCLP, MasterSolver: "gonum"}, // master must be sparse (or CLP missing)
	} {
		if _, err := m.NewSolver(g, g, p); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}

func TestSolverForPriorStartsFromColumns(t *testing.T) {
	// A solver moved to another prior keeps the columns (the cone does not
	// depend on the prior) and reaches the cold optimum of the new prior
	// within the gap; a time limit too short to certify anything is
	// reported as ErrTimeLimit.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 5, 6)
	a := gowallaLike(g)
	b := make([]float64, len(a))
	for i := range b {
		b[i] = a[len(a)-1-i]
	}
	m := Optimal{Solver: s, Method: MethodDecompose}
	first, err := m.NewSolver(g, g, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := first.Solve(1); err != nil {
		t.Fatal(err)
	}
	moved, err := first.ForPrior(b)
	if err != nil {
		t.Fatal(err)
	}
	_, warm, err := moved.Solve(1)
	if err != nil {
		t.Fatal(err)
	}
	_, cold, err := m.Solve(g, g, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Warm || cold.Warm {
		t.Errorf("warm flags: moved %v, cold %v", warm.Warm, cold.Warm)
	}
	if d := math.Abs(warm.Primal-cold.Primal) / cold.Primal; d > 2*DefaultGap || warm.Gap > DefaultGap {
		t.Errorf("moved solver %v (gap %v), cold %v", warm.Primal, warm.Gap, cold.Primal)
	}
	if _, _, err := (Optimal{Solver: s, Method: MethodDecompose, TimeLimit: time.Nanosecond}).Solve(g, g, b, 0.3); !errors.Is(err, ErrTimeLimit) {
		t.Errorf("1 ns time limit: %v, want ErrTimeLimit", err)
	}
	moved.Deadline = time.Now()
	if _, _, err := moved.Solve(0.3); !errors.Is(err, ErrTimeLimit) {
		t.Errorf("deadline passed: %v, want ErrTimeLimit", err)
	}
}

func TestSolverStopAtDeadlineIsTimeLimit(t *testing.T) {
	// A solver that stops on the time it was given reports its own
	// status; past the deadline that is ErrTimeLimit, before it a failure.
	stop := errors.New("clp: stopped on iterations or time")
	past := &colGen{opt: cgOptions{deadline: time.Now().Add(-time.Second)}}
	if err := past.timedOut(stop); !errors.Is(err, ErrTimeLimit) || !strings.Contains(err.Error(), "clp: stopped") {
		t.Errorf("past the deadline: %v", err)
	}
	future := &colGen{opt: cgOptions{deadline: time.Now().Add(time.Hour)}}
	if err := future.timedOut(stop); err != stop {
		t.Errorf("before the deadline: %v", err)
	}
	if err := (&colGen{}).timedOut(stop); err != stop {
		t.Errorf("no deadline: %v", err)
	}
	if err := past.timedOut(nil); err != nil {
		t.Errorf("no failure: %v", err)
	}
}

// TestDecomposeStopsWhenCancelled: a decomposition checks the solver's
// Context between rounds: cancelled after its first round it stops with
// the context's error, not ErrTimeLimit, and the round log saw one round.
func TestDecomposeStopsWhenCancelled(t *testing.T) {
	for _, s := range sparseSolvers(t) {
		g := mustGrid(t, 5, 6)
		solver, err := Optimal{Solver: s, Method: MethodDecompose}.NewSolver(g, g, gowallaLike(g))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		rounds := 0
		solver.Context = ctx
		solver.Log = func(string, ...any) {
			rounds++
			cancel()
		}
		_, _, err = solver.Solve(0.5)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeLimit) || !strings.Contains(err.Error(), "stopped before round 2") {
			t.Errorf("%s: error %v, want a cancellation before round 2", s, err)
		}
		if rounds != 1 {
			t.Errorf("%s: %d rounds logged, want 1", s, rounds)
		}
		cancel()
	}
}

// TestSpannerBracketsAllPairs: the spanner's LP at eps (edges at eps/δ)
// is a restriction of the all-pairs LP, so its value is at least the
// all-pairs optimum; at δ·eps (edges at eps) it is a relaxation, so its
// certified lower bound is at most that optimum. The all-pairs optimum
// is gonum's dense simplex on the whole LP (an independent solver), on
// a grid with empty cells, at small and large eps.
func TestSpannerBracketsAllPairs(t *testing.T) {
	solvers := sparseSolvers(t)
	g := mustGrid(t, 3, 3)
	prior := gowallaLike(g)
	for _, eps := range []float64{0.3, 2.5} {
		_, ref, err := Optimal{}.Solve(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range solvers {
			sv, err := Optimal{Spanner: 1, Solver: s, Method: MethodDecompose}.NewSolver(g, g, prior)
			if err != nil {
				t.Fatal(err)
			}
			delta := sv.Dilation()
			if !(delta > 1) {
				t.Fatalf("dilation %v of the spanner on %v", delta, g)
			}
			_, up, err := sv.Solve(eps)
			if err != nil {
				t.Fatal(err)
			}
			rel, err := sv.ForPrior(prior)
			if err != nil {
				t.Fatal(err)
			}
			_, low, err := rel.Solve(delta * eps)
			if err != nil {
				t.Fatal(err)
			}
			if up.Primal < ref.Primal*(1-5e-8) {
				t.Errorf("eps %v %s: spanner value %.10g below the all-pairs optimum %.10g", eps, s, up.Primal, ref.Primal)
			}
			if low.Dual > ref.Primal*(1+5e-8) {
				t.Errorf("eps %v %s: relaxation's bound %.10g above the all-pairs optimum %.10g", eps, s, low.Dual, ref.Primal)
			}
			if up.TightEps > eps*(1+1e-9) {
				t.Errorf("eps %v %s: the spanner's channel has tight eps %v", eps, s, up.TightEps)
			}
		}
	}
	if d := (&OptimalSolver{delta: 1}).Dilation(); d != 1 {
		t.Errorf("all pairs: dilation %v", d)
	}
}

// TestTimeLimitKeepsTheBound: a decomposition stopped by its deadline
// after some rounds returns ErrTimeLimit with the best certified bound it
// reached, which is at most the optimum (gonum's dense simplex).
func TestTimeLimitKeepsTheBound(t *testing.T) {
	solvers := sparseSolvers(t)
	g := mustGrid(t, 3, 3)
	prior := gowallaLike(g)
	_, ref, err := Optimal{}.Solve(g, g, prior, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range solvers {
		var rounds int
		sv, err := Optimal{Solver: s, Method: MethodDecompose, TimeLimit: 2 * time.Second}.NewSolver(g, g, prior)
		if err != nil {
			t.Fatal(err)
		}
		// Outlast the time limit after the second round's log line.
		sv.Log = func(string, ...any) {
			if rounds++; rounds == 2 {
				time.Sleep(2100 * time.Millisecond)
			}
		}
		_, st, err := sv.Solve(0.4)
		if !errors.Is(err, ErrTimeLimit) {
			t.Fatalf("%s: %v, want the time limit", s, err)
		}
		if math.IsNaN(st.Dual) || st.Dual > ref.Primal*(1+5e-8) || st.Rounds < 2 {
			t.Errorf("%s: bound %v after %d rounds, optimum %v", s, st.Dual, st.Rounds, ref.Primal)
		}
	}
}
