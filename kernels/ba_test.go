package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// plainBA is Blahut-Arimoto written from the definition with a dense
// channel and double loops, no factorisation: start from the uniform
// channel, then c = prior C; C[x,y] = c[y] exp(-beta d(x,y)) / sum_z (...).
func plainBA(g Grid, prior []float64, beta float64, iters int) (ch, c []float64) {
	m := g.Len()
	ch = make([]float64, m*m)
	for i := range ch {
		ch[i] = 1 / float64(m)
	}
	c = make([]float64, m)
	for t := 0; t < iters; t++ {
		for y := range c {
			c[y] = 0
			for x := 0; x < m; x++ {
				c[y] += prior[x] * ch[x*m+y]
			}
		}
		for x := 0; x < m; x++ {
			s := 0.0
			for y := 0; y < m; y++ {
				ch[x*m+y] = c[y] * math.Exp(-beta*Dist(g, x, g, y))
				s += ch[x*m+y]
			}
			for y := 0; y < m; y++ {
				ch[x*m+y] /= s
			}
		}
	}
	return ch, c
}

// randCity is a rows x cols grid with a randPrior on it (a fraction zero
// of its cells empty).
func randCity(t testing.TB, rng *rand.Rand, rows, cols int, zero float64) (Grid, []float64) {
	t.Helper()
	g, err := NewGrid(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return g, randPrior(rng, g.Len(), zero)
}

// mustBA is BA that stops the test on an error, for tests whose subject
// is what is done with the channel rather than BA's input checks.
func mustBA(t testing.TB, g Grid, prior []float64, cfg BAConfig) *BAChannel {
	t.Helper()
	b, err := BA(g, prior, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randPrior returns a random distribution over m cells with about a
// fraction zero of exact zeros.
func randPrior(rng *rand.Rand, m int, zero float64) []float64 {
	p := make([]float64, m)
	fillRandDist(rng, p, zero)
	return p
}

// fillRandDist overwrites p with a random distribution (exponential
// weights, normalised) in which about a fraction zero of the entries are
// exact zeros; if all would be zero, one entry at random gets all the mass.
func fillRandDist(rng *rand.Rand, p []float64, zero float64) {
	s := 0.0
	for i := range p {
		p[i] = 0
		if rng.Float64() >= zero {
			p[i] = rng.ExpFloat64()
		}
		s += p[i]
	}
	if s == 0 {
		p[rng.IntN(len(p))] = 1
		s = 1
	}
	for i := range p {
		p[i] /= s
	}
}

// toDist divides p by its sum, in place, and returns it: the tests'
// own normalisation, kept apart from the package's.
func toDist(p []float64) []float64 {
	s := 0.0
	for _, v := range p {
		s += v
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func relClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// forParisBetas calls check with the BA channel (10 iterations from
// uniform) of the Paris grid g and its empirical prior at each of the
// paper's betas 0.2, 1 and 5.
func forParisBetas(t *testing.T, check func(beta float64, g Grid, prior []float64, b *BAChannel)) {
	t.Helper()
	g, counts := loadCity(t, "paris")
	prior := cityPrior(counts)
	for _, beta := range []float64{0.2, 1, 5} {
		b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 10})
		check(beta, g, prior, b)
	}
}

func TestBAMatchesPlainParis(t *testing.T) {
	forParisBetas(t, func(beta float64, g Grid, prior []float64, b *BAChannel) {
		want, wantC := plainBA(g, prior, beta, 10)
		got := b.Channel()
		worst := 0.0
		for i, w := range want {
			worst = max(worst, math.Abs(got.P[i]-w)/w)
		}
		t.Logf("beta=%v: worst relative difference %.3g", beta, worst)
		if worst > 1e-12 {
			t.Errorf("beta=%v: largest relative difference to plain BA %.3g > 1e-12", beta, worst)
		}
		for y, w := range wantC {
			if !relClose(b.Marginal[y], w, 1e-12) {
				t.Errorf("beta=%v: marginal[%d] = %v, plain BA %v", beta, y, b.Marginal[y], w)
				break
			}
		}
		if b.Iterations != 10 {
			t.Errorf("Iterations = %d, want 10", b.Iterations)
		}
	})
}

// TestBAMatchesPlainSmall runs the same comparison on small grids with
// zeros in the prior (no shared data needed), in both domains.
func TestBAMatchesPlainSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sz := range [][2]int{{1, 1}, {1, 6}, {5, 5}, {6, 9}, {9, 4}} {
		g, prior := randCity(t, rng, sz[0], sz[1], 0.3)
		for _, beta := range []float64{0.1, 1.5, 6} {
			want, _ := plainBA(g, prior, beta, 7)
			for _, forceLog := range []bool{false, true} {
				var ws BAWorkspace
				b, err := ws.ba(g, prior, BAConfig{Beta: beta, Iterations: 7}, forceLog)
				if err != nil {
					t.Fatal(err)
				}
				got := b.Channel()
				for i, w := range want {
					if !relClose(got.P[i], w, 1e-11) {
						t.Fatalf("%v beta=%v log=%v: C[%d] = %v, plain BA %v", g, beta, forceLog, i, got.P[i], w)
					}
				}
			}
		}
	}
}

func checkStochastic(t *testing.T, name string, ch *Channel, tol float64) {
	t.Helper()
	n := ch.Out.Len()
	for x := 0; x < ch.In.Len(); x++ {
		s, mx := 0.0, 0.0
		for _, v := range ch.Row(x) {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%s: row %d has entry %v", name, x, v)
			}
			s += v
			mx = max(mx, v)
		}
		if math.Abs(s-1) > tol || mx == 0 {
			t.Fatalf("%s: row %d sums to %v (max entry %v) of %d", name, x, s, mx, n)
		}
	}
}

func TestBARowsStochastic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{3, 3}, {7, 5}, {11, 15}} {
		g, _ := NewGrid(sz[0], sz[1])
		for _, zero := range []float64{0, 0.5, 0.95} {
			prior := randPrior(rng, g.Len(), zero)
			for _, beta := range []float64{0.05, 0.7, 4, 30} {
				for _, iters := range []int{1, 3, 12} {
					b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: iters})
					checkStochastic(t, "BA", b.Channel(), 1e-12)
					s := 0.0
					for _, v := range b.Marginal {
						s += v
					}
					if math.Abs(s-1) > 1e-12 {
						t.Fatalf("%v beta=%v: marginal sums to %v", g, beta, s)
					}
				}
			}
		}
	}
}

