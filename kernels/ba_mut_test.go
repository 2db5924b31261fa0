package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
