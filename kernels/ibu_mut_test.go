package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkIBUStopsStrictlyBelowDelta checks the stopping rule of an IBU
// variant at its boundary: convergence mode stops at the first r with
// max_x |theta_r(x) - theta_{r-1}(x)| < Delta, strictly. The changes are
// computed here from the estimates the runs return: first roughly, from
// runs capped at r updates (Delta 1e-300 never stops them early; some
// variants renormalise a capped estimate once more, which moves its last
// bits), then exactly, from runs that stop at r-1 and at r on Deltas
// just above those rough changes (the estimates the stopping test
// compared). With Delta equal to the exact change of update r (below
// every earlier change and above the next) the run must go on to r+1,
// and with Delta the next float above, stop at r.
func checkIBUStopsStrictlyBelowDelta(t *testing.T, name string, run func(cfg IBUConfig) ([]float64, int, error)) {
	t.Helper()
	const maxR = 16
	capped := func(r int) []float64 {
		th, it, err := run(IBUConfig{Delta: 1e-300, MaxIterations: r})
		if err != nil || it != r {
			t.Fatalf("%s: capped at %d: %d iterations, %v", name, r, it, err)
		}
		return append([]float64(nil), th...)
	}
	start := uniform(len(capped(1)))
	rough := []float64{0} // rough[r]: the change of update r
	prev := start
	for r := 1; r <= maxR+1; r++ {
		cur := capped(r)
		rough = append(rough, maxAbsDiff(cur, prev))
		prev = cur
	}
	const eps = 1e-7
	// below reports whether rough[r] is clearly below every earlier change.
	below := func(r int) bool {
		for s := 1; s < r; s++ {
			if rough[r]*(1+eps) >= rough[s] {
				return false
			}
		}
		return true
	}
	stopped := func(r int) []float64 {
		if r == 0 {
			return start
		}
		th, it, err := run(IBUConfig{Delta: rough[r] * (1 + eps), MaxIterations: 100})
		if err != nil || it != r {
			t.Fatalf("%s: delta just above the rough change of update %d: stopped after %d (%v)", name, r, it, err)
		}
		return append([]float64(nil), th...)
	}
	tested := 0
	for r := 2; r <= maxR; r++ {
		if !below(r) || !below(r-1) || rough[r+1] >= rough[r]*(1-eps) {
			continue
		}
		tested++
		d := maxAbsDiff(stopped(r), stopped(r-1))
		if _, it, err := run(IBUConfig{Delta: d, MaxIterations: 100}); err != nil || it != r+1 {
			t.Errorf("%s: delta = change of update %d (%v): stopped after %d (%v), want %d", name, r, d, it, err, r+1)
		}
		if _, it, err := run(IBUConfig{Delta: nextUp(d), MaxIterations: 100}); err != nil || it != r {
			t.Errorf("%s: delta just above the change of update %d: stopped after %d (%v), want %d", name, r, it, err, r)
		}
	}
	if tested == 0 {
		t.Fatalf("%s: no two successive updates whose changes are below every earlier one: %v", name, rough[1:])
	}
}

func nextUp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }

// TestIBUStopsStrictlyBelowDelta: the boundary of the stopping rule in
// every IBU path: dense IBU, GIBU over two batches, the factorised IBU on
// a small BA channel, and on a large one (FFT products) in the linear and
// the log domain.
func TestIBUStopsStrictlyBelowDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	g, _ := NewGrid(3, 4)
	ch := randChannel(rng, g, g, 0)
	q := randPrior(rng, g.Len(), 0)
	var ws IBUWorkspace
	checkIBUStopsStrictlyBelowDelta(t, "dense IBU", func(cfg IBUConfig) ([]float64, int, error) {
		return ws.IBU(nil, ch, q, nil, cfg)
	})
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	batches := []Batch{{ch, randPrior(rng, g.Len(), 0)}, {ch2, randPrior(rng, ch2.Out.Len(), 0)}}
	checkIBUStopsStrictlyBelowDelta(t, "GIBU", func(cfg IBUConfig) ([]float64, int, error) {
		return ws.GIBU(nil, batches, nil, cfg)
	})
	for _, tc := range []struct {
		rows, cols int
		beta       float64
		log        bool
	}{{5, 6, 0.9, false}, {32, 32, 2, false}, {32, 32, 40, true}} {
		gb, prior := randCity(t, rng, tc.rows, tc.cols, 0.2)
		var bw BAWorkspace
		b, err := bw.ba(gb, prior, BAConfig{Beta: tc.beta, Iterations: 5}, tc.log)
		if err != nil {
			t.Fatal(err)
		}
		qb := randPrior(rng, gb.Len(), 0)
		name := fmt.Sprintf("IBU on BA %v log=%v", gb, tc.log)
		t.Run(name, func(t *testing.T) {
			checkIBUStopsStrictlyBelowDelta(t, name, func(cfg IBUConfig) ([]float64, int, error) {
				return ws.IBUOnBA(nil, b, qb, nil, cfg)
			})
		})
	}
}