// TestBAObjectiveNonIncreasing checks the rate-distortion objective
// MI + beta*AvgD along the iterations, starting from the uniform channel.
func TestBAObjectiveNonIncreasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g, _ := NewGrid(6, 7)
	for _, zero := range []float64{0, 0.4} {
		prior := randPrior(rng, g.Len(), zero)
		for _, beta := range []float64{0.3, 1, 3} {
			uni, _ := NewChannel(g, g)
			for i := range uni.P {
				uni.P[i] = 1 / float64(g.Len())
			}
			prev := objective(t, prior, uni, beta)
			for it := 1; it <= 15; it++ {
				b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: it})
				f := objective(t, prior, b.Channel(), beta)
				if f > prev+1e-12*math.Abs(prev) {
					t.Fatalf("beta=%v zero=%v: objective rose from %v to %v at iteration %d", beta, zero, prev, f, it)
				}
				prev = f
			}
		}
	}
}

func objective(t *testing.T, prior []float64, ch *Channel, beta float64) float64 {
	t.Helper()
	mi, err := MutualInformation(prior, ch)
	if err != nil {
		t.Fatal(err)
	}
	d, err := AvgDistortion(prior, ch)
	if err != nil {
		t.Fatal(err)
	}
	return mi + beta*d
}

// TestBATightEps checks the O(m^2) form against the brute force and the
// 2*beta bound, on random grids and priors.
func TestBATightEps(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 12; trial++ {
		g, _ := NewGrid(1+rng.IntN(7), 1+rng.IntN(7))
		prior := randPrior(rng, g.Len(), 0.3*rng.Float64())
		beta := 0.05 + 4*rng.Float64()
		b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 1 + rng.IntN(20)})
		fast, err := b.TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		brute, err := b.Channel().TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fast-brute) > 1e-9*max(1, brute) {
			t.Errorf("%v beta=%v: fast tight eps %v, brute force %v", g, beta, fast, brute)
		}
		if fast > 2*beta+1e-9 {
			t.Errorf("%v beta=%v: tight eps %v > 2 beta", g, beta, fast)
		}
	}
}

