package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// plainIBU is IBU written from the definition with double loops; zero
// reports are skipped and the estimate renormalised, as documented.
func plainIBU(ch *Channel, q, start []float64, iters int) []float64 {
	m, n := ch.In.Len(), ch.Out.Len()
	theta := append([]float64(nil), start...)
	for it := 0; it < iters; it++ {
		next := make([]float64, m)
		for y := 0; y < n; y++ {
			den := 0.0
			for z := 0; z < m; z++ {
				den += theta[z] * ch.P[z*n+y]
			}
			if q[y] == 0 || den == 0 {
				continue
			}
			for x := 0; x < m; x++ {
				next[x] += theta[x] * q[y] * ch.P[x*n+y] / den
			}
		}
		theta = toDist(next)
	}
	return theta
}

func uniform(m int) []float64 {
	u := make([]float64, m)
	for i := range u {
		u[i] = 1 / float64(m)
	}
	return u
}

// randChannel returns a random row-stochastic channel; zero > 0 puts exact
// zeros in about that fraction of the entries (never a whole row).
func randChannel(rng *rand.Rand, in, out Grid, zero float64) *Channel {
	ch, _ := NewChannel(in, out)
	for x := 0; x < in.Len(); x++ {
		fillRandDist(rng, ch.Row(x), zero)
	}
	return ch
}

func maxRelDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		if a[i] != b[i] {
			d = max(d, math.Abs(a[i]-b[i])/math.Max(math.Abs(a[i]), math.Abs(b[i])))
		}
	}
	return d
}

func TestIBUMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	base, _ := NewGrid(5, 7)
	lap, _ := Laplace(base, base.Widen(2), 0.8)
	chans := map[string]*Channel{
		"laplace widened": lap,
		"random 35x13":    randChannel(rng, base, Grid{Rows: 1, Cols: 13}, 0),
		"random zeros":    randChannel(rng, base, Grid{Rows: 3, Cols: 3}, 0.5),
		"random 1 input":  randChannel(rng, Grid{Rows: 1, Cols: 1}, Grid{Rows: 2, Cols: 5}, 0),
	}
	for name, ch := range chans {
		q := randPrior(rng, ch.Out.Len(), 0.2)
		for _, start := range [][]float64{nil, randPrior(rng, ch.In.Len(), 0.3)} {
			got, iters, err := IBU(ch, q, start, IBUConfig{Iterations: 10})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s := start
			if s == nil {
				s = uniform(ch.In.Len())
			}
			want := plainIBU(ch, q, s, 10)
			if iters != 10 {
				t.Errorf("%s: %d iterations", name, iters)
			}
			if d := maxRelDiff(got, want); d > 1e-12 {
				t.Errorf("%s: relative difference to plain IBU %.3g", name, d)
			}
			for x, v := range s {
				if v == 0 && got[x] != 0 {
					t.Errorf("%s: cell %d left zero", name, x)
				}
			}
		}
	}
}

func logLikelihood(ch *Channel, q, theta []float64) float64 {
	m, n := ch.In.Len(), ch.Out.Len()
	ll := 0.0
	for y := 0; y < n; y++ {
		if q[y] == 0 {
			continue
		}
		den := 0.0
		for x := 0; x < m; x++ {
			den += theta[x] * ch.P[x*n+y]
		}
		ll += q[y] * math.Log(den)
	}
	return ll
}

func TestIBULogLikelihoodNonDecreasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	g, prior := randCity(t, rng, 6, 6, 0)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.8, Iterations: 10})
	lap, _ := Laplace(g, g.Widen(3), 1.1)
	for name, ch := range map[string]*Channel{"ba": b.Channel(), "laplace": lap, "random": randChannel(rng, g, g, 0.3)} {
		// Reports drawn by obfuscation: q is not exactly prior C.
		counts := make([]int, g.Len())
		for x, p := range prior {
			counts[x] = int(p * 5000)
		}
		rep, err := Obfuscate(rng, counts, ch)
		if err != nil {
			t.Fatal(err)
		}
		q := make([]float64, len(rep))
		tot := 0
		for _, v := range rep {
			tot += v
		}
		for y, v := range rep {
			q[y] = float64(v) / float64(tot)
		}
		theta := uniform(g.Len())
		prev := logLikelihood(ch, q, theta)
		for it := 0; it < 40; it++ {
			theta, _, err = IBU(ch, q, theta, IBUConfig{Iterations: 1})
			if err != nil {
				t.Fatal(err)
			}
			ll := logLikelihood(ch, q, theta)
			if ll < prev-1e-13*math.Abs(prev) {
				t.Fatalf("%s: log-likelihood fell from %v to %v at iteration %d", name, prev, ll, it+1)
			}
			prev = ll
		}
	}
}

func TestIBURecoversPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	g, _ := NewGrid(5, 5)
	prior := make([]float64, g.Len())
	for i := range prior {
		prior[i] = 0.2 + rng.Float64() // full support
	}
	toDist(prior)
	b := mustBA(t, g, prior, BAConfig{Beta: 1.5, Iterations: 10})
	lap, _ := Laplace(g, g.Widen(2), 1.5)
	for name, ch := range map[string]*Channel{"ba": b.Channel(), "laplace": lap} {
		q, _ := Marginal(prior, ch)
		est, iters, err := IBU(ch, q, nil, IBUConfig{Delta: 1e-14, MaxIterations: 200000})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(est, prior); d > 1e-6 {
			t.Errorf("%s: after %d iterations max |est - prior| = %v > 1e-6", name, iters, d)
		}
	}
}