// TestIBUUniformFixedPoint: when the reports are exactly those the uniform
// input produces (q = u C), the uniform start is a fixed point of IBU
// (theta_1(x) = u(x) sum_y C[x,y] = u(x)), so convergence mode stops after
// one update, in every IBU path: the first change is measured from the
// uniform start itself.
func TestIBUUniformFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	const delta = 1e-9
	g, _ := NewGrid(3, 4)
	ch := randChannel(rng, g, g, 0.2)
	u := uniform(g.Len())
	q, err := Marginal(u, ch)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, est []float64, it int, err error) {
		t.Helper()
		if err != nil || it != 1 || maxAbsDiff(est, uniform(len(est))) > 1e-15 {
			t.Errorf("%s: %d updates (%v), estimate %.3g from uniform; want 1 update, uniform", name, it, err, maxAbsDiff(est, uniform(len(est))))
		}
	}
	est, it, err := IBU(ch, q, nil, IBUConfig{Delta: delta})
	check("dense IBU", est, it, err)
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	q2, err := Marginal(u, ch2)
	if err != nil {
		t.Fatal(err)
	}
	est, it, err = GIBU([]Batch{{ch, q}, {ch2, q2}}, nil, IBUConfig{Delta: delta})
	check("GIBU", est, it, err)
	for _, tc := range []struct {
		rows, cols int
		beta       float64
		log        bool
	}{{5, 6, 0.9, false}, {5, 6, 0.9, true}, {32, 32, 2, false}, {32, 32, 40, true}} {
		gb, prior := randCity(t, rng, tc.rows, tc.cols, 0.2)
		var bw BAWorkspace
		b, err := bw.ba(gb, prior, BAConfig{Beta: tc.beta, Iterations: 5}, tc.log)
		if err != nil {
			t.Fatal(err)
		}
		ub := uniform(gb.Len())
		qb := make([]float64, gb.Len())
		if err := b.ApplyT(qb, ub); err != nil {
			t.Fatal(err)
		}
		est, it, err := b.IBU(toDist(qb), nil, IBUConfig{Delta: delta})
		check(fmt.Sprintf("IBU on BA %v log=%v", gb, tc.log), est, it, err)
	}
}

// scaled returns v times s, a new slice.
func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = s * x
	}
	return out
}

// TestGIBUCountScale: GIBU depends on the counts only through their
// proportions (each is divided by the total N), so counts scaled by
// 1e300 or 1e-300 (totals near the ends of the float range, where any
// unnormalised ratio would overflow or underflow) give the estimate of the
// unscaled counts; one batch of counts n q gives IBU with q.
func TestGIBUCountScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	g, _ := NewGrid(3, 4)
	ch := randChannel(rng, g, g, 0.1)
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	q := randPrior(rng, g.Len(), 0.2)
	counts2 := scaled(randPrior(rng, ch2.Out.Len(), 0.2), 3)
	cfg := IBUConfig{Iterations: 12}
	want, _, err := IBU(ch, q, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want2, _, err := GIBU([]Batch{{ch, q}, {ch2, counts2}}, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1e300, 1e-300, 7} {
		got, _, err := GIBU([]Batch{{ch, scaled(q, s)}}, nil, cfg)
		if err != nil || maxAbsDiff(got, want) > 1e-14 {
			t.Errorf("one batch of counts %g q: differs from IBU with q by %.3g (%v)", s, maxAbsDiff(got, want), err)
		}
		got, _, err = GIBU([]Batch{{ch, scaled(q, s)}, {ch2, scaled(counts2, s)}}, nil, cfg)
		if err != nil || maxAbsDiff(got, want2) > 1e-14 {
			t.Errorf("two batches, counts scaled by %g: differ from the unscaled estimate by %.3g (%v)", s, maxAbsDiff(got, want2), err)
		}
	}
}

