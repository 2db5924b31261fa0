package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func entropy(p []float64) float64 {
	h := 0.0
	for _, v := range p {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMetricsIdentityAndUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	g, _ := NewGrid(3, 4)
	m := g.Len()
	prior := randPrior(rng, m, 0.25)
	id, _ := NewChannel(g, g)
	uni, _ := NewChannel(g, g)
	for x := 0; x < m; x++ {
		id.P[x*m+x] = 1
		for y := 0; y < m; y++ {
			uni.P[x*m+y] = 1 / float64(m)
		}
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if !near(got, want, 1e-12) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	mi, _ := MutualInformation(prior, id)
	check("MI(identity)", mi, entropy(prior))
	mi, _ = MutualInformation(prior, uni)
	check("MI(uniform)", mi, 0)
	d, _ := AvgDistortion(prior, id)
	check("AvgD(identity)", d, 0)
	// Uniform: every report equally likely, so the mean distance to all cells.
	want := 0.0
	for x, p := range prior {
		for y := 0; y < m; y++ {
			want += p * Dist(g, x, g, y) / float64(m)
		}
	}
	d, _ = AvgDistortion(prior, uni)
	check("AvgD(uniform)", d, want)
	be, _ := BayesError(prior, id)
	check("BayesError(identity)", be, 0)
	// Uniform: the posterior is the prior, the guess its distance median.
	want = math.Inf(1)
	for g2 := 0; g2 < m; g2++ {
		s := 0.0
		for x, p := range prior {
			s += p * Dist(g, x, g, g2)
		}
		want = min(want, s)
	}
	be, _ = BayesError(prior, uni)
	check("BayesError(uniform)", be, want)
	v, _ := BayesVulnerability(prior, id)
	check("vulnerability(identity)", v, 1)
	v, _ = BayesVulnerability(prior, uni)
	mx := 0.0
	for _, p := range prior {
		mx = max(mx, p)
	}
	check("vulnerability(uniform)", v, mx)
	s, _ := MinSingularValue(id)
	check("sigma_min(identity)", s, 1)
	s, _ = MinSingularValue(uni)
	check("sigma_min(uniform)", s, 0)

	post, err := Posterior(prior, id)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < m; y++ {
		for x, v := range post.Row(y) {
			w := 0.0
			switch {
			case prior[y] == 0:
				w = prior[x] // never reported: the prior
			case x == y:
				w = 1
			}
			if !near(v, w, 1e-15) {
				t.Fatalf("posterior(identity)[%d,%d] = %v, want %v", y, x, v, w)
			}
		}
	}
}

// TestMetricsBinary: the 2x2 symmetric channel with crossover e between
// two cells at distance 1.
func TestMetricsBinary(t *testing.T) {
	line := Grid{Rows: 1, Cols: 2}
	hb := func(p float64) float64 { return entropy([]float64{p, 1 - p}) }
	for _, a := range []float64{0.5, 0.3, 0.9} {
		for _, e := range []float64{0, 0.1, 0.25, 0.5, 0.8} {
			ch, _ := NewChannel(line, line)
			copy(ch.P, []float64{1 - e, e, e, 1 - e})
			prior := []float64{a, 1 - a}
			q0 := a*(1-e) + (1-a)*e
			mi, _ := MutualInformation(prior, ch)
			if want := hb(q0) - hb(e); !near(mi, want, 1e-14) {
				t.Errorf("a=%v e=%v: MI %v, want %v", a, e, mi, want)
			}
			d, _ := AvgDistortion(prior, ch)
			if !near(d, e, 1e-15) {
				t.Errorf("a=%v e=%v: AvgD %v, want %v", a, e, d, e)
			}
			s, _ := MinSingularValue(ch)
			if want := math.Abs(1 - 2*e); !near(s, want, 1e-14) {
				t.Errorf("e=%v: sigma_min %v, want %v", e, s, want)
			}
			post, _ := Posterior(prior, ch)
			if q0 > 0 && !near(post.P[0], a*(1-e)/q0, 1e-15) {
				t.Errorf("a=%v e=%v: P(x=0|y=0) = %v, want %v", a, e, post.P[0], a*(1-e)/q0)
			}
			// Report 0: guess 0 costs P(x=1, y=0) = (1-a)e, guess 1 costs a(1-e).
			want := min((1-a)*e, a*(1-e)) + min(a*e, (1-a)*(1-e))
			be, _ := BayesError(prior, ch)
			if !near(be, want, 1e-15) {
				t.Errorf("a=%v e=%v: BayesError %v, want %v", a, e, be, want)
			}
		}
	}
}

// TestBayesErrorBruteForce compares the stencil-based BayesError with the
// definition on random channels, including widened outputs.
func TestBayesErrorBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for trial := 0; trial < 8; trial++ {
		in, _ := NewGrid(1+rng.IntN(5), 1+rng.IntN(9))
		ch := randChannel(rng, in, in.Widen(rng.IntN(2)), 0.3)
		prior := randPrior(rng, in.Len(), 0.3)
		m, n := in.Len(), ch.Out.Len()
		want := 0.0
		for y := 0; y < n; y++ {
			best := math.Inf(1)
			for g := 0; g < m; g++ {
				s := 0.0
				for x := 0; x < m; x++ {
					s += prior[x] * ch.P[x*n+y] * Dist(in, x, in, g)
				}
				best = min(best, s)
			}
			want += best
		}
		got, err := BayesError(prior, ch)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, want, 1e-12*max(1, want)) {
			t.Errorf("%v: BayesError %v, brute force %v", in, got, want)
		}
	}
}