// TestBALargeBeta: beta = 50 on the SF-sized grid underflows exp(-beta d)
// for d > 15; the log-domain iteration must give finite, stochastic rows.
func TestBALargeBeta(t *testing.T) {
	g, _ := NewGrid(16, 24)
	rng := rand.New(rand.NewPCG(13, 14))
	point := make([]float64, g.Len())
	point[0] = 1 // all mass in a corner: far cells see only underflowed terms
	priors := map[string][]float64{"random with zeros": randPrior(rng, g.Len(), 0.6), "corner point mass": point}
	for name, prior := range priors {
		b := mustBA(t, g, prior, BAConfig{Beta: 50, Iterations: 10})
		if !b.logDomain {
			t.Fatalf("%s: beta=50 on 16x24 should iterate in the log domain", name)
		}
		checkStochastic(t, name, b.Channel(), 1e-12)
		if e, err := b.TightEpsilon(); err != nil || math.IsNaN(e) || e > 100+1e-9 {
			t.Errorf("%s: tight eps %v (%v), want finite <= 2 beta", name, e, err)
		}
		for y, v := range b.Marginal {
			if math.IsNaN(v) || v < 0 {
				t.Fatalf("%s: marginal[%d] = %v", name, y, v)
			}
		}
	}
	// With the point mass, the exact row of the far corner concentrates on
	// the cells nearest the straight path to the mass; it must not be
	// uniform or empty: the far corner's report lies closer to the mass
	// than the corner itself.
	b := mustBA(t, g, point, BAConfig{Beta: 50, Iterations: 10})
	ch := b.Channel()
	far := g.Len() - 1
	best, arg := 0.0, -1
	for y, v := range ch.Row(far) {
		if v > best {
			best, arg = v, y
		}
	}
	if Dist(g, arg, g, 0) >= Dist(g, far, g, 0) {
		t.Errorf("far corner's likeliest report %d is not closer to the mass", arg)
	}
}

func TestBAConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	g, prior := randCity(t, rng, 5, 6, 0.2)
	for _, forceLog := range []bool{false, true} {
		const delta = 1e-9
		var ws BAWorkspace
		b, err := ws.ba(g, prior, BAConfig{Beta: 1.2, Delta: delta}, forceLog)
		if err != nil {
			t.Fatal(err)
		}
		if !b.Converged || b.Change >= delta || b.Iterations < 2 {
			t.Fatalf("log=%v: converged=%v change=%v after %d iterations", forceLog, b.Converged, b.Change, b.Iterations)
		}
		// Independent check of the stopping rule from materialised channels.
		chAt := func(it int) *Channel {
			c := mustBA(t, g, prior, BAConfig{Beta: 1.2, Iterations: it})
			return c.Channel()
		}
		last, before, earlier := chAt(b.Iterations), chAt(b.Iterations-1), chAt(b.Iterations-2)
		if d := maxAbsDiff(last.P, before.P); d >= delta || math.Abs(d-b.Change) > 1e-14 {
			t.Errorf("log=%v: last change %v (reported %v), want < %v", forceLog, d, b.Change, delta)
		}
		if b.Iterations > 2 {
			if d := maxAbsDiff(before.P, earlier.P); d < delta {
				t.Errorf("log=%v: change %v at iteration %d already below delta", forceLog, d, b.Iterations-1)
			}
		}
	}
	// The cap.
	b, err := BA(g, prior, BAConfig{Beta: 1.2, Delta: 1e-300, MaxIterations: 7})
	if err != nil || b.Iterations != 7 || b.Converged {
		t.Errorf("capped run: %v iterations, converged %v, err %v", b.Iterations, b.Converged, err)
	}
	// Uniform start: with a tiny beta, C_1 is within delta of uniform.
	for _, forceLog := range []bool{false, true} {
		var ws BAWorkspace
		b, err := ws.ba(g, prior, BAConfig{Beta: 1e-12, Delta: 1e-9}, forceLog)
		if err != nil || b.Iterations != 1 || !b.Converged {
			t.Errorf("tiny beta, log=%v: %d iterations, converged %v, err %v", forceLog, b.Iterations, b.Converged, err)
		}
	}
}

