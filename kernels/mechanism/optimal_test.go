package mechanism

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

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

// wantErr fails t unless err is an error whose message holds every one of
// parts.
func wantErr(t *testing.T, name string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one saying %q", name, parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not say %q", name, err, p)
		}
	}
}

// spannerPairs counts, by the definition of the spanner, the unordered
// pairs of cells of g that the LP constrains: all of them for k = 0, else
// those whose offset (a, b) has max(|a|,|b|) <= k and gcd(|a|,|b|) = 1.
func spannerPairs(g kernels.Grid, k int) int {
	n, count := g.Len(), 0
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			ra, ca := g.Cell(a)
			rb, cb := g.Cell(b)
			dr, dc := big.NewInt(int64(rb-ra)), big.NewInt(int64(cb-ca))
			dr.Abs(dr)
			dc.Abs(dc)
			far := dr.Int64() > int64(k) || dc.Int64() > int64(k)
			if k == 0 || (!far && new(big.Int).GCD(nil, nil, dr, dc).Int64() == 1) {
				count++
			}
		}
	}
	return count
}

func TestSpannerEdgesAreTheDefinedPairsOnce(t *testing.T) {
	// spannerEdges lists every constrained pair once, as (a, b) with
	// a < b, at its Euclidean length: the same set as the definition's.
	for _, g := range []kernels.Grid{mustGrid(t, 3, 4), mustGrid(t, 5, 3)} {
		for k := 0; k <= 3; k++ {
			seen := map[[2]int]bool{}
			for _, e := range spannerEdges(g, k) {
				if e.a >= e.b || seen[[2]int{e.a, e.b}] || e.d != kernels.Dist(g, e.a, g, e.b) {
					t.Errorf("%v spanner %d: edge %+v (a < b, once, at its length)", g, k, e)
				}
				seen[[2]int{e.a, e.b}] = true
			}
			if len(seen) != spannerPairs(g, k) {
				t.Errorf("%v spanner %d: %d pairs, want %d", g, k, len(seen), spannerPairs(g, k))
			}
		}
	}
}

func TestOptimalSizeCountsTheLPItBuilds(t *testing.T) {
	// Size is |In| |Out| variables and |In| row sums plus two geo-ind rows
	// per constrained pair and output, the pairs counted here from the
	// spanner's definition; the direct methods' LP has exactly that many
	// rows.
	cases := []struct {
		in, out kernels.Grid
		spanner int
	}{
		{mustGrid(t, 2, 3), mustGrid(t, 2, 3), 0},
		{mustGrid(t, 3, 4), mustGrid(t, 3, 4), 1},
		{mustGrid(t, 4, 5), mustGrid(t, 4, 5), 2},
		{mustGrid(t, 5, 5), mustGrid(t, 5, 5), 3},
		{mustGrid(t, 3, 3), mustGrid(t, 1, 2), 0},
		{mustGrid(t, 4, 3), mustGrid(t, 2, 5), 1},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%v -> %v spanner %d", c.in, c.out, c.spanner)
		nIn, nOut := c.in.Len(), c.out.Len()
		pairs := spannerPairs(c.in, c.spanner)
		vars, cons := Optimal{Spanner: c.spanner}.Size(c.in, c.out)
		if vars != nIn*nOut || cons != nIn+2*pairs*nOut {
			t.Errorf("%s: Size %d variables, %d constraints; want %d, %d", name, vars, cons, nIn*nOut, nIn+2*pairs*nOut)
		}
		p := buildGeoLP(c.in, c.out, uniformPrior(nIn), 1, spannerEdges(c.in, c.spanner))
		if got := p.nIn + len(p.coef); got != cons || len(p.cost) != vars {
			t.Errorf("%s: the LP built has %d rows and %d columns, Size says %d and %d", name, got, len(p.cost), cons, vars)
		}
	}
}