func TestGIBU(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	g, _ := NewGrid(4, 5)
	ch1 := randChannel(rng, g, g.Widen(1), 0.2)
	ch2, _ := Laplace(g, g, 0.9)
	q := randPrior(rng, ch1.Out.Len(), 0.2)
	start := randPrior(rng, g.Len(), 0)
	cfg := IBUConfig{Iterations: 12}

	// One batch with counts n*q equals IBU with q.
	counts := make([]float64, len(q))
	for y, v := range q {
		counts[y] = 777 * v
	}
	ibu, _, err := IBU(ch1, q, start, cfg)
	if err != nil {
		t.Fatal(err)
	}
	one, _, err := GIBU([]Batch{{ch1, counts}}, start, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(one, ibu); d > 1e-12 {
		t.Errorf("GIBU with one batch differs from IBU by %.3g", d)
	}

	// Splitting one batch's counts into two batches of the same channel
	// changes nothing (the two-batch path runs separate passes).
	c1, c2 := make([]float64, len(counts)), make([]float64, len(counts))
	for y, v := range counts {
		f := rng.Float64()
		c1[y], c2[y] = f*v, (1-f)*v
	}
	split, _, err := GIBU([]Batch{{ch1, c1}, {ch1, c2}}, start, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(split, ibu); d > 1e-12 {
		t.Errorf("GIBU over a split batch differs from IBU by %.3g", d)
	}

	// Two different channels against the definition.
	cb := make([]float64, ch2.Out.Len())
	for y := range cb {
		cb[y] = float64(rng.IntN(50))
	}
	got, _, err := GIBU([]Batch{{ch1, counts}, {ch2, cb}}, start, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := plainGIBU([]Batch{{ch1, counts}, {ch2, cb}}, start, 12)
	if d := maxRelDiff(got, want); d > 1e-12 {
		t.Errorf("GIBU differs from the definition by %.3g", d)
	}
}

// plainGIBU is Definition 2.6 with double loops.
func plainGIBU(batches []Batch, start []float64, iters int) []float64 {
	theta := append([]float64(nil), start...)
	m := len(theta)
	total := 0.0
	for _, b := range batches {
		for _, v := range b.Counts {
			total += v
		}
	}
	for it := 0; it < iters; it++ {
		next := make([]float64, m)
		for _, b := range batches {
			ch := b.Channel.(*Channel)
			n := ch.Out.Len()
			for y := 0; y < n; y++ {
				den := 0.0
				for z := 0; z < m; z++ {
					den += theta[z] * ch.P[z*n+y]
				}
				if b.Counts[y] == 0 || den == 0 {
					continue
				}
				for x := 0; x < m; x++ {
					next[x] += b.Counts[y] / total * theta[x] * ch.P[x*n+y] / den
				}
			}
		}
		theta = toDist(next)
	}
	return theta
}

// TestIBUZeroOutputs: reports with zero probability, zero columns and a
// start that cannot produce some reports never give NaN.
func TestIBUZeroOutputs(t *testing.T) {
	in := Grid{Rows: 1, Cols: 3}
	out := Grid{Rows: 1, Cols: 4}
	ch, _ := NewChannel(in, out)
	copy(ch.P, []float64{
		0.5, 0.5, 0, 0,
		0, 0.5, 0.5, 0,
		0, 0, 1, 0, // column 3 is never produced
	})
	cases := []struct {
		name     string
		q, start []float64
		want     []float64 // nil: only finiteness
	}{
		{"q zero where channel zero", []float64{0.5, 0.5, 0, 0}, nil, nil},
		// Report 0 can only come from input 0, which the start excludes:
		// skipped, the estimate explains the rest.
		{"unexplained report skipped", []float64{0.5, 0.25, 0.25, 0}, []float64{0, 0.5, 0.5}, nil},
		// Input 0 alone explains report 0.
		{"point", []float64{1, 0, 0, 0}, nil, []float64{1, 0, 0}},
	}
	for _, tc := range cases {
		est, _, err := IBU(ch, tc.q, tc.start, IBUConfig{Iterations: 30})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s := 0.0
		for _, v := range est {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("%s: estimate %v", tc.name, est)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("%s: estimate sums to %v", tc.name, s)
		}
		if tc.start != nil && est[0] != 0 {
			t.Errorf("%s: zero start cell became %v", tc.name, est[0])
		}
		if tc.want != nil && maxAbsDiff(est, tc.want) > 1e-12 {
			t.Errorf("%s: estimate %v, want %v", tc.name, est, tc.want)
		}
	}
	// Nothing explainable: an error at the first update, not NaN (also
	// when that update is the last).
	for _, iters := range []int{1, 3} {
		_, it, err := IBU(ch, []float64{1, 0, 0, 0}, []float64{0, 0, 1}, IBUConfig{Iterations: iters})
		if err == nil || !strings.Contains(err.Error(), "ibu: no report can be produced by the current estimate") || it != 1 {
			t.Errorf("unexplainable reports, %d iterations: error %v after %d, want it after 1", iters, err, it)
		}
	}
	// Reports whose probability under the estimate is subnormal.
	tiny, _ := NewChannel(Grid{Rows: 1, Cols: 2}, Grid{Rows: 1, Cols: 2})
	copy(tiny.P, []float64{1, 0, 1 - 5e-324, 5e-324})
	est, _, err := IBU(tiny, []float64{0.5, 0.5}, []float64{1 - 5e-324, 5e-324}, IBUConfig{Iterations: 5})
	if err != nil || math.IsNaN(est[0]) || math.IsNaN(est[1]) {
		t.Errorf("subnormal den: %v, %v", est, err)
	}
}

func TestIBUWorkspaceAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	g, _ := NewGrid(8, 9)
	ch := randChannel(rng, g, g, 0)
	q := randPrior(rng, g.Len(), 0.1)
	var ws IBUWorkspace
	dst := make([]float64, g.Len())
	ibu := func(cfg IBUConfig) func() error {
		return func() error {
			_, _, err := ws.IBU(dst, ch, q, nil, cfg)
			return err
		}
	}
	batches := []Batch{{ch, q}, {ch, q}}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"IBU 10 iterations", ibu(IBUConfig{Iterations: 10})},
		{"IBU to delta 1e-300", ibu(IBUConfig{Delta: 1e-300, MaxIterations: 50})},
		{"GIBU", func() error {
			_, _, err := ws.GIBU(dst, batches, nil, IBUConfig{Iterations: 10})
			return err
		}},
	} {
		a := testing.AllocsPerRun(5, func() {
			if err := c.run(); err != nil {
				t.Fatal(err)
			}
		})
		if a != 0 {
			t.Errorf("%s: %v allocations per call with a warm workspace", c.name, a)
		}
	}
}

func TestIBUConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	g, _ := NewGrid(4, 4)
	ch := randChannel(rng, g, g, 0)
	q := randPrior(rng, g.Len(), 0)
	const delta = 1e-8
	est, iters, err := IBU(ch, q, nil, IBUConfig{Delta: delta})
	if err != nil {
		t.Fatal(err)
	}
	prev, _, _ := IBU(ch, q, nil, IBUConfig{Iterations: iters - 1})
	if d := maxAbsDiff(est, prev); d >= delta {
		t.Errorf("stopped after %d iterations with change %v >= %v", iters, d, delta)
	}
	if iters > 1 {
		prev2, _, _ := IBU(ch, q, nil, IBUConfig{Iterations: iters - 2})
		if d := maxAbsDiff(prev, prev2); d < delta {
			t.Errorf("change %v at iteration %d already below delta", d, iters-1)
		}
	}
	if _, iters, _ := IBU(ch, q, nil, IBUConfig{Delta: 1e-300, MaxIterations: 9}); iters != 9 {
		t.Errorf("capped run did %d iterations", iters)
	}
}

func TestIBUErrors(t *testing.T) {
	g, _ := NewGrid(2, 2)
	ch, _ := Laplace(g, g, 1)
	q := uniform(4)
	badCh := func(f func(c *Channel)) *Channel {
		c := &Channel{In: ch.In, Out: ch.Out, P: append([]float64(nil), ch.P...)}
		f(c)
		return c
	}
	cases := []struct {
		name     string
		ch       *Channel
		q, start []float64
		cfg      IBUConfig
		want     string
	}{
		{"nil channel", nil, q, nil, IBUConfig{Iterations: 1}, "ibu: channel is nil"},
		{"short q", ch, q[:3], nil, IBUConfig{Iterations: 1}, "ibu: report distribution q has 3 entries, want 4"},
		{"q not normalised", ch, []float64{0.5, 0.5, 0.5, 0}, nil, IBUConfig{Iterations: 1}, "ibu: report distribution q sums to 1.5, want 1"},
		{"q negative", ch, []float64{1.5, -0.5, 0, 0}, nil, IBUConfig{Iterations: 1}, "q[1] = -0.5: entries must be finite and >= 0"},
		{"q NaN", ch, []float64{math.NaN(), 0.5, 0.5, 0}, nil, IBUConfig{Iterations: 1}, "q[0] = NaN: entries must be finite and >= 0"},
		{"start short", ch, q, []float64{1}, IBUConfig{Iterations: 1}, "ibu: start has 1 entries, want 4"},
		{"start not normalised", ch, q, []float64{1, 1, 0, 0}, IBUConfig{Iterations: 1}, "ibu: start sums to 2, want 1"},
		{"iterations <0", ch, q, nil, IBUConfig{Iterations: -1}, "ibu: iterations = -1: must be >= 0"},
		{"delta 0", ch, q, nil, IBUConfig{}, "ibu: convergence mode (iterations = 0): delta = 0: must be finite and > 0"},
		{"delta Inf", ch, q, nil, IBUConfig{Delta: math.Inf(1)}, "delta = +Inf: must be finite and > 0"},
		{"max iterations <0", ch, q, nil, IBUConfig{Delta: 1e-3, MaxIterations: -1}, "ibu: max iterations = -1: must be >= 0"},
		{"channel size", badCh(func(c *Channel) { c.P = c.P[:15] }), q, nil, IBUConfig{Iterations: 1}, "ibu: channel 2x2 -> 2x2 has 15 entries, want 16"},
		{"channel NaN", badCh(func(c *Channel) { c.P[5] = math.NaN() }), q, nil, IBUConfig{Iterations: 1}, "ibu: batch 0: channel row 1 is not a distribution"},
		{"channel Inf", badCh(func(c *Channel) { c.P[5] = math.Inf(1) }), q, nil, IBUConfig{Iterations: 1}, "channel row 1 is not a distribution"},
		{"channel negative", badCh(func(c *Channel) { c.P[4] += c.P[5] + 0.1; c.P[5] = -0.1 }), q, nil, IBUConfig{Iterations: 1}, "channel row 1 is not a distribution"},
		{"channel row sum", badCh(func(c *Channel) { c.P[0] += 0.01 }), q, nil, IBUConfig{Iterations: 1}, "channel row 0 is not a distribution (entries finite and >= 0, sum 1 within 4e-09)"},
		{"channel grid", badCh(func(c *Channel) { c.In.Rows = 0 }), q, nil, IBUConfig{Iterations: 1}, "ibu: channel input grid 0x2: rows and cols must be > 0"},
		{"channel output grid", badCh(func(c *Channel) { c.Out.Cols = -1 }), q[:0], nil, IBUConfig{Iterations: 1}, "channel output grid 2x-1: rows and cols must be > 0"},
	}
	for _, tc := range cases {
		if _, _, err := IBU(tc.ch, tc.q, tc.start, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	other, _ := Laplace(Grid{Rows: 1, Cols: 3}, g, 1)
	gcases := []struct {
		name    string
		batches []Batch
		want    string
	}{
		{"no batches", nil, "gibu: no batches"},
		{"input mismatch", []Batch{{ch, q}, {other, q}}, "gibu: batch 1: channel input 1x3 differs from batch 0's 2x2"},
		{"counts zero", []Batch{{ch, []float64{0, 0, 0, 0}}}, "gibu: batch 0: counts: total 0 must be finite and > 0"},
		{"counts negative", []Batch{{ch, []float64{1, -1, 0, 0}}}, "gibu: batch 0: counts[1] = -1: entries must be finite and >= 0"},
		{"counts short", []Batch{{ch, []float64{1, 1}}}, "gibu: batch 0: counts has 2 entries, want 4"},
		{"counts Inf", []Batch{{ch, []float64{1, math.Inf(1), 0, 0}}}, "counts[1] = +Inf: entries must be finite and >= 0"},
		{"counts overflow", []Batch{{ch, []float64{math.MaxFloat64, 0, 0, 0}}, {ch, []float64{math.MaxFloat64, 0, 0, 0}}}, "gibu: total count overflows"},
		{"nil channel", []Batch{{nil, q}}, "gibu: batch 0: channel is nil"},
		{"bad row", []Batch{{ch, q}, {badCh(func(c *Channel) { c.P[15] = 2 }), q}}, "gibu: batch 1: channel row 3 is not a distribution"},
	}
	for _, tc := range gcases {
		if _, _, err := GIBU(tc.batches, nil, IBUConfig{Iterations: 1}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GIBU %s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// compareIBUFactorised compares the factorised IBU of b with dense IBU on its
// materialised channel ch, from start on reports q, for 10 iterations and
// to delta 1e-9 (at most maxIter iterations): estimates within tol, and
// the same count of iterations for the fixed count.
func compareIBUFactorised(t *testing.T, what string, b *BAChannel, ch *Channel, q, start []float64, maxIter int, tol float64) {
	t.Helper()
	for _, cfg := range []IBUConfig{{Iterations: 10}, {Delta: 1e-9, MaxIterations: maxIter}} {
		want, wi, err := IBU(ch, q, start, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, gi, err := IBU(b.Factorised(), q, start, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(got, want); d > tol || (cfg.Iterations > 0 && gi != wi) {
			t.Errorf("%s %+v: factorised and dense IBU differ by %.3g (%d vs %d iterations)", what, cfg, d, gi, wi)
		}
	}
}

// TestIBUFactorised: the factorised IBU equals dense IBU on the materialised
// channel, in both stopping modes, and falls back for log-domain channels.
func TestIBUFactorised(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	for _, sz := range [][2]int{{1, 1}, {5, 5}, {7, 4}, {11, 15}} {
		g, prior := randCity(t, rng, sz[0], sz[1], 0.3)
		for _, beta := range []float64{0.3, 2, 60} {
			b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 6})
			ch := b.Channel()
			q, _ := Marginal(prior, ch)
			q2 := randPrior(rng, g.Len(), 0.4)
			for _, qq := range [][]float64{q, q2} {
				compareIBUFactorised(t, fmt.Sprintf("%v beta=%v", g, beta), b, ch, qq, nil, 500, 1e-12)
			}
		}
	}
	for _, op := range []ChannelOp{(*BAChannel)(nil), (*BAChannel)(nil).Factorised(), &BAChannel{}} {
		if _, _, err := IBU(op, nil, nil, IBUConfig{Iterations: 1}); err == nil || !strings.Contains(err.Error(), "ibu: BA channel is nil or not built by BA") {
			t.Errorf("%#v: error %v", op, err)
		}
	}
}

// TestIBUUnderflow: a report whose probability under the estimate
// underflows (theta(1) C[1,1] = 1e-400) must still pull mass to the only
// input that explains it, as in exact arithmetic.
func TestIBUUnderflow(t *testing.T) {
	line := Grid{Rows: 1, Cols: 2}
	ch, _ := NewChannel(line, line)
	copy(ch.P, []float64{1, 0, 1 - 1e-100, 1e-100})
	q := []float64{0.5, 0.5}
	start := []float64{1, 1e-300}
	// Exact first update: report 1 comes only from input 1, so half the
	// mass moves there; report 0 splits in proportion theta(x) C[x,0].
	d0 := start[0]*ch.P[0] + start[1]*ch.P[2]
	want1 := 0.5*start[1]*ch.P[2]/d0 + 0.5
	for _, batches := range [][]Batch{{{ch, q}}, {{ch, []float64{1, 0}}, {ch, []float64{0, 1}}}} {
		est, _, err := GIBU(batches, start, IBUConfig{Iterations: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !near(est[1], want1, 1e-15) || !near(est[0]+est[1], 1, 1e-15) {
			t.Errorf("%d batches: estimate %v, want [%v %v]", len(batches), est, 1-want1, want1)
		}
	}
	// Subnormal report mass: the only explainable report carries 4e-320.
	ch2, _ := NewChannel(Grid{Rows: 1, Cols: 1}, line)
	copy(ch2.P, []float64{1, 0})
	est, _, err := IBU(ch2, []float64{4e-320, 1}, nil, IBUConfig{Iterations: 3})
	if err != nil || est[0] != 1 {
		t.Errorf("subnormal report mass: %v, %v", est, err)
	}
}

// logGIBUStep is one GIBU update from the definition (the paper's
// Definition 2.6), in log-sum-exp form so that reports whose probability
// underflows are handled exactly: theta'(x) = (1/N) sum_t sum_y
// counts_t(y) theta(x) C_t[x,y] / sum_z theta(z) C_t[z,y], renormalised.
func logGIBUStep(batches []Batch, theta []float64) []float64 {
	next := make([]float64, len(theta))
	for _, b := range batches {
		ch := b.Channel.(*Channel)
		n := ch.Out.Len()
		for y := 0; y < n; y++ {
			if b.Counts[y] == 0 {
				continue
			}
			// ln den = log-sum-exp of ln theta(z) + ln C[z,y].
			mx := math.Inf(-1)
			for z, th := range theta {
				if c := ch.P[z*n+y]; c > 0 && th > 0 {
					mx = max(mx, math.Log(th)+math.Log(c))
				}
			}
			if math.IsInf(mx, -1) {
				continue
			}
			s := 0.0
			for z, th := range theta {
				if c := ch.P[z*n+y]; c > 0 && th > 0 {
					s += math.Exp(math.Log(th) + math.Log(c) - mx)
				}
			}
			lden := mx + math.Log(s)
			for x, th := range theta {
				if c := ch.P[x*n+y]; c > 0 && th > 0 {
					next[x] += b.Counts[y] * math.Exp(math.Log(th)+math.Log(c)-lden)
				}
			}
		}
	}
	return toDist(next)
}

// carefulFixture is a 3-cell channel whose third output has probability
// 3e-301 under start, so every IBU update from start takes the careful
// step, with reports q and a second batch's counts.
func carefulFixture() (ch *Channel, start, q, counts2 []float64) {
	line := Grid{Rows: 1, Cols: 3}
	ch, _ = NewChannel(line, line)
	copy(ch.P, []float64{
		0.7, 0.3, 0,
		0.2, 0.8 - 1e-300, 1e-300,
		0.5, 0.5, 0,
	})
	return ch, []float64{0.5, 0.3, 0.2}, []float64{0.25, 0.5, 0.25}, []float64{3, 1, 2}
}

// TestIBUCarefulStep: when a reported output is nearly impossible under
// the estimate (its probability below 1e-290), IBU and GIBU take a
// log-domain step; with several reports of very different probabilities
// the result must still be the definition's, checked over three updates.
func TestIBUCarefulStep(t *testing.T) {
	ch, start, q, counts2 := carefulFixture()
	for _, tc := range []struct {
		name    string
		batches []Batch
	}{
		{"one batch", []Batch{{ch, q}}},
		{"two batches", []Batch{{ch, q}, {ch, counts2}}},
	} {
		want := start
		for it := 1; it <= 3; it++ {
			want = logGIBUStep(tc.batches, want)
			got, _, err := GIBU(tc.batches, start, IBUConfig{Iterations: it})
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(got, want); d > 1e-14 {
				t.Errorf("%s, %d updates: %v, definition %v", tc.name, it, got, want)
			}
		}
	}
}

// TestGIBUConvergence: with several batches, convergence mode stops at
// the first update whose largest change is below delta, and a run in
// which no report can be explained is an error.
func TestGIBUConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	g, _ := NewGrid(3, 4)
	ch1 := randChannel(rng, g, g, 0)
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	batches := []Batch{{ch1, randPrior(rng, g.Len(), 0)}, {ch2, randPrior(rng, ch2.Out.Len(), 0)}}
	const delta = 1e-7
	est, iters, err := GIBU(batches, nil, IBUConfig{Delta: delta})
	if err != nil {
		t.Fatal(err)
	}
	theta, prev := uniform(g.Len()), []float64(nil)
	want := 0
	for it := 1; it <= 10000; it++ {
		prev, theta = theta, logGIBUStep(batches, theta)
		if maxAbsDiff(theta, prev) < delta {
			want = it
			break
		}
	}
	if iters != want || maxAbsDiff(est, theta) > 1e-12 {
		t.Errorf("stopped after %d updates, definition after %d; estimates differ by %.3g", iters, want, maxAbsDiff(est, theta))
	}
	// Nothing explainable: each batch reports only outputs that no input
	// with positive mass can produce.
	line := Grid{Rows: 1, Cols: 2}
	id, _ := NewChannel(line, line)
	copy(id.P, []float64{1, 0, 0, 1})
	for _, cfg := range []IBUConfig{{Iterations: 1}, {Iterations: 2}, {Delta: 1e-9}} {
		_, it, err := GIBU([]Batch{{id, []float64{0, 1}}, {id, []float64{0, 2}}}, []float64{1, 0}, cfg)
		if err == nil || !strings.Contains(err.Error(), "gibu: no report can be produced by the current estimate") || it != 1 {
			t.Errorf("%+v: unexplainable reports: error %v after %d updates, want it after 1", cfg, err, it)
		}
	}
}

// TestIBUFactorisedAllocs: the factorised IBU allocates nothing once its
// workspace is warm (it never materialises the channel on the way).
func TestIBUFactorisedAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	g, prior := randCity(t, rng, 7, 9, 0.2)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.9, Iterations: 5})
	q := randPrior(rng, g.Len(), 0.3)
	var ws IBUWorkspace
	dst := make([]float64, g.Len())
	for _, cfg := range []IBUConfig{{Iterations: 8}, {Delta: 1e-300, MaxIterations: 20}} {
		if a := testing.AllocsPerRun(5, func() {
			if _, _, err := ws.IBU(dst, b.Factorised(), q, nil, cfg); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%+v: %v allocations per call with a warm workspace", cfg, a)
		}
	}
}

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
				return ws.IBU(nil, b.Factorised(), qb, nil, cfg)
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
		est, it, err := IBU(b.Factorised(), toDist(qb), nil, IBUConfig{Delta: delta})
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

// TestIBUFactorisedStarvedSilentOutput: on the 1x3 line with beta = 100 and the
// prior on the two ends, BA starves the middle output (c(1) shrinks by
// about 2e^-100 per iteration, to ~1e-260 after 7), and from a start
// with theta(1) = 0 its probability den(1) = c(1) (K a)(1) is ~1e-304,
// below denTiny. Nobody reporting it, the factorised IBU keeps its fast
// path: no allocation with a warm workspace. Reporting it sends the run to
// the materialised channel (which allocates) and its careful step, whose
// estimate is the definition's.
func TestIBUFactorisedStarvedSilentOutput(t *testing.T) {
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
		if _, _, err := ws.IBU(dst, b.Factorised(), silent, start, IBUConfig{Iterations: 3}); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("silent starved output: %v allocations per warm call, want 0 (no fallback)", a)
	}
	reported := []float64{0.4, 0.2, 0.4}
	ch := b.Channel()
	got, _, err := ws.IBU(nil, b.Factorised(), reported, start, IBUConfig{Iterations: 3})
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
		if _, _, err := ws.IBU(dst, b.Factorised(), reported, start, IBUConfig{Iterations: 3}); err != nil {
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

// TestIBUFactorisedImpossibleReportSkipped: on a large grid (FFT products), a
// report of an output the channel cannot produce (c(y) = 0, set here by
// hand, in the linear and the log domain) is skipped: the estimate is
// the one for the other reports alone, renormalised, as in exact
// arithmetic IBU conditioned on the explainable reports.
func TestIBUFactorisedImpossibleReportSkipped(t *testing.T) {
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
			got, _, err := ws.IBU(nil, bb.Factorised(), tc.q, nil, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got = append([]float64(nil), got...)
			want, _, err := ws.IBU(nil, bb.Factorised(), tc.rest, nil, cfg)
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

// TestIBUFactorisedWorkspaceSwitchesChannels: a workspace reused across large
// BA channels (FFT products, whose call sites remember their near/far
// split between products) gives exactly what a fresh workspace gives, with
// the same work, when it switches channel (the sites learned on another
// kernel are dropped); called again on the same channel it keeps the split
// it learned, so it skips the full-kernel FFTs a fresh workspace starts
// with (beta = 8: the split has radius 1), and agrees with the fresh
// estimate to the products' rounding.
func TestIBUFactorisedWorkspaceSwitchesChannels(t *testing.T) {
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
		got, _, err := ws.IBU(nil, b.Factorised(), q, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var fresh IBUWorkspace
		want, _, err := fresh.IBU(nil, b.Factorised(), q, nil, cfg)
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