// TestIBUCarefulOnlyWhenNeeded: the log-domain careful step (O(|X||Y|)
// logarithms and exponentials) replaces an update only when some report
// with a positive count has probability den(y) < denTiny = 1e-290 under
// the estimate: not for ordinary channels, not for a zero-count report
// however improbable, not at den(y) = denTiny exactly, and always just
// below it.
func TestIBUCarefulOnlyWhenNeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	g, _ := NewGrid(3, 4)
	ordinary := randChannel(rng, g, g, 0.2)
	qo := randPrior(rng, g.Len(), 0.2)

	line2, line3 := Grid{Rows: 1, Cols: 2}, Grid{Rows: 1, Cols: 3}
	silent, _ := NewChannel(line2, line3) // output 2 is never reported
	copy(silent.P, []float64{0.5, 0.5, 1e-300, 0.3, 0.7, 0})
	qs := []float64{0.5, 0.5, 0}

	// From the uniform start, den(1) = 0.5*p + 0.5*0 = p/2 exactly.
	edge := func(p float64) *Channel {
		ch, _ := NewChannel(line2, line2)
		copy(ch.P, []float64{1, p, 1, 0}) // 1 + p rounds to 1
		return ch
	}
	qe := []float64{0.5, 0.5}
	for _, tc := range []struct {
		name string
		ch   *Channel
		q    []float64
		want int
	}{
		{"ordinary channel", ordinary, qo, 0},
		{"zero-count report of probability 5e-301", silent, qs, 0},
		{"den = denTiny", edge(2 * denTiny), qe, 0},
		{"den just below denTiny", edge(2 * math.Nextafter(denTiny, 0)), qe, 1},
	} {
		var ws IBUWorkspace
		its := 5
		if tc.want > 0 {
			its = 1 // only the first update starts from the uniform estimate
		}
		if _, _, err := ws.IBU(nil, tc.ch, tc.q, nil, IBUConfig{Iterations: its}); err != nil || ws.careful != tc.want {
			t.Errorf("IBU, %s: %d careful steps (%v), want %d", tc.name, ws.careful, err, tc.want)
		}
		batches := []Batch{{tc.ch, tc.q}, {tc.ch, scaled(tc.q, 3)}}
		if _, _, err := ws.GIBU(nil, batches, nil, IBUConfig{Iterations: its}); err != nil || ws.careful != tc.want {
			t.Errorf("GIBU, %s: %d careful steps (%v), want %d", tc.name, ws.careful, err, tc.want)
		}
	}
}

// TestGIBUCountScaleCareful: the careful step, too, depends on the counts
// only through their proportions: on a channel whose third output has
// probability 3e-301 under the start (every update careful), counts
// scaled by 1e300 or 1e-300 give the unscaled estimate.
func TestGIBUCountScaleCareful(t *testing.T) {
	ch, start, q, counts2 := carefulFixture()
	cfg := IBUConfig{Iterations: 2}
	var ws IBUWorkspace
	want, _, err := ws.GIBU(nil, []Batch{{ch, q}}, start, cfg)
	if err != nil || ws.careful == 0 {
		t.Fatalf("one batch: %d careful steps, %v", ws.careful, err)
	}
	want = append([]float64(nil), want...)
	want2, _, err := ws.GIBU(nil, []Batch{{ch, q}, {ch, counts2}}, start, cfg)
	if err != nil || ws.careful == 0 {
		t.Fatalf("two batches: %d careful steps, %v", ws.careful, err)
	}
	want2 = append([]float64(nil), want2...)
	for _, s := range []float64{1e300, 1e-300} {
		got, _, err := GIBU([]Batch{{ch, scaled(q, s)}}, start, cfg)
		if err != nil || maxAbsDiff(got, want) > 1e-14 {
			t.Errorf("one batch scaled by %g: differs by %.3g (%v)", s, maxAbsDiff(got, want), err)
		}
		got, _, err = GIBU([]Batch{{ch, scaled(q, s)}, {ch, scaled(counts2, s)}}, start, cfg)
		if err != nil || maxAbsDiff(got, want2) > 1e-14 {
			t.Errorf("two batches scaled by %g: differ by %.3g (%v)", s, maxAbsDiff(got, want2), err)
		}
	}
}