func TestOptimalDirectSizeLimits(t *testing.T) {
	// The direct methods refuse a program above the limit, MaxConstraints
	// or the solver's default (50,000 rows for gonum's dense simplex,
	// 20,000,000 for the sparse solvers), before building it; a program of
	// exactly the limit is solved.
	g := mustGrid(t, 2, 2)
	_, size := Optimal{}.Size(g, g) // 4 + 2*6*4 = 52
	if size != 52 {
		t.Fatalf("2x2 all pairs: %d constraints, want 52", size)
	}
	if _, err := (Optimal{MaxConstraints: size}).Channel(g, g, uniformPrior(4), 1); err != nil {
		t.Errorf("MaxConstraints = size: %v", err)
	}
	_, err := Optimal{MaxConstraints: size - 1}.Channel(g, g, uniformPrior(4), 1)
	wantErr(t, "MaxConstraints = size - 1", err, "52 constraints with spanner 0, above the limit 51 for solver gonum")

	// 6x7 all pairs: 42 + 2*861*42 = 72,366 rows.
	g67 := mustGrid(t, 6, 7)
	_, err = Optimal{}.Channel(g67, g67, uniformPrior(42), 1)
	wantErr(t, "gonum 6x7", err, "72366 constraints with spanner 0, above the limit 50000 for solver gonum")
	for _, c := range []struct {
		s    string
		want int
	}{{SolverGonum, 50000}, {"", 50000}, {SolverGLPK, 20000000}, {SolverCLP, 20000000}} {
		if got := DefaultMaxConstraints(c.s); got != c.want {
			t.Errorf("DefaultMaxConstraints(%q) = %d, want %d", c.s, got, c.want)
		}
	}
	// 17x17 all pairs: 289 + 2*41616*289 = 24,054,337 rows.
	g17 := mustGrid(t, 17, 17)
	for _, s := range sparseSolvers(t) {
		_, err := Optimal{Solver: s, Method: MethodDual}.Channel(g17, g17, uniformPrior(289), 1)
		wantErr(t, s+" 17x17", err, "24054337 constraints with spanner 0, above the limit 20000000 for solver "+s)
	}
}