func TestBAErrors(t *testing.T) {
	g, _ := NewGrid(3, 4)
	good := make([]float64, 12)
	for i := range good {
		good[i] = 1.0 / 12
	}
	bad := func(f func(p []float64)) []float64 {
		p := append([]float64(nil), good...)
		f(p)
		return p
	}
	// A grid one row beyond the size limit, with a valid prior, so that only
	// the size guard can refuse it.
	huge := Grid{Rows: MaxCells/1024 + 1, Cols: 1024}
	cases := []struct {
		name  string
		g     Grid
		prior []float64
		cfg   BAConfig
		want  string
	}{
		{"beta 0", g, good, BAConfig{Beta: 0, Iterations: 1}, "ba: beta = 0: must be finite and > 0"},
		{"beta <0", g, good, BAConfig{Beta: -1, Iterations: 1}, "ba: beta = -1: must be finite and > 0"},
		{"beta NaN", g, good, BAConfig{Beta: math.NaN(), Iterations: 1}, "ba: beta = NaN: must be finite and > 0"},
		{"beta Inf", g, good, BAConfig{Beta: math.Inf(1), Iterations: 1}, "ba: beta = +Inf: must be finite and > 0"},
		{"iterations <0", g, good, BAConfig{Beta: 1, Iterations: -1}, "ba: iterations = -1: must be >= 0"},
		{"delta 0", g, good, BAConfig{Beta: 1}, "ba: convergence mode (iterations = 0): delta = 0: must be finite and > 0"},
		{"delta NaN", g, good, BAConfig{Beta: 1, Delta: math.NaN()}, "delta = NaN: must be finite and > 0"},
		{"max iterations <0", g, good, BAConfig{Beta: 1, Delta: 1e-3, MaxIterations: -2}, "ba: max iterations = -2: must be >= 0"},
		{"short prior", g, good[:11], BAConfig{Beta: 1, Iterations: 1}, "ba: prior has 11 entries, want 12"},
		{"negative", g, bad(func(p []float64) { p[0] = -p[0]; p[1] += 2 * p[1] }), BAConfig{Beta: 1, Iterations: 1}, "prior[0] = -0.08333333333333333: entries must be finite and >= 0"},
		{"NaN", g, bad(func(p []float64) { p[3] = math.NaN() }), BAConfig{Beta: 1, Iterations: 1}, "prior[3] = NaN: entries must be finite and >= 0"},
		{"Inf", g, bad(func(p []float64) { p[3] = math.Inf(1) }), BAConfig{Beta: 1, Iterations: 1}, "prior[3] = +Inf: entries must be finite and >= 0"},
		{"not normalised", g, bad(func(p []float64) { p[3] *= 1.01 }), BAConfig{Beta: 1, Iterations: 1}, "ba: prior sums to 1.00083"},
		{"bad grid", Grid{Rows: 0, Cols: 4}, good, BAConfig{Beta: 1, Iterations: 1}, "ba: grid 0x4: rows and cols must be > 0"},
		{"huge grid", huge, uniform(huge.Len()), BAConfig{Beta: 1, Iterations: 1},
			fmt.Sprintf("ba: grid %dx%d: more than %d cells", huge.Rows, huge.Cols, MaxCells)},
	}
	for _, tc := range cases {
		if _, err := BA(tc.g, tc.prior, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	// The dense channel's guard: BA works beyond MaxDenseCells, but its
	// channel is not materialised there, and Dense says why; the guard's
	// edge is exactly MaxDenseCells x MaxDenseCells entries.
	big := Grid{Rows: MaxDenseCells/128 + 1, Cols: 128}
	b, err := BA(big, uniform(big.Len()), BAConfig{Beta: 1, Iterations: 1})
	if err != nil {
		t.Fatalf("%v: %v", big, err)
	}
	want := fmt.Sprintf("ba: a dense %v -> %v channel has %d entries", big, big, big.Len()*big.Len())
	if _, err := b.Dense(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Dense on %v: error %v, want one saying %q", big, err, want)
	}
	if b.Channel() != nil {
		t.Errorf("Channel on %v is not nil", big)
	}
	edge := Grid{Rows: MaxDenseCells / 128, Cols: 128}
	if err := checkDenseSize(edge, edge); err != nil {
		t.Errorf("%v (%d cells, the limit): %v", edge, edge.Len(), err)
	}
	if err := checkDenseSize(edge, Grid{Rows: 1, Cols: edge.Len() + 1}); err == nil {
		t.Errorf("%v -> %d cells accepted", edge, edge.Len()+1)
	}
	// Within the documented tolerance the prior is accepted.
	if _, err := BA(g, bad(func(p []float64) { p[0] += 1e-10 }), BAConfig{Beta: 1, Iterations: 1}); err != nil {
		t.Errorf("prior off by 1e-10 rejected: %v", err)
	}
}

func TestBAWorkspaceAllocs(t *testing.T) {
	g, _ := NewGrid(11, 15)
	prior := randPrior(rand.New(rand.NewPCG(1, 1)), g.Len(), 0)
	var ws BAWorkspace
	run := func(iters int) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := ws.BA(g, prior, BAConfig{Beta: 1, Iterations: iters}); err != nil {
				t.Fatal(err)
			}
		})
	}
	a1, a50 := run(1), run(50)
	if a50 != a1 {
		t.Errorf("allocations grow with iterations: %v for 1, %v for 50", a1, a50)
	}
	ca := testing.AllocsPerRun(5, func() {
		if _, err := ws.BA(g, prior, BAConfig{Beta: 1, Delta: 1e-300, MaxIterations: 30}); err != nil {
			t.Fatal(err)
		}
	})
	if ca != a1 {
		t.Errorf("convergence mode allocates per iteration: %v vs %v", ca, a1)
	}
}