// TestBAInvertible: the paper's Theorem 4.1 (BA channels are invertible)
// on the Paris grid.
func TestBAInvertible(t *testing.T) {
	g, counts := loadCity(t, "paris")
	b := mustBA(t, g, cityPrior(counts), BAConfig{Beta: 1, Iterations: 10})
	s, err := MinSingularValue(b.Channel())
	if err != nil {
		t.Fatal(err)
	}
	if !(s > 1e-8) {
		t.Errorf("smallest singular value of the Paris BA channel = %v", s)
	}
}

func TestMetricsErrors(t *testing.T) {
	g, _ := NewGrid(2, 2)
	ch, _ := Laplace(g, g, 1)
	good := uniform(4)
	bad := &Channel{In: g, Out: g, P: append([]float64(nil), ch.P...)}
	bad.P[0] = -bad.P[0]
	type metric struct {
		name string
		f    func([]float64, *Channel) error
	}
	metrics := []metric{
		{"avg distortion", func(p []float64, c *Channel) error { _, err := AvgDistortion(p, c); return err }},
		{"mutual information", func(p []float64, c *Channel) error { _, err := MutualInformation(p, c); return err }},
		{"posterior", func(p []float64, c *Channel) error { _, err := Posterior(p, c); return err }},
		{"bayes error", func(p []float64, c *Channel) error { _, err := BayesError(p, c); return err }},
		{"bayes vulnerability", func(p []float64, c *Channel) error { _, err := BayesVulnerability(p, c); return err }},
		{"marginal", func(p []float64, c *Channel) error { _, err := Marginal(p, c); return err }},
	}
	for _, tc := range []struct {
		name  string
		prior []float64
		ch    *Channel
		want  string // after "<metric>: "
	}{
		{"short prior", good[:3], ch, "prior has 3 entries, want 4"},
		{"negative prior", []float64{1.5, -0.5, 0, 0}, ch, "prior[1] = -0.5: entries must be finite and >= 0"},
		{"prior not normalised", []float64{0.5, 0, 0, 0}, ch, "prior sums to 0.5, want 1"},
		{"nil channel", good, nil, "channel is nil"},
		{"bad channel", good, bad, fmt.Sprintf("channel[0,0] = %v: entries must be finite and >= 0", bad.P[0])},
	} {
		for _, m := range metrics {
			want := m.name + ": " + tc.want
			if err := m.f(tc.prior, tc.ch); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, %s: error %v, want one saying %q", m.name, tc.name, err, want)
			}
		}
	}
	if _, err := MinSingularValue(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("min singular value: channel[0,0] = %v", bad.P[0])) {
		t.Errorf("MinSingularValue of a bad channel: error %v", err)
	}
}

// TestDenseOnlyMetrics: the Bayes error, the posterior and the smallest
// singular value use a structured operator's dense form on a small grid
// (the same numbers as on the *Channel it materialises) and refuse a
// large operator with a one-line error saying why.
func TestDenseOnlyMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	g, prior := randCity(t, rng, 5, 6, 0.3)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.8, Iterations: 5})
	ch := b.Channel()
	for _, f := range []func(ChannelOp) (float64, error){
		func(op ChannelOp) (float64, error) { return BayesError(prior, op) },
		MinSingularValue,
		func(op ChannelOp) (float64, error) {
			post, err := Posterior(prior, op)
			if err != nil {
				return 0, err
			}
			return post.P[7], nil
		},
	} {
		got, err := f(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := f(ch)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || !(want > 0) {
			t.Errorf("on the BA channel %v, on its matrix %v", got, want)
		}
	}
	big, err := NewGrid(32, 32)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := NewRROp(big, 1)
	if err != nil {
		t.Fatal(err)
	}
	u := uniform(big.Len())
	_, errB := BayesError(u, rr)
	_, errS := MinSingularValue(rr)
	_, errP := Posterior(u, rr)
	for name, err := range map[string]error{"bayes error": errB, "min singular value": errS, "posterior": errP} {
		want := name + ": not available for *kernels.RROp on 32x32 -> 32x32: dense channels only (structured ones below 1024 cells)"
		if err == nil || err.Error() != want {
			t.Errorf("%s of a large operator: error %v, want %q", name, err, want)
		}
	}
}