// TestIBUOnBAStarvedSilentOutput: on the 1x3 line with beta = 100 and the
// prior on the two ends, BA starves the middle output (c(1) shrinks by
// about 2e^-100 per iteration, to ~1e-260 after 7), and from a start
// with theta(1) = 0 its probability den(1) = c(1) (K a)(1) is ~1e-304,
// below denTiny. Nobody reporting it, the factorised IBU keeps its fast
// path: no allocation with a warm workspace. Reporting it sends the run to
// the materialised channel (which allocates) and its careful step, whose
// estimate is the definition's.
func TestIBUOnBAStarvedSilentOutput(t *testing.T) {
	line := Grid{Rows: 1, Cols: 3}
	b := mustBA(t, line, []float64{0.5, 0, 0.5}, BAConfig{Beta: 100, Iterations: 7})
	if b.logDomain || b.Marginal[1] > 1e-250 || b.Marginal[1] < 1e-300 {
		t.Fatalf("marginal %v (log domain %v): output 1 not starved in the linear domain", b.Marginal, b.logDomain)
	}
	start := []float64{0.5, 0, 0.5}
	var ws IBUWorkspace
	dst := make([]float64, 3)
	silent := []float64{0.5, 0, 0.5}
	if a := testing.AllocsPerRun(5, func() {
		if _, _, err := ws.IBUOnBA(dst, b, silent, start, IBUConfig{Iterations: 3}); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("silent starved output: %v allocations per warm call, want 0 (no fallback)", a)
	}
	reported := []float64{0.4, 0.2, 0.4}
	ch := b.Channel()
	got, _, err := ws.IBUOnBA(nil, b, reported, start, IBUConfig{Iterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := start
	for it := 0; it < 3; it++ {
		want = logGIBUStep([]Batch{{ch, reported}}, want)
	}
	if d := maxAbsDiff(got, want); d > 1e-14 {
		t.Errorf("reported starved output: estimate %v, definition %v", got, want)
	}
	if a := testing.AllocsPerRun(5, func() {
		if _, _, err := ws.IBUOnBA(dst, b, reported, start, IBUConfig{Iterations: 3}); err != nil {
			t.Fatal(err)
		}
	}); a == 0 {
		t.Errorf("reported starved output: no allocation, so no fallback to the materialised channel")
	}
}

// TestIBUOnePassPerUpdate: dense IBU reads the channel once for the first
// den and then once per update (the fused pass computes the next den
// while it finishes the estimate; the last update skips it), in both
// stopping modes; GIBU reads each batch's channel twice per update.
func TestIBUOnePassPerUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	g, _ := NewGrid(4, 5)
	ch := randChannel(rng, g, g, 0.2)
	q := randPrior(rng, g.Len(), 0.2)
	var ws IBUWorkspace
	for _, T := range []int{1, 2, 7} {
		if _, it, err := ws.IBU(nil, ch, q, nil, IBUConfig{Iterations: T}); err != nil || it != T || ws.passes != T+1 {
			t.Errorf("IBU, %d updates: %d passes (%d updates, %v), want %d", T, ws.passes, it, err, T+1)
		}
		if _, it, err := ws.IBU(nil, ch, q, nil, IBUConfig{Delta: 1e-300, MaxIterations: T}); err != nil || it != T || ws.passes != T+1 {
			t.Errorf("IBU capped at %d updates: %d passes (%d updates, %v), want %d", T, ws.passes, it, err, T+1)
		}
		batches := []Batch{{ch, q}, {ch, randPrior(rng, g.Len(), 0)}}
		if _, it, err := ws.GIBU(nil, batches, nil, IBUConfig{Iterations: T}); err != nil || it != T || ws.passes != 4*T {
			t.Errorf("GIBU, 2 batches, %d updates: %d passes (%v), want %d", T, ws.passes, err, 4*T)
		}
	}
	if _, it, err := ws.IBU(nil, ch, q, nil, IBUConfig{Delta: 1e-6}); err != nil || it < 2 || ws.passes != it+1 {
		t.Errorf("IBU to delta 1e-6: %d passes for %d updates (%v), want one more", ws.passes, it, err)
	}
}

// TestIBUOnBAImpossibleReportSkipped: on a large grid (FFT products), a
// report of an output the channel cannot produce (c(y) = 0, set here by
// hand, in the linear and the log domain) is skipped: the estimate is
// the one for the other reports alone, renormalised, as in exact
// arithmetic IBU conditioned on the explainable reports.
func TestIBUOnBAImpossibleReportSkipped(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	g, prior := randCity(t, rng, 32, 32, 0)
	const y0 = 40
	for _, forceLog := range []bool{false, true} {
		var bw BAWorkspace
		b, err := bw.ba(g, prior, BAConfig{Beta: 40, Iterations: 3}, forceLog)
		if err != nil {
			t.Fatal(err)
		}
		bb := *b
		bb.lazy = &baLazy{}
		bb.Marginal = append([]float64(nil), b.Marginal...)
		bb.Marginal[y0] = 0
		if forceLog {
			bb.logc = append([]float64(nil), b.logc...)
			bb.logc[y0] = math.Inf(-1)
		}
		q := randPrior(rng, g.Len(), 0)
		q[y0] = 0.3
		toDist(q)
		rest := append([]float64(nil), q...)
		rest[y0] = 0
		toDist(rest)
		// Nearly all reports impossible: the explainable ones carry 1e-250
		// of the mass (the update's unnormalised estimate sums to 1e-250).
		qt := make([]float64, g.Len())
		qt[y0], qt[y0+1] = 1, 1e-250
		restt := make([]float64, g.Len())
		restt[y0+1] = 1
		cfg := IBUConfig{Iterations: 4}
		var ws IBUWorkspace
		for _, tc := range []struct{ q, rest []float64 }{{q, rest}, {qt, restt}} {
			got, _, err := ws.IBUOnBA(nil, &bb, tc.q, nil, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got = append([]float64(nil), got...)
			want, _, err := ws.IBUOnBA(nil, &bb, tc.rest, nil, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(got, want); !(d <= 1e-12) {
				t.Errorf("log=%v, impossible report of mass %v: the estimate differs by %.3g from the one without it", forceLog, tc.q[y0], d)
			}
		}
	}
}

// TestIBURatiosDenTinyBoundary: the dense IBU (ratios) and the factorised
// one (ibuRatios, den = c .* kv) accept a report of probability den
// exactly when den >= denTiny, and ignore a report of count zero whatever
// its probability; the ratios are count/den and q/kv.
func TestIBURatiosDenTinyBoundary(t *testing.T) {
	for _, d := range []float64{0, math.Nextafter(denTiny, 0), denTiny, nextUp(denTiny), 1e-10, 1} {
		want := d >= denTiny
		r := []float64{-1}
		if ok := ratios(r, []float64{2}, []float64{d}, 0.5); ok != want || (d > 0 && r[0] != 1/d) {
			t.Errorf("ratios, den %g: ok %v, r %v; want %v, %v", d, ok, r[0], want, 1/d)
		}
		// den = c kv with kv = 4, c = d/4 (exact: a power of two).
		if ok := ibuRatios(r, []float64{0.5}, []float64{d / 4}, []float64{4}); ok != want || r[0] != 0.125 {
			t.Errorf("ibuRatios, den %g: ok %v, r %v; want %v, 0.125", d, ok, r[0], want)
		}
		if ok := ratios(r, []float64{0}, []float64{d}, 0.5); !ok || r[0] != 0 {
			t.Errorf("ratios, count 0, den %g: ok %v, r %v; want true, 0", d, ok, r[0])
		}
		if ok := ibuRatios(r, []float64{0}, []float64{d / 4}, []float64{4}); !ok || r[0] != 0 {
			t.Errorf("ibuRatios, q 0, den %g: ok %v, r %v; want true, 0", d, ok, r[0])
		}
	}
}

// TestIBUOnBAWorkspaceSwitchesChannels: a workspace reused across large
// BA channels (FFT products, whose call sites remember their near/far
// split between products) gives exactly what a fresh workspace gives, with
// the same work, when it switches channel (the sites learned on another
// kernel are dropped); called again on the same channel it keeps the split
// it learned, so it skips the full-kernel FFTs a fresh workspace starts
// with (beta = 8: the split has radius 1), and agrees with the fresh
// estimate to the products' rounding.
func TestIBUOnBAWorkspaceSwitchesChannels(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	g, prior := randCity(t, rng, 32, 33, 0.3)
	q := randPrior(rng, g.Len(), 0.3)
	var chans []*BAChannel
	for _, beta := range []float64{8, 3} {
		chans = append(chans, mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 4}))
	}
	cfg := IBUConfig{Iterations: 6}
	var ws IBUWorkspace
	prev := -1
	for i, k := range []int{0, 1, 0, 0, 1} {
		b := chans[k]
		ws.kw.stats = kprodStats{}
		got, _, err := ws.IBUOnBA(nil, b, q, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var fresh IBUWorkspace
		want, _, err := fresh.IBUOnBA(nil, b, q, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The same products up to their certified rounding when the split
		// differs (the repeated call), and exactly otherwise.
		tol := 0.0
		if k == prev {
			tol = 1e-12
		}
		if d := maxAbsDiff(got, want); d > tol {
			t.Errorf("call %d (beta %v): reused workspace differs from a fresh one by %g", i, b.Beta, d)
		}
		switch {
		case k != prev && ws.kw.stats != fresh.kw.stats:
			t.Errorf("call %d (beta %v), after another channel: work %+v, a fresh workspace's %+v", i, b.Beta, ws.kw.stats, fresh.kw.stats)
		case k == prev && (ws.kw.stats.full != 0 || fresh.kw.stats.full == 0):
			t.Errorf("call %d (beta %v), same channel again: %d entries by full-kernel FFT (fresh: %d), want 0", i, b.Beta, ws.kw.stats.full, fresh.kw.stats.full)
		}
		prev = k
	}
}