// TestBAChangeExact: in convergence mode the reported Change is the exact
// largest entry change between the last two channels (the uniform channel
// before the first), checked against materialised channels after every
// number of iterations up to the cap, in both domains, on grids with more
// rows than columns and the reverse.
func TestBAChangeExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, sz := range [][2]int{{3, 5}, {5, 2}} {
		g, _ := NewGrid(sz[0], sz[1])
		m := g.Len()
		prior := randPrior(rng, m, 0.2)
		uni := make([]float64, m*m)
		for i := range uni {
			uni[i] = 1 / float64(m)
		}
		for _, forceLog := range []bool{false, true} {
			prev := uni
			for it := 1; it <= 6; it++ {
				var ws BAWorkspace
				// Delta 1e-300 never converges: the cap stops the run, and
				// Change is computed on the last iteration.
				b, err := ws.ba(g, prior, BAConfig{Beta: 0.8, Delta: 1e-300, MaxIterations: it}, forceLog)
				if err != nil {
					t.Fatal(err)
				}
				want, wantC := plainBA(g, prior, 0.8, it)
				d := maxAbsDiff(want, prev)
				if b.Iterations != it || b.Converged || math.Abs(b.Change-d) > 1e-13*d {
					t.Errorf("%v log=%v cap %d: %d iterations, converged %v, change %.17g; want %d, false, %.17g",
						g, forceLog, it, b.Iterations, b.Converged, b.Change, it, d)
				}
				// The marginal the channel was built from (uniform for C_1).
				if e := maxRelDiff(b.Marginal, wantC); e > 1e-12 {
					t.Errorf("%v log=%v cap %d: marginal differs from plain BA's by %.3g", g, forceLog, it, e)
				}
				prev = want
			}
		}
	}
}

