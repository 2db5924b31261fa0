package mechanism

import (
	"math"
	"testing"

	"privic/kernels"
)

// lpSolvers lists the solvers compiled in; glpk joins with -tags glpk.
func lpSolvers() []string {
	s := []string{SolverGonum}
	if SolverAvailable(SolverGLPK) {
		s = append(s, SolverGLPK)
	}
	return s
}

// checkGeoInd fails t unless C[x,y] <= e^{eps d(x,x')} C[x',y] (1 + rel) +
// abs for every pair of inputs and every output, whatever constraints the
// LP used.
func checkGeoInd(t *testing.T, name string, ch *kernels.Channel, eps, abs, rel float64) {
	t.Helper()
	m, n := ch.In.Len(), ch.Out.Len()
	for x := 0; x < m; x++ {
		for x2 := 0; x2 < m; x2++ {
			if x == x2 {
				continue
			}
			f := math.Exp(eps * kernels.Dist(ch.In, x, ch.In, x2))
			for y := 0; y < n; y++ {
				if a, b := ch.P[x*n+y], f*ch.P[x2*n+y]; a > b*(1+rel)+abs {
					t.Fatalf("%s: C[%d,%d] = %g exceeds e^(eps d) C[%d,%d] = %g beyond the tolerance", name, x, y, a, x2, y, b)
				}
			}
		}
	}
}

func distortion(prior []float64, ch *kernels.Channel) float64 {
	s := 0.0
	for x := 0; x < ch.In.Len(); x++ {
		for y, v := range ch.Row(x) {
			s += prior[x] * v * kernels.Dist(ch.In, x, ch.Out, y)
		}
	}
	return s
}

func TestOptimalTwoCellsClosedForm(t *testing.T) {
	// Two cells at distance 1 with a uniform prior: the optimum keeps the
	// true cell with probability e^eps/(1+e^eps) (binary randomized
	// response), so the expected distortion is 1/(1+e^eps).
	g := mustGrid(t, 1, 2)
	for _, s := range lpSolvers() {
		for _, eps := range []float64{0.1, 1, 3} {
			ch, err := Optimal{Solver: s}.Channel(g, g, []float64{0.5, 0.5}, eps)
			if err != nil {
				t.Fatal(err)
			}
			got, want := distortion([]float64{0.5, 0.5}, ch), 1/(1+math.Exp(eps))
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%s eps=%v: distortion %v, want %v", s, eps, got, want)
			}
		}
	}
}

func TestSpannerDilation(t *testing.T) {
	// On a 3x3 grid the 8-neighbour graph is worst for the offset (2,1):
	// path 1 + sqrt2 against sqrt5. With knight moves every offset of the
	// 3x3 grid is a single edge or a straight chain of them: dilation 1.
	g := mustGrid(t, 3, 3)
	if got, want := dilation(g, spannerEdges(g, 1)), (1+math.Sqrt2)/math.Sqrt(5); math.Abs(got-want) > 1e-12 {
		t.Errorf("3x3 spanner 1: dilation %v, want %v", got, want)
	}
	if got := dilation(g, spannerEdges(g, 2)); math.Abs(got-1) > 1e-12 {
		t.Errorf("3x3 spanner 2: dilation %v, want 1", got)
	}
	// On a large grid the 8-neighbour dilation tends to sqrt(4 - 2 sqrt2)
	// (direction tan θ = sqrt2 - 1), from below.
	big := mustGrid(t, 13, 13)
	lim := math.Sqrt(4 - 2*math.Sqrt2)
	if got := dilation(big, spannerEdges(big, 1)); got > lim || got < lim-2e-3 {
		t.Errorf("13x13 spanner 1: dilation %v, want just below %v", got, lim)
	}
	// Edge counts: 8-neighbour graph on r x c has
	// r(c-1) + c(r-1) + 2(r-1)(c-1) edges; all pairs: n(n-1)/2.
	g2 := mustGrid(t, 4, 6)
	if got, want := len(spannerEdges(g2, 1)), 4*5+6*3+2*3*5; got != want {
		t.Errorf("4x6 spanner 1: %d edges, want %d", got, want)
	}
	if got, want := len(spannerEdges(g2, 0)), 24*23/2; got != want {
		t.Errorf("4x6 all pairs: %d edges, want %d", got, want)
	}
}