func TestOptimalSolverRefusalsSayWhy(t *testing.T) {
	g := mustGrid(t, 2, 2)
	p := uniformPrior(4)
	cases := []struct {
		m    Optimal
		want string
	}{
		{Optimal{Spanner: -1}, "Spanner = -1: must be >= 0"},
		{Optimal{Method: "simplex"}, `unknown method "simplex" (known: decompose, dual, primal, interior)`},
		{Optimal{Method: MethodDecompose}, "method decompose needs solver glpk or clp"},
		{Optimal{Method: MethodInterior}, `gonum has no method "interior"`},
		{Optimal{Method: MethodPrimal}, `gonum has no method "primal"`},
		{Optimal{Solver: "cplex"}, `unknown LP solver "cplex" (known: gonum, glpk, clp)`},
		{Optimal{Gap: -1}, "Gap = -1: must be in [0, 1)"},
		{Optimal{Gap: 1}, "Gap = 1: must be in [0, 1)"},
		{Optimal{Gap: math.NaN()}, "Gap = NaN: must be in [0, 1)"},
		{Optimal{Workers: -1}, "Workers = -1: must be >= 0"},
	}
	if SolverAvailable(SolverCLP) {
		cases = append(cases,
			struct {
				m    Optimal
				want string
			}{Optimal{Solver: SolverCLP, MasterSolver: SolverGonum}, `master solver "gonum": must be glpk or clp, compiled in`},
			struct {
				m    Optimal
				want string
			}{Optimal{Solver: SolverCLP, MasterSolver: "cplex"}, `master solver "cplex": must be glpk or clp, compiled in`})
	}
	for _, c := range cases {
		_, err := c.m.NewSolver(g, g, p)
		wantErr(t, fmt.Sprintf("%+v", c.m), err, "optimal: "+c.want)
	}
	// Only a spanner shows in the name.
	for sp, want := range []string{"optimal", "optimal-spanner1", "optimal-spanner2"} {
		if got := (Optimal{Spanner: sp}).Info().Name; got != want {
			t.Errorf("spanner %d: name %q, want %q", sp, got, want)
		}
	}
	// The edges of the accepted ranges are accepted.
	for _, m := range []Optimal{{Gap: 0}, {Gap: math.Nextafter(1, 0)}, {Workers: 0}, {Spanner: 0}} {
		if _, err := m.NewSolver(g, g, p); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
}

// rrOn is randomized response on g at eps, written out: e^eps/(e^eps+n-1)
// on the diagonal, 1/(e^eps+n-1) elsewhere.
func rrOn(t *testing.T, g kernels.Grid, eps float64) *kernels.Channel {
	t.Helper()
	ch, err := kernels.NewChannel(g, g)
	if err != nil {
		t.Fatal(err)
	}
	n := g.Len()
	z := math.Exp(eps) + float64(n-1)
	for x := 0; x < n; x++ {
		for y := 0; y < n; y++ {
			ch.P[x*n+y] = 1 / z
		}
		ch.P[x*n+x] = math.Exp(eps) / z
	}
	return ch
}

func TestFinishChannelAbsorbsSolverTolerance(t *testing.T) {
	// finishChannel takes a solution that is geo-indistinguishable up to
	// the solvers' tolerance (about 1e-9) and returns a channel whose tight
	// epsilon is at most eps, moving it by no more than the slack
	// 1e-8 max(1, eps). Two cells at 1 unit: RR, whose tight epsilon is its
	// parameter, set 1e-9 (relative) above eps; and RR at eps with its
	// second column 1.5e-9 too large (so are the rows' sums).
	g := mustGrid(t, 1, 2)
	for _, eps := range []float64{0.5, 1, 4, 20} {
		a, b := math.Exp(eps)/(1+math.Exp(eps)), 1/(1+math.Exp(eps))
		r := 1.5e-9
		for name, in := range map[string][]float64{
			"RR above eps":  rrOn(t, g, eps*(1+1e-9)).P,
			"column scaled": {a, b * (1 + r), b, a * (1 + r)},
		} {
			ch, te, err := finishChannel(g, g, in, eps)
			if err != nil {
				t.Fatalf("%s, eps %v: %v", name, eps, err)
			}
			if bt := bruteTightEps(ch); te > eps || bt > eps*(1+1e-15) || math.Abs(te-bt) > 1e-9 {
				t.Errorf("%s, eps %v: tight eps %v (brute force %v), want <= eps", name, eps, te, bt)
			}
			checkStochastic(t, name, ch, 1e-15)
			for i := range ch.P {
				if d := math.Abs(ch.P[i] - in[i]); d > 1e-7 {
					t.Errorf("%s, eps %v: entry %d moved by %v", name, eps, i, d)
				}
			}
		}
	}
	// A tight epsilon of exactly eps is within the claim: one input has
	// no pair, so its tight epsilon is 0, accepted at eps = 0.
	one, two := mustGrid(t, 1, 1), mustGrid(t, 1, 3)
	ch, te, err := finishChannel(one, two, []float64{0.2, 0.3, 0.5}, 0)
	if err != nil || te != 0 || math.Abs(ch.P[2]-0.5) > 1e-15 {
		t.Errorf("one input at eps 0: tight eps %v, error %v", te, err)
	}
	// Rows that cannot be normalised are refused, naming the row.
	_, _, err = finishChannel(g, g, []float64{0, 0, 0, 0}, 1)
	wantErr(t, "zero solution", err, "row 0 of the solution sums to 0")
	_, _, err = finishChannel(g, g, []float64{0.5, 0.5, math.Inf(1), 0}, 1)
	wantErr(t, "infinite entry", err, "row 0 of the solution sums to +Inf")
}

// coneMajorant is max_x' v[x'] e^{-eps d(x,x')}, the smallest
// eps-geo-indistinguishable majorant of v, written out.
func coneMajorant(g kernels.Grid, v []float64, eps float64) []float64 {
	out := make([]float64, len(v))
	for x := range v {
		for x2, c := range v {
			out[x] = math.Max(out[x], c*math.Exp(-eps*math.Hypot(float64(x/g.Cols-x2/g.Cols), float64(x%g.Cols-x2%g.Cols))))
		}
	}
	return out
}

func TestRepairGeoIndRaisesColumnsFromTheFloor(t *testing.T) {
	// repairGeoInd zeroes the columns whose largest entry is below 1e-10,
	// raises every other (1e-10 included) to its smallest
	// eps-geo-indistinguishable majorant, and normalises the rows.
	g := mustGrid(t, 2, 2)
	eps := 0.8
	cols := [][]float64{
		{0.6, 0.1, 0.2, 0.05},
		{1e-10, 0, 3e-11, 0},
		{math.Nextafter(1e-10, 0), 0, 0, 0},
		{0.1, 0.4, 0, 0.3},
	}
	ch, err := kernels.NewChannel(g, g)
	if err != nil {
		t.Fatal(err)
	}
	for y, c := range cols {
		for x, v := range c {
			ch.P[x*4+y] = v
		}
	}
	repairGeoInd(ch, eps)
	want := make([]float64, 16)
	for y, c := range cols {
		if y == 2 {
			continue
		}
		for x, v := range coneMajorant(g, c, eps) {
			want[x*4+y] = v
		}
	}
	for x := 0; x < 4; x++ {
		s := want[x*4] + want[x*4+1] + want[x*4+2] + want[x*4+3]
		for y := 0; y < 4; y++ {
			if got, w := ch.P[x*4+y], want[x*4+y]/s; math.Abs(got-w) > 1e-15*math.Max(w, 1e-10) {
				t.Errorf("C[%d,%d] = %v, want %v", x, y, got, w)
			}
		}
	}
}

func TestGeoViolationIsLargestScaledExcess(t *testing.T) {
	// The largest e^{-eps d} C[a,y] - C[b,y] over the edges in both
	// directions, by brute force on a channel with a known worst pair.
	g := mustGrid(t, 2, 3)
	ch, err := kernels.NewChannel(g, g)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ch.P {
		ch.P[i] = 0.05 + 0.3*math.Abs(math.Sin(float64(3*i+1)))
	}
	for _, sp := range []int{0, 1} {
		edges := spannerEdges(g, sp)
		for _, eps := range []float64{0.2, 1.5} {
			want := math.Inf(-1)
			for _, e := range edges {
				f := math.Exp(-eps * math.Hypot(float64(e.a/3-e.b/3), float64(e.a%3-e.b%3)))
				for y := 0; y < 6; y++ {
					want = math.Max(want, f*ch.P[e.a*6+y]-ch.P[e.b*6+y])
					want = math.Max(want, f*ch.P[e.b*6+y]-ch.P[e.a*6+y])
				}
			}
			if got := geoViolation(ch, eps, edges); math.Abs(got-want) > 1e-15 {
				t.Errorf("spanner %d eps %v: violation %v, want %v", sp, eps, got, want)
			}
		}
	}
	// RR at eps violates nothing at eps (its tight pairs are exactly
	// tight), and by (e^{2 eps'} - ...)-sized amounts at a larger eps.
	rr := rrOn(t, g, 1)
	if v := geoViolation(rr, 1, spannerEdges(g, 0)); v > 1e-16 || v < -1e-16 {
		t.Errorf("RR at its own eps: violation %v, want 0", v)
	}
}

func TestLagrangeBoundIgnoresPositiveDuals(t *testing.T) {
	// The bound sum_x min_y (cost - A^T mu)[x,y] uses mu = min(dual, 0):
	// positive duals count as zero, and with no negative dual it is the
	// sum of the rows' cheapest costs (0 here: every cell can report
	// itself). At GLPK's optimal duals it certifies the two-cell optimum
	// 1/(1+e^eps) (uniform prior).
	g := mustGrid(t, 1, 2)
	p := buildGeoLP(g, g, []float64{0.5, 0.5}, 1, spannerEdges(g, 0))
	if lb := lagrangeBound(p, []float64{1, 2, 3, 4}); lb != 0 {
		t.Errorf("positive duals: bound %v, want 0", lb)
	}
	// One negative dual on row 0 (0.5 C[0,0] e^-1 ... ): by hand.
	d := []float64{-0.25, 0, 0, 0}
	r := append([]float64(nil), p.cost...)
	r[p.lo[0]] += 0.25 * p.coef[0]
	r[p.hi[0]] -= 0.25
	want := math.Min(r[0], r[1]) + math.Min(r[2], r[3])
	if lb := lagrangeBound(p, d); math.Abs(lb-want) > 1e-15 {
		t.Errorf("one dual: bound %v, want %v", lb, want)
	}
	// A dual on row 1 (0.5 e^-1 ... C[1,0] - C[0,0] <= 0) lowers C[0,0]'s
	// reduced cost below everything in row 1: each row keeps its own
	// minimum.
	d = []float64{0, -0.25, 0, 0}
	r = append(r[:0], p.cost...)
	r[p.lo[1]] += 0.25 * p.coef[1]
	r[p.hi[1]] -= 0.25
	want = math.Min(r[0], r[1]) + math.Min(r[2], r[3])
	if lb := lagrangeBound(p, d); math.Abs(lb-want) > 1e-15 || r[0] >= math.Min(r[2], r[3]) {
		t.Errorf("dual on row 1: bound %v, want %v (reduced costs %v)", lb, want, r)
	}
	if !SolverAvailable(SolverGLPK) {
		t.Skip("SKIPPED: GLPK not compiled in (go test -tags glpk): the certificate at GLPK's duals is not checked")
	}
	for _, eps := range []float64{0.3, 1, 2.5} {
		_, st, err := Optimal{Solver: SolverGLPK, Method: MethodDual}.Solve(g, g, []float64{0.5, 0.5}, eps)
		if err != nil {
			t.Fatal(err)
		}
		want := 1 / (1 + math.Exp(eps))
		if math.Abs(st.Dual-want) > 1e-12 || math.Abs(st.Primal-want) > 1e-12 {
			t.Errorf("eps %v: dual %v, primal %v, want both %v", eps, st.Dual, st.Primal, want)
		}
		if gap := (st.Primal - st.Dual) / st.Primal; st.Gap != gap || st.Rounds != 1 {
			t.Errorf("eps %v: gap %v (want (primal - dual)/primal = %v), rounds %d", eps, st.Gap, gap, st.Rounds)
		}
	}
}

func TestWarmAdapterSolvesOtherPriorsCold(t *testing.T) {
	// The warm solver's Mechanism solves only its own grids and prior with
	// it; any other prior (even of the same length) or grid gets the
	// optimum for what was asked, solved from scratch.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 2, 3)
	a := gowallaLike(g)
	b := append([]float64(nil), a...)
	b[0], b[5] = b[5], b[0]
	m := Optimal{Solver: s, Method: MethodDecompose}
	ws, err := m.NewSolver(g, g, a)
	if err != nil {
		t.Fatal(err)
	}
	w := ws.Mechanism()
	if w.Info() != m.Info() || w.Claim(g, g, 1) != m.Claim(g, g, 1) {
		t.Errorf("adapter info %+v / claim %+v differ from the mechanism's", w.Info(), w.Claim(g, g, 1))
	}
	for _, c := range []struct {
		name    string
		in, out kernels.Grid
		prior   []float64
		warm    bool
	}{
		{"own prior", g, g, a, true},
		{"swapped prior", g, g, b, false},
		{"shorter prior", mustGrid(t, 1, 3), mustGrid(t, 1, 3), []float64{0.2, 0.5, 0.3}, false},
		{"other output", g, mustGrid(t, 3, 2), a, false},
	} {
		before := len(ws.Solves)
		ch, err := w.Channel(c.in, c.out, c.prior, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, ref, err := Optimal{Solver: SolverGonum}.Solve(c.in, c.out, c.prior, 1)
		if err != nil {
			t.Fatal(err)
		}
		if d := distortion(c.prior, ch); math.Abs(d-ref.Primal) > 2e-6*ref.Primal {
			t.Errorf("%s: distortion %v, optimum %v", c.name, d, ref.Primal)
		}
		if got := len(ws.Solves) - before; got != map[bool]int{true: 1, false: 0}[c.warm] {
			t.Errorf("%s: %d solves by the warm solver", c.name, got)
		}
	}
}

func TestDecomposeStatsAndLazyRows(t *testing.T) {
	// The exact decomposition never builds the |In|^2 |Out| pair rows: its
	// pricing models hold the 8-neighbour rows and what separation adds.
	// Its statistics follow their definitions: Gap = (Primal - Dual) /
	// Primal, iterations counted, Constraints and Variables from Size.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 5, 6)
	prior := gowallaLike(g)
	n := g.Len()
	m := Optimal{Solver: s, Method: MethodDecompose}
	_, st, err := m.Solve(g, g, prior, 1)
	if err != nil {
		t.Fatal(err)
	}
	if all := n * (n - 1) * n; st.PricingRows >= all/2 || st.PricingRows < 2*spannerPairs(g, 1)*n {
		t.Errorf("%d pricing rows: want at least the %d neighbour rows, well below all %d pair rows", st.PricingRows, 2*spannerPairs(g, 1)*n, all)
	}
	if gap := (st.Primal - st.Dual) / st.Primal; st.Gap != gap {
		t.Errorf("gap %v, want (primal - dual)/primal = %v", st.Gap, gap)
	}
	if v, c := m.Size(g, g); st.Variables != v || st.Constraints != c || st.Iterations <= 0 || st.Rounds < 1 || st.Columns <= n {
		t.Errorf("stats %+v", st)
	}
}

func TestDecomposeSpanner2MatchesDirect(t *testing.T) {
	// The knight-move spanner's decomposition reaches the optimum of its
	// LP, solved whole by another solver (GLPK's dual simplex, or gonum's
	// dense one on a smaller grid), within the certified gap.
	s := sparseSolvers(t)[0]
	g, ref := mustGrid(t, 3, 4), SolverGLPK
	if !SolverAvailable(SolverGLPK) {
		g, ref = mustGrid(t, 2, 3), SolverGonum
	}
	prior := gowallaLike(g)
	for _, eps := range []float64{0.5, 2} {
		_, ref, err := Optimal{Spanner: 2, Solver: ref}.Solve(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		ch, st, err := Optimal{Spanner: 2, Solver: s, Method: MethodDecompose}.Solve(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		if d := (st.Primal - ref.Primal) / ref.Primal; math.Abs(d) > 2e-6 || st.Dual > ref.Primal*(1+5e-8) {
			t.Errorf("eps %v: decomposition %v (dual %v), direct %v", eps, st.Primal, st.Dual, ref.Primal)
		}
		checkGeoInd(t, "spanner 2", ch, eps, 0, 1e-9)
	}
}

func TestWarmResolveAtSameEpsCertifiesAtOnce(t *testing.T) {
	// A warm solve at the eps just solved starts from that solve's columns
	// and stability centre, the duals of its best bound: the first round
	// certifies the optimum.
	for _, s := range sparseSolvers(t) {
		g := mustGrid(t, 4, 5)
		ws, err := Optimal{Solver: s, Method: MethodDecompose}.NewSolver(g, g, gowallaLike(g))
		if err != nil {
			t.Fatal(err)
		}
		_, first, err := ws.Solve(0.9)
		if err != nil {
			t.Fatal(err)
		}
		_, again, err := ws.Solve(0.9)
		if err != nil {
			t.Fatal(err)
		}
		if again.Rounds != 1 || !again.Warm || math.Abs(again.Primal-first.Primal) > 2*DefaultGap*first.Primal {
			t.Errorf("%s: re-solve took %d rounds (first %d), %v vs %v", s, again.Rounds, first.Rounds, again.Primal, first.Primal)
		}
	}
}

func TestGonumStartsFromCheapestConstantChannel(t *testing.T) {
	// The dense simplex starts from the constant channel to the output of
	// least cost sum_x prior(x) d(x,y), the first such output on ties.
	g := mustGrid(t, 2, 3)
	prior := []float64{0.05, 0.1, 0.05, 0.1, 0.1, 0.6} // mass at cell 5
	best, want := math.Inf(1), -1
	for y := 0; y < 6; y++ {
		s := 0.0
		for x := 0; x < 6; x++ {
			s += prior[x] * math.Hypot(float64(x/3-y/3), float64(x%3-y%3))
		}
		if s < best {
			best, want = s, y
		}
	}
	if p := buildGeoLP(g, g, prior, 1, nil); p.start != want || want != 5 {
		t.Errorf("start %d, want %d", p.start, want)
	}
	// 1x2 uniform: both outputs cost 0.5; 2x2 uniform: all four tie.
	for _, r := range []int{1, 2} {
		h := mustGrid(t, r, 2)
		if p := buildGeoLP(h, h, uniformPrior(h.Len()), 1, nil); p.start != 0 {
			t.Errorf("%v uniform: start %d, want the first of the tied outputs, 0", h, p.start)
		}
	}
}

func TestPairsSeparateMostViolatedFirstOnTies(t *testing.T) {
	// separate reports, for each b with e^{-eps d(a,b)} v[a] > v[b] + tol
	// for some a, the row (a, b) of the a of largest excess, the first on
	// ties; an excess of exactly tol is not a violation. On a 1x4 line:
	g := mustGrid(t, 1, 4)
	eps := 0.7
	f1 := math.Exp(-eps)
	k := newGeoPairs(g, eps, nil)
	cases := []struct {
		v    []float64
		tol  float64
		want []pairRow
	}{
		// b = 1 is forced equally by cells 0 and 2 (0 reported); cell 2
		// forces b = 3 by exactly tol = 0.
		{[]float64{1, 0.1, 1, f1}, 0, []pairRow{{0, 1, 1}}},
		// b = 1 is forced by 0.03 < tol; b = 3 by cell 2, far beyond.
		{[]float64{1, f1 - 0.03, 1, 0.2}, 0.05, []pairRow{{2, 3, 1}}},
		// b = 0 is forced by cell 3 at distance 3 only.
		{[]float64{1e-3, 1, 1, 1}, 0, []pairRow{{1, 0, 1}}},
		{[]float64{0.5, 0.5, 0.5, 0.5}, 0, nil},
	}
	for _, c := range cases {
		got := k.separate(nil, c.v, c.tol)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("v %v tol %v: rows %v, want %v", c.v, c.tol, got, c.want)
		}
	}
	// A spanner's rows are all in the model: nothing to separate.
	if rs := newGeoPairs(g, eps, spannerEdges(g, 1)).separate(nil, cases[0].v, 0); len(rs) != 0 {
		t.Errorf("spanner: separate gave %v", rs)
	}
}

// floydDist is the shortest-path matrix of the edges, by Floyd-Warshall.
func floydDist(n int, edges []edge) []float64 {
	d := make([]float64, n*n)
	for i := range d {
		if i/n != i%n {
			d[i] = math.Inf(1)
		}
	}
	for _, e := range edges {
		d[e.a*n+e.b] = math.Min(d[e.a*n+e.b], e.d)
		d[e.b*n+e.a] = math.Min(d[e.b*n+e.a], e.d)
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d[i*n+j] = math.Min(d[i*n+j], d[i*n+k]+d[k*n+j])
			}
		}
	}
	return d
}

func TestPairsBumpsAreConeColumns(t *testing.T) {
	// The master's first columns: the constant vector, then for every
	// cell z the vector e^{-eps m(x,z)}, m the Euclidean distance (all
	// pairs) or the spanner's shortest paths (Floyd-Warshall here); the
	// pricing models start from both directions of the spanner's (or
	// the 8-neighbour) edges.
	g := mustGrid(t, 3, 4)
	n := g.Len()
	eps := 0.9
	for _, sp := range []int{0, 1, 2} {
		var edges []edge
		var metric []float64
		if sp == 0 {
			metric = make([]float64, n*n)
			for i := range metric {
				metric[i] = kernels.Dist(g, i/n, g, i%n)
			}
		} else {
			edges = spannerEdges(g, sp)
			metric = floydDist(n, edges)
		}
		k := newGeoPairs(g, eps, edges)
		bs := k.bumps()
		if len(bs) != n+1 {
			t.Fatalf("spanner %d: %d bumps, want %d", sp, len(bs), n+1)
		}
		for x := 0; x < n; x++ {
			if bs[0][x] != 1 {
				t.Errorf("spanner %d: constant bump %v", sp, bs[0])
			}
			for z := 0; z < n; z++ {
				if got, want := bs[1+z][x], math.Exp(-eps*metric[x*n+z]); math.Abs(got-want) > 1e-15 {
					t.Errorf("spanner %d: bump %d at %d = %v, want %v", sp, z, x, got, want)
				}
			}
		}
		rows := k.initialRows()
		ne := edges
		if sp == 0 {
			ne = spannerEdges(g, 1)
		}
		if len(rows) != 2*len(ne) {
			t.Errorf("spanner %d: %d initial rows, want %d", sp, len(rows), 2*len(ne))
		}
		for i, r := range rows {
			e := ne[i/2]
			a, b := int32(e.a), int32(e.b)
			if i%2 == 1 {
				a, b = b, a
			}
			if r.a != a || r.b != b || r.d != kernels.Dist(g, e.a, g, e.b) {
				t.Errorf("spanner %d: row %d = %+v, want (%d, %d)", sp, i, r, a, b)
			}
			if f := k.factor(r); math.Abs(f-math.Exp(-eps*r.d)) > 1e-16 {
				t.Errorf("factor %v", f)
			}
		}
	}
}

func TestGLPKTimeLimits(t *testing.T) {
	// GLPK's direct solve and its models stop at the time limit with an
	// error saying so.
	if !SolverAvailable(SolverGLPK) {
		t.Skip("SKIPPED: GLPK not compiled in (go test -tags glpk): its time limits are not checked")
	}
	g := mustGrid(t, 5, 5)
	_, err := Optimal{Solver: SolverGLPK, Method: MethodDual, TimeLimit: time.Millisecond}.Channel(g, g, gowallaLike(g), 1)
	wantErr(t, "direct", err, "glpk: time limit of 1 ms exceeded")
}

func TestGLPKRefusesProgramsBeyondCInt(t *testing.T) {
	// GLPK indexes its non-zeros (one per variable, two per geo-ind row)
	// with a C int, up to 2^31 - 2 of them: a larger program is refused
	// before anything is allocated (nothing else of the programs here is
	// filled in).
	if !SolverAvailable(SolverGLPK) {
		t.Skip("SKIPPED: GLPK not compiled in (go test -tags glpk): its size guard is not checked")
	}
	for _, c := range []struct {
		p    *geoLP
		want string
	}{
		{&geoLP{nIn: 5, nOut: 429496729, coef: []float64{0.5}}, "glpk: 2147483647 non-zeros exceed C int"}, // 2^31 - 3 + 2
		{&geoLP{nIn: 1 << 16, nOut: 1 << 15}, "glpk: 2147483648 non-zeros exceed C int"},
	} {
		_, _, err := solveGLPK(c.p)
		wantErr(t, fmt.Sprintf("%d x %d variables, %d rows", c.p.nIn, c.p.nOut, len(c.p.coef)), err, c.want)
	}
}

func TestOneInputCellHasNoConstraint(t *testing.T) {
	// With a single input cell there is no pair to constrain: every
	// solver reports that cell itself (distortion 0) with a tight
	// epsilon of 0.
	in, out := mustGrid(t, 1, 1), mustGrid(t, 1, 3)
	ms := []Optimal{{}}
	for _, s := range []string{SolverGLPK, SolverCLP} {
		if SolverAvailable(s) {
			ms = append(ms, Optimal{Solver: s, Method: MethodDual}, Optimal{Solver: s, Method: MethodPrimal})
		}
	}
	for _, m := range ms {
		ch, st, err := m.Solve(in, out, []float64{1}, 1)
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if ch.P[0] != 1 || ch.P[1] != 0 || ch.P[2] != 0 || st.Primal != 0 || st.TightEps != 0 {
			t.Errorf("%+v: channel %v, stats %+v", m, ch.P, st)
		}
	}
}

func TestDecomposeMeetsLooseGapsAndRefusesUnreachableOnes(t *testing.T) {
	// The decomposition stops once its certified gap is below Gap (it
	// aims at half of it), and a gap below what the solvers' tolerances
	// allow is an error saying so, not an uncertified result.
	g := mustGrid(t, 4, 5)
	prior := gowallaLike(g)
	for i, s := range sparseSolvers(t) {
		if i == 0 {
			for _, c := range [][2]float64{{1e-2, 0.3}, {1e-2, 3}, {1e-3, 1}, {3e-3, 3}} {
				_, st, err := Optimal{Solver: s, Method: MethodDecompose, Gap: c[0]}.Solve(g, g, prior, c[1])
				if err != nil {
					t.Fatal(err)
				}
				if !(st.Gap <= c[0]) {
					t.Errorf("%s Gap %v, eps %v: certified gap %v", s, c[0], c[1], st.Gap)
				}
			}
		}
		_, _, err := Optimal{Solver: s, Method: MethodDecompose, Gap: 1e-14}.Solve(g, g, prior, 1)
		wantErr(t, s+" Gap 1e-14", err, "no new column at the master's duals but gap", "(solver tolerances)")
	}
}

func TestLPBuildersAllocateOnce(t *testing.T) {
	// The LP's arrays are sized before they are filled: the number of
	// allocations does not grow with the grid (no append regrowth).
	small, large := mustGrid(t, 2, 3), mustGrid(t, 6, 7)
	allocs := func(f func()) float64 { return testing.AllocsPerRun(5, f) }
	build := func(g kernels.Grid) float64 {
		edges, prior := spannerEdges(g, 0), uniformPrior(g.Len())
		return allocs(func() { buildGeoLP(g, g, prior, 1, edges) })
	}
	// The struct, the costs and the three row arrays.
	if a, b := build(small), build(large); a != b || b > 5 {
		t.Errorf("buildGeoLP: %v allocations on 2x3, %v on 6x7; want the same, at most 5", a, b)
	}
	rows := func(g kernels.Grid) float64 {
		k := newGeoPairs(g, 1, spannerEdges(g, 2))
		return allocs(func() { k.initialRows() })
	}
	if a, b := rows(small), rows(large); a != 1 || b != 1 {
		t.Errorf("initialRows: %v allocations on 2x3, %v on 6x7; want 1", a, b)
	}
	// The distance matrix, the list, the constant column and one column
	// per cell.
	for _, g := range []kernels.Grid{small, large} {
		k := newGeoPairs(g, 1, nil)
		if a := allocs(func() { k.bumps() }); a != float64(g.Len()+3) {
			t.Errorf("bumps on %v: %v allocations, want %d", g, a, g.Len()+3)
		}
	}
	if !SolverAvailable(SolverCLP) {
		t.Skip("SKIPPED: CLP not compiled in (go test -tags clp): its direct model's allocations are not checked")
	}
	direct := func(g kernels.Grid) float64 {
		p := buildGeoLP(g, g, gowallaLike(g), 1, spannerEdges(g, 0))
		return allocs(func() {
			if _, _, err := solveDirectModel(p, MethodDual, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := direct(small), direct(mustGrid(t, 3, 3)); a != b {
		t.Errorf("solveDirectModel: %v allocations on 2x3, %v on 3x3; want the same", a, b)
	}
}

func TestGonumRelaxationIsAsDocumented(t *testing.T) {
	// gonum's dense simplex solves the LP with every geo-ind row relaxed
	// by its own amount in [1e-9, 2e-9): its raw solution meets the row
	// sums and exceeds no geo-ind row by 2e-9 or more, and the rows it
	// makes tight it exceeds by their relaxation, by more than 1e-9 on at
	// least one of them.
	g := mustGrid(t, 2, 3)
	for _, c := range []struct {
		spanner int
		eps     float64
	}{{0, 0.4}, {1, 1.5}} {
		p := buildGeoLP(g, g, gowallaLike(g), c.eps, spannerEdges(g, c.spanner))
		x, err := solveGonum(p)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < p.nIn; r++ {
			s := 0.0
			for _, v := range x[r*p.nOut : (r+1)*p.nOut] {
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("spanner %d eps %v: row %d sums to %v", c.spanner, c.eps, r, s)
			}
		}
		worst := math.Inf(-1)
		for k := range p.coef {
			worst = math.Max(worst, p.coef[k]*x[p.lo[k]]-x[p.hi[k]])
		}
		if !(worst > 1e-9*(1+1e-6) && worst < 2e-9) {
			t.Errorf("spanner %d eps %v: largest excess over a geo-ind row %v, want in (1e-9, 2e-9)", c.spanner, c.eps, worst)
		}
	}
}