// TestBAWorkspaceReuse: a workspace reused across grids, betas and
// domains gives exactly what a fresh call gives.
func TestBAWorkspaceReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	var ws BAWorkspace
	for _, tc := range []struct {
		rows, cols int
		beta       float64
		log        bool
	}{
		{4, 5, 0.7, false}, {4, 5, 0.7, false}, {4, 5, 1.3, false}, {4, 6, 1.3, false},
		{3, 6, 1.3, false}, {3, 6, 1.3, true}, {3, 6, 1.3, false}, {3, 6, 2, true}, {4, 5, 0.7, false},
	} {
		g, prior := randCity(t, rng, tc.rows, tc.cols, 0.1)
		cfg := BAConfig{Beta: tc.beta, Iterations: 4}
		got, err := ws.ba(g, prior, cfg, tc.log)
		if err != nil {
			t.Fatal(err)
		}
		var fresh BAWorkspace
		want, err := fresh.ba(g, prior, cfg, tc.log)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(got.Channel().P, want.Channel().P); d != 0 {
			t.Errorf("%v beta=%v log=%v: reused workspace differs from a fresh one by %g", g, tc.beta, tc.log, d)
		}
	}
}

// TestBADomainThreshold: BA iterates in the linear domain up to
// beta*dmax = 600 (dmax the grid's diameter) and in the log domain above.
// On a 4x5 grid dmax = hypot(3, 4) = 5 exactly.
func TestBADomainThreshold(t *testing.T) {
	g, _ := NewGrid(4, 5)
	prior := uniform(g.Len())
	for _, tc := range []struct {
		beta float64
		log  bool
	}{{119, false}, {120, false}, {120.001, true}, {500, true}} {
		b := mustBA(t, g, prior, BAConfig{Beta: tc.beta, Iterations: 2})
		if b.logDomain != tc.log {
			t.Errorf("beta*dmax = %v: log domain %v, want %v", tc.beta*5, b.logDomain, tc.log)
		}
	}
}