func TestOptimalGeoIndAndNoWorseThanOthers(t *testing.T) {
	// The exact LP (Spanner 0) is optimal among all eps-geo-ind channels,
	// so its distortion is at most that of every other eps-geo-ind channel
	// on the same grids: RR (tight eps = eps) and the snapped planar
	// Laplace (tight eps <= eps). The spanner LP is eps-geo-ind too (every
	// pair checked, not only the spanner's) and, having a smaller feasible
	// set, is no better than the exact LP.
	// gonum's dense simplex takes about a second on 3x3, so it gets 2x3.
	cases := []struct {
		solver string
		g      kernels.Grid
		prior  []float64
	}{
		{SolverGonum, mustGrid(t, 2, 3), []float64{0.3, 0.05, 0.1, 0.25, 0.2, 0.1}},
	}
	if SolverAvailable(SolverGLPK) {
		cases = append(cases, struct {
			solver string
			g      kernels.Grid
			prior  []float64
		}{SolverGLPK, mustGrid(t, 4, 5), nil})
	}
	for _, c := range cases {
		s, g, prior := c.solver, c.g, c.prior
		if prior == nil {
			prior = make([]float64, g.Len())
			for i := range prior {
				prior[i] = float64(1 + i%7)
			}
			normalise(prior)
		}
		for _, eps := range []float64{0.4, 1.2, 3} {
			exact, st, err := Optimal{Solver: s}.Solve(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			checkStochastic(t, "optimal", exact, 1e-9)
			checkGeoInd(t, s+" exact", exact, eps, 1e-7, 0)
			dExact := distortion(prior, exact)
			if math.Abs(dExact-st.Primal) > 1e-12 {
				t.Errorf("reported objective %v != distortion %v", st.Primal, dExact)
			}
			if te := bruteTightEps(exact); te > eps*(1+1e-6) {
				t.Errorf("%s eps=%v: tight eps %v above claim", s, eps, te)
			}
			span, _, err := Optimal{Solver: s, Spanner: 1}.Solve(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			checkGeoInd(t, s+" spanner", span, eps, 1e-7, 0)
			if d := distortion(prior, span); d < dExact-1e-9 {
				t.Errorf("%s eps=%v: spanner LP distortion %v below exact optimum %v", s, eps, d, dExact)
			}
			others := map[string]Mechanism{"rr": RR{}, "planar-laplace": PlanarLaplace{}, "planar-laplace-centre": PlanarLaplace{Point: CellCentre}}
			for name, m := range others {
				ch, err := m.Channel(g, g, prior, eps)
				if err != nil {
					t.Fatal(err)
				}
				if d := distortion(prior, ch); dExact > d+1e-9 {
					t.Errorf("%s eps=%v: LP distortion %v above %s's %v", s, eps, dExact, name, d)
				}
			}
		}
	}
}

func TestOptimalSolversAgree(t *testing.T) {
	if !SolverAvailable(SolverGLPK) {
		t.Skip("GLPK not compiled in (go test -tags glpk; needs libglpk-dev): gonum/GLPK agreement not checked")
	}
	g := mustGrid(t, 2, 3)
	prior := []float64{0.1, 0.3, 0.05, 0.25, 0.2, 0.1}
	for _, sp := range []int{0, 1} {
		for _, eps := range []float64{0.3, 1, 2.5} {
			a, sa, err := Optimal{Spanner: sp, Solver: SolverGonum}.Solve(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			b, sb, err := Optimal{Spanner: sp, Solver: SolverGLPK}.Solve(g, g, prior, eps)
			if err != nil {
				t.Fatal(err)
			}
			// Optimal values agree (gonum's constraints are relaxed by at
			// most 2e-9); the channels may differ when the optimum is not
			// unique, so only the value is compared.
			if math.Abs(sa.Primal-sb.Primal) > 1e-7 {
				t.Errorf("spanner %d eps=%v: gonum %v vs glpk %v", sp, eps, sa.Primal, sb.Primal)
			}
			if da, db := distortion(prior, a), distortion(prior, b); math.Abs(da-db) > 1e-7 {
				t.Errorf("spanner %d eps=%v: repaired distortions %v vs %v", sp, eps, da, db)
			}
		}
	}
}

func TestOptimalRefusesBadInput(t *testing.T) {
	g := mustGrid(t, 2, 2)
	cases := []struct {
		name string
		m    Optimal
		p    []float64
		eps  float64
	}{
		{"nil prior", Optimal{}, nil, 1},
		{"short prior", Optimal{}, []float64{1}, 1},
		{"eps 0", Optimal{}, uniformPrior(4), 0},
		{"eps NaN", Optimal{}, uniformPrior(4), math.NaN()},
		{"spanner -1", Optimal{Spanner: -1}, uniformPrior(4), 1},
		{"solver", Optimal{Solver: "cplex"}, uniformPrior(4), 1},
		{"too large", Optimal{MaxConstraints: 10}, uniformPrior(4), 1},
	}
	for _, c := range cases {
		if _, err := c.m.Channel(g, g, c.p, c.eps); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