// TestBALargeWideStaysLinear: a grid of fftMinCells cells or more first
// tries the linear domain even when beta*dmax > 600, and keeps it when no
// normaliser falls below zFloor. On the 32x32 grid (exactly fftMinCells
// cells, dmax = 31*sqrt(2)) with beta = 14, beta*dmax = 613.8, yet with
// a uniform prior c stays uniform-ish and Z(x) >= c(x) K(x,x) >= 1e-4:
// the channel must be a linear-domain one (whose metrics are available),
// and agree with the log-domain iteration of the same BA.
func TestBALargeWideStaysLinear(t *testing.T) {
	g, _ := NewGrid(32, 32)
	if g.Len() != fftMinCells {
		t.Fatalf("grid of %d cells, want fftMinCells = %d", g.Len(), fftMinCells)
	}
	prior := uniform(g.Len())
	cfg := BAConfig{Beta: 14, Iterations: 3}
	if dmax := math.Hypot(31, 31); cfg.Beta*dmax <= logDomainThreshold {
		t.Fatalf("beta*dmax = %v, want > %v", cfg.Beta*dmax, logDomainThreshold)
	}
	b := mustBA(t, g, prior, cfg)
	if b.logDomain {
		t.Fatalf("32x32, beta 14, uniform prior: iterated in the log domain; a large grid must keep the linear domain while Z >= %g", zFloor)
	}
	if _, err := b.avgDistortion(prior); err != nil {
		t.Errorf("avg distortion of a linear-domain channel: %v", err)
	}
	var ws BAWorkspace
	lb, err := ws.ba(g, prior, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	if e := maxRelDiff(b.Marginal, lb.Marginal); e > 1e-9 {
		t.Errorf("linear and log-domain marginals differ by %.3g relative", e)
	}
	if e := maxRelDiff(b.LogZ(), lb.LogZ()); e > 1e-9 {
		t.Errorf("linear and log-domain ln Z differ by %.3g relative", e)
	}
}

// TestBAWorkspaceAllocsOnlyResults: a reused workspace on one grid and
// beta allocates only the result, in two pieces: the BAChannel with its
// lazy holder, and one slab for its marginal and normalisers, in both fixed-iteration
// and convergence mode, on a stencil grid and an FFT grid.
func TestBAWorkspaceAllocsOnlyResults(t *testing.T) {
	for _, sz := range [][2]int{{11, 15}, {32, 40}} {
		g, _ := NewGrid(sz[0], sz[1])
		prior := randPrior(rand.New(rand.NewPCG(3, 4)), g.Len(), 0.1)
		var ws BAWorkspace
		for _, cfg := range []BAConfig{{Beta: 1, Iterations: 3}, {Beta: 1, Delta: 1e-300, MaxIterations: 3}} {
			if _, err := ws.BA(g, prior, cfg); err != nil { // plan and buffers
				t.Fatal(err)
			}
			var ch *BAChannel
			a := testing.AllocsPerRun(3, func() {
				var err error
				if ch, err = ws.BA(g, prior, cfg); err != nil {
					t.Fatal(err)
				}
			})
			// The slab's pieces are capped: appending to the marginal
			// cannot overwrite the normalisers.
			if cap(ch.Marginal) != g.Len() || len(ch.z) != g.Len() || cap(ch.z) != g.Len() {
				t.Errorf("%v: marginal of length %d, cap %d; normalisers %d, cap %d", g, len(ch.Marginal), cap(ch.Marginal), len(ch.z), cap(ch.z))
			}
			if a != 2 {
				t.Errorf("%v %+v: %v allocations per reused call, want 2 (channel with its lazy holder, marginal with normalisers)", g, cfg, a)
			}
		}
	}
}

// changeAt returns the Change BA reports when capped at it iterations:
// the exact change of the last iteration (see TestBAChangeExact).
func changeAt(t *testing.T, g Grid, prior []float64, beta float64, it int, forceLog bool) float64 {
	t.Helper()
	var ws BAWorkspace
	b, err := ws.ba(g, prior, BAConfig{Beta: beta, Delta: 1e-300, MaxIterations: it}, forceLog)
	if err != nil {
		t.Fatal(err)
	}
	return b.Change
}

// TestBAStopsStrictlyBelowDelta: the stopping rule is change < Delta,
// strictly, at the cap too. With Delta set to exactly the change of
// iteration t (below every earlier change), BA capped at t iterations has
// not converged, uncapped it goes on to iteration t+1; with Delta the next
// float above, it stops at t, converged.
func TestBAStopsStrictlyBelowDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	g, prior := randCity(t, rng, 3, 5, 0.2)
	const beta = 0.8
	for _, forceLog := range []bool{false, true} {
		var changes []float64
		for it := 1; it <= 6; it++ {
			changes = append(changes, changeAt(t, g, prior, beta, it, forceLog))
		}
		for it := 2; it <= 5; it++ {
			ch, next := changes[it-1], changes[it]
			for _, c := range changes[:it-1] {
				if c <= ch {
					t.Fatalf("log=%v: change %v at %d not below earlier %v", forceLog, ch, it, c)
				}
			}
			if next >= ch {
				t.Fatalf("log=%v: change %v at %d not below %v at %d", forceLog, next, it+1, ch, it)
			}
			run := func(delta float64, maxIter int) *BAChannel {
				var ws BAWorkspace
				b, err := ws.ba(g, prior, BAConfig{Beta: beta, Delta: delta, MaxIterations: maxIter}, forceLog)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			if b := run(ch, it); b.Iterations != it || b.Converged || b.Change != ch {
				t.Errorf("log=%v delta = change at %d (%v), cap %d: %d iterations, converged %v, change %v; want %d, not converged",
					forceLog, it, ch, it, b.Iterations, b.Converged, b.Change, it)
			}
			if b := run(ch, 100); b.Iterations != it+1 || !b.Converged || b.Change != next {
				t.Errorf("log=%v delta = change at %d (%v): stopped after %d (converged %v, change %v), want %d with change %v",
					forceLog, it, ch, b.Iterations, b.Converged, b.Change, it+1, next)
			}
			if b := run(math.Nextafter(ch, 1), 100); b.Iterations != it || !b.Converged || b.Change != ch {
				t.Errorf("log=%v delta just above the change at %d: stopped after %d (converged %v), want %d", forceLog, it, b.Iterations, b.Converged, it)
			}
		}
	}
}

// TestBADiagonalBoundSkipsExactChange: in convergence mode the exact
// change maximum is computed only at the iterations whose diagonal bound
// lb_t = max_x |C_t[x,x] - C_{t-1}[x,x]| is below Delta (lb_t >= Delta
// already rules convergence out), and at the cap. The bounds are
// recomputed here from the factors of capped runs (the same floating-point
// operations as BA's), and Delta is set to one of them exactly, the case
// where computing the maximum would be wasted.
func TestBADiagonalBoundSkipsExactChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	g, prior := randCity(t, rng, 4, 3, 0.2)
	const beta, T = 0.8, 8
	for _, forceLog := range []bool{false, true} {
		// diag[t][x] = C_t[x,x] as BA computes it (diag[0] unused).
		diag := make([][]float64, T+1)
		for it := 1; it <= T; it++ {
			var ws BAWorkspace
			b, err := ws.ba(g, prior, BAConfig{Beta: beta, Iterations: it}, forceLog)
			if err != nil {
				t.Fatal(err)
			}
			diag[it] = make([]float64, g.Len())
			for x := range diag[it] {
				if forceLog {
					diag[it][x] = math.Exp(b.logc[x] - b.logZ[x])
				} else {
					diag[it][x] = b.Marginal[x] * (1 / b.z[x])
				}
			}
		}
		lb := make([]float64, T+1) // lb[1] = 0: C_0 is not diagonal-tested
		for it := 2; it <= T; it++ {
			for x := range diag[it] {
				lb[it] = max(lb[it], math.Abs(diag[it][x]-diag[it-1][x]))
			}
		}
		for _, at := range []int{3, 5} {
			delta := lb[at]
			var ws BAWorkspace
			b, err := ws.ba(g, prior, BAConfig{Beta: beta, Delta: delta, MaxIterations: T}, forceLog)
			if err != nil {
				t.Fatal(err)
			}
			if b.Iterations <= at {
				t.Fatalf("log=%v delta = lb at %d: stopped after %d, before the bound's iteration", forceLog, at, b.Iterations)
			}
			want := 0
			for it := 1; it <= b.Iterations; it++ {
				if lb[it] < delta || it == T {
					want++
				}
			}
			if ws.exactChanges != want {
				t.Errorf("log=%v delta = lb at %d: %d exact change maxima in %d iterations, want %d (bounds %v)",
					forceLog, at, ws.exactChanges, b.Iterations, want, lb[1:])
			}
		}
	}
}

// TestBADenseFlushBoundary: Dense flushes the entries below the smallest
// normal number and keeps those at it. The channel's factors are set by
// hand so that the diagonal entry (K = 1) of row 0 lands exactly on the
// boundary: c(0)/Z(0) = 2^-1022 in the linear domain, ln c(0) - ln Z(0) =
// ln 2^-1022 (whose exp is the normal 2.2250738585072626e-308) in the
// log domain.
func TestBADenseFlushBoundary(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	g, prior := randCity(t, rng, 2, 3, 0)
	for _, forceLog := range []bool{false, true} {
		var ws BAWorkspace
		b, err := ws.ba(g, prior, BAConfig{Beta: 1, Iterations: 2}, forceLog)
		if err != nil {
			t.Fatal(err)
		}
		bb := *b
		want := smallestNormal
		if forceLog {
			bb.logc = append([]float64(nil), b.logc...)
			bb.logZ = append([]float64(nil), b.logZ...)
			bb.logc[0], bb.logZ[0] = logSmallestNormal, 0
			want = math.Exp(logSmallestNormal)
		} else {
			bb.Marginal = append([]float64(nil), b.Marginal...)
			bb.z = append([]float64(nil), b.z...)
			bb.Marginal[0], bb.z[0] = smallestNormal, 1
		}
		ch, err := bb.Dense()
		if err != nil {
			t.Fatal(err)
		}
		if got := ch.P[0]; got != want || want < smallestNormal {
			t.Errorf("log=%v: entry on the boundary %v, want %v kept", forceLog, got, want)
		}
	}
}
