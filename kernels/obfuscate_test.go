package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func binomialPMF(n, k int, p float64) float64 {
	if p == 0 {
		if k == 0 {
			return 1
		}
		return 0
	}
	if p == 1 {
		if k == n {
			return 1
		}
		return 0
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// categoryBins bins the outputs 0..len(prob)-1 of a categorical law into
// about nbins runs of equal probability (outputs of small or zero
// probability are merged with their neighbours).
func categoryBins(prob []float64, nbins int) eqBins {
	return newEqBins(prob, 0, nbins)
}

// binnedStat is Pearson's statistic of per-output counts against the
// binned law, for n draws in all.
func (b eqBins) binnedStat(counts []float64, n float64) float64 {
	obs := make([]float64, len(b.prob))
	for y, c := range counts {
		obs[b.index(y)] += c
	}
	return pearsonStat(obs, b.prob, n)
}

// excess is the noncentrality of Pearson's statistic for n draws from the
// law alt (per output) against the binned law: n sum_b (alt_b - p_b)^2 / p_b.
func (b eqBins) excess(alt []float64, n float64) float64 {
	a := make([]float64, len(b.prob))
	for y, v := range alt {
		a[b.index(y)] += v
	}
	s := 0.0
	for i, p := range b.prob {
		s += (a[i] - p) * (a[i] - p) / p
	}
	return n * s
}

// rotated is the negative control of the obfuscation tests: the channel
// (1-eps) C + eps C', where C' takes each row's mass one output further
// along (cyclically). It is a valid channel, wrong by eps.
func rotated(ch *Channel, eps float64) *Channel {
	out := &Channel{In: ch.In, Out: ch.Out, P: make([]float64, len(ch.P))}
	n := ch.Out.Len()
	for x := 0; x < ch.In.Len(); x++ {
		row, o := ch.Row(x), out.Row(x)
		for y, v := range row {
			o[y] += (1 - eps) * v
			o[(y+1)%n] += eps * v
		}
	}
	return out
}

// reportLaw is the distribution of one report when the check-ins are
// counts: sum_x counts[x] C[x,:] / sum counts.
func reportLaw(counts []int, ch *Channel) []float64 {
	law := make([]float64, ch.Out.Len())
	total := 0
	for x, k := range counts {
		total += k
		for y, v := range ch.Row(x) {
			law[y] += float64(k) * v
		}
	}
	for y := range law {
		law[y] /= float64(total)
	}
	return law
}

// controlEps returns the eps of rotated(ch, eps) whose aggregated reports
// give Pearson's statistic the excess controlNoncentrality (the excess
// grows as eps^2).
func controlEps(b eqBins, counts []int, ch *Channel, n float64) float64 {
	return math.Sqrt(controlNoncentrality / b.excess(reportLaw(counts, rotated(ch, 1)), n))
}

// TestObfuscateDistribution: the aggregated report counts of many source
// cells against their law sum_x counts[x] C[x,:], once with counts that
// take the categorical path and once with counts that take the binomial
// path. The sum of independent multinomials has a covariance no larger
// than one multinomial's, so the chi-square quantile is conservative here.
func TestObfuscateDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	g, prior := randCity(t, rng, 6, 7, 0.2)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.7, Iterations: 10})
	lap, _ := Laplace(g, g.Widen(2), 0.9)
	for _, tc := range []struct {
		name string
		ch   *Channel
	}{{"ba", b.Channel()}, {"laplace widened", lap}} {
		n := tc.ch.Out.Len()
		for _, scale := range []float64{0.5 * categoricalFactor, 8 * categoricalFactor} {
			counts := make([]int, g.Len())
			total := 0
			for x, p := range prior {
				if p > 0 {
					counts[x] = int(scale*float64(n)*(0.5+rng.Float64())) + 1
				}
				total += counts[x]
			}
			law := reportLaw(counts, tc.ch)
			bins := categoryBins(law, n)
			crit := chiSquareCritical(len(bins.prob))
			draw := func(ch *Channel) []float64 {
				rep, err := Obfuscate(rng, counts, ch)
				if err != nil {
					t.Fatal(err)
				}
				obs := make([]float64, n)
				got := 0
				for y, v := range rep {
					obs[y] = float64(v)
					got += v
				}
				if got != total {
					t.Fatalf("%s: %d reports for %d check-ins", tc.name, got, total)
				}
				return obs
			}
			obs := draw(tc.ch)
			for y := range law {
				if law[y] == 0 && obs[y] != 0 {
					t.Fatalf("%s: %v reports of an impossible output %d", tc.name, obs[y], y)
				}
			}
			if s := bins.binnedStat(obs, float64(total)); s > crit {
				t.Errorf("%s, %d check-ins: chi-square %.1f > %.1f (%d bins)", tc.name, total, s, crit, len(bins.prob))
			}
			eps := controlEps(bins, counts, tc.ch, float64(total))
			if s := bins.binnedStat(draw(rotated(tc.ch, eps)), float64(total)); s <= crit {
				t.Errorf("%s, %d check-ins: negative control (a channel %.3g away): chi-square %.1f <= %.1f", tc.name, total, eps, s, crit)
			}
		}
	}
}

// TestObfuscateSingleSource: with one occupied cell the reports are one
// multinomial. Over many repetitions the count of one output must be
// Binomial(k, C[x,y]), and the pooled reports Multinomial(reps*k, C[x,:]).
// The negative controls use a channel whose probability of that output is
// off by a few percent.
func TestObfuscateSingleSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	g, _ := NewGrid(5, 5)
	ch, _ := Laplace(g, g, 0.6)
	n := ch.Out.Len()
	const x, y, reps = 12, 13, 3000       // centre cell and its east neighbour
	for _, k := range []int{20, 40 * n} { // categorical path, binomial path
		counts := make([]int, g.Len())
		counts[x] = k
		p := ch.Row(x)[y]
		pmf := make([]float64, k+1)
		for j := range pmf {
			pmf[j] = binomialPMF(k, j, p)
		}
		marg := newEqBins(pmf, 0, 30)
		pooled := categoryBins(ch.Row(x), n)
		mcrit, pcrit := chiSquareCritical(len(marg.prob)), chiSquareCritical(len(pooled.prob))
		// run returns the statistics of the marginal and the pooled reports.
		run := func(c *Channel) (float64, float64) {
			hist := make([]float64, k+1)
			pool := make([]float64, n)
			for range reps {
				rep, err := Obfuscate(rng, counts, c)
				if err != nil {
					t.Fatal(err)
				}
				hist[rep[y]]++
				for j, v := range rep {
					pool[j] += float64(v)
				}
			}
			return marg.binnedStat(hist, reps), pooled.binnedStat(pool, float64(reps*k))
		}
		ms, ps := run(ch)
		if ms > mcrit {
			t.Errorf("k=%d: marginal of output %d: chi-square %.1f > %.1f (%d bins)", k, y, ms, mcrit, len(marg.prob))
		}
		if ps > pcrit {
			t.Errorf("k=%d: pooled reports: chi-square %.1f > %.1f (%d bins)", k, ps, pcrit, len(pooled.prob))
		}
		// Control: move a fraction eps of row x's mass at y to y+1, with
		// eps set for the expected excess controlNoncentrality on the
		// marginal (found by bisection; the excess grows with eps).
		moved := func(eps float64) *Channel {
			c := &Channel{In: ch.In, Out: ch.Out, P: append([]float64(nil), ch.P...)}
			c.Row(x)[y] -= eps * p
			c.Row(x)[y+1] += eps * p
			return c
		}
		margExcess := func(eps float64) float64 {
			q := p * (1 - eps)
			alt := make([]float64, k+1)
			for j := range alt {
				alt[j] = binomialPMF(k, j, q)
			}
			return marg.excess(alt, reps)
		}
		lo, hi := 0.0, 1.0
		for range 60 {
			if mid := (lo + hi) / 2; margExcess(mid) < controlNoncentrality {
				lo = mid
			} else {
				hi = mid
			}
		}
		ms, ps = run(moved(hi))
		if ms <= mcrit {
			t.Errorf("k=%d: negative control (C[x,y] %.3g lower): marginal chi-square %.1f <= %.1f", k, hi, ms, mcrit)
		}
		t.Logf("k=%d: control moves %.3g of C[x,y]; its pooled chi-square %.1f (critical %.1f)", k, hi, ps, pcrit)
	}
}

// TestObfuscateSteepRows: rows whose conditional probabilities, taken in
// output order as the sequential binomials take them, come close to 1
// before the row's last output: row x puts 1/2 on output 3x, c_x/2 on
// 3x+1 and (1-c_x)/2 on 3x+2, so that the second binomial has probability
// c_x and output 3x+2 still expects k (1-c_x)/2 reports. An
// implementation that treats a conditional probability near 1 as 1 gives
// that output nothing.
func TestObfuscateSteepRows(t *testing.T) {
	cs := []float64{0.5, 0.9, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995, 0.999, 0.9999, 0.99999}
	m := len(cs)
	in, _ := NewGrid(1, m)
	out, _ := NewGrid(1, 3*m)
	ch, _ := NewChannel(in, out)
	for x, c := range cs {
		row := ch.Row(x)
		row[3*x], row[3*x+1], row[3*x+2] = 0.5, c/2, (1-c)/2
	}
	const k, reps = 10_000_000, 4 // binomial path; output 3x+2 expects >= 500 per draw
	counts := make([]int, m)
	for x := range counts {
		counts[x] = k
	}
	// Each source's three outputs are a multinomial of its own: Pearson's
	// statistic summed over the sources has 2m degrees of freedom.
	rng := rand.New(rand.NewPCG(67, 68))
	stat := func(c *Channel) float64 {
		s := 0.0
		for range reps {
			rep, err := Obfuscate(rng, counts, c)
			if err != nil {
				t.Fatal(err)
			}
			for x := range cs {
				for j := 3 * x; j < 3*x+3; j++ {
					e := k * ch.Row(x)[j]
					s += (float64(rep[j]) - e) * (float64(rep[j]) - e) / e
				}
			}
		}
		return s
	}
	crit := distuv.ChiSquared{K: float64(2 * m * reps)}.Quantile(1 - gofAlpha)
	s := stat(ch)
	if s > crit {
		t.Errorf("chi-square %.1f > %.1f (%d degrees of freedom)", s, crit, 2*m*reps)
	}
	// Control: each row's last output loses a fraction eps of its mass to
	// the middle one; eps gives the excess controlNoncentrality (for
	// source x it is reps k eps^2 d^2 (1/d + 1/b), d and b the last and
	// middle probabilities).
	per := 0.0
	for _, c := range cs {
		d, b := (1-c)/2, c/2
		per += reps * k * d * d * (1/d + 1/b)
	}
	eps := math.Sqrt(controlNoncentrality / per)
	ctl := &Channel{In: ch.In, Out: ch.Out, P: append([]float64(nil), ch.P...)}
	for x, c := range cs {
		ctl.Row(x)[3*x+1] += eps * (1 - c) / 2
		ctl.Row(x)[3*x+2] -= eps * (1 - c) / 2
	}
	sc := stat(ctl)
	if sc <= crit {
		t.Errorf("negative control (last outputs %.3g lower): chi-square %.1f <= %.1f", eps, sc, crit)
	}
	t.Logf("chi-square %.1f, negative control (last outputs %.3g lower) %.1f, critical %.1f", s, eps, sc, crit)
}

// TestObfuscateZeroOutputs: outputs of probability 0 (at the start, the
// middle and the end of a row) never get a report, on either path, and
// every check-in is reported once.
func TestObfuscateZeroOutputs(t *testing.T) {
	in, out := Grid{Rows: 1, Cols: 3}, Grid{Rows: 1, Cols: 7}
	ch, _ := NewChannel(in, out)
	copy(ch.Row(0), []float64{0, 0.3, 0, 0.7, 0, 0, 0})
	copy(ch.Row(1), []float64{0.5, 0, 0, 0, 0, 0, 0.5})
	copy(ch.Row(2), []float64{0, 0, 0, 0, 0, 1, 0})
	rng := rand.New(rand.NewPCG(69, 70))
	for _, k := range []int{1, 3, 20, 27, 28, 500} { // categorical below 4*7 = 28, binomial from there
		counts := []int{k, k, k}
		for range 200 {
			rep, err := Obfuscate(rng, counts, ch)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for y, v := range rep {
				total += v
				if possible := ch.Row(0)[y] + ch.Row(1)[y] + ch.Row(2)[y]; possible == 0 && v != 0 {
					t.Fatalf("k=%d: %d reports of output %d, which no input can produce: %v", k, v, y, rep)
				}
			}
			if total != 3*k || rep[5] != k {
				t.Fatalf("k=%d: reports %v; want %d in all and %d at output 5 (row 2's only output)", k, rep, 3*k, k)
			}
		}
	}
}

func TestObfuscateDeterministic(t *testing.T) {
	g, _ := NewGrid(4, 4)
	ch, _ := Laplace(g, g, 0.5)
	counts := make([]int, g.Len())
	for i := range counts {
		counts[i] = 3 * i * i // both paths
	}
	draw := func(s uint64) []int {
		rep, err := Obfuscate(rand.New(rand.NewPCG(s, 1)), counts, ch)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a, b, c := draw(7), draw(7), draw(8)
	same := func(u, v []int) bool {
		for i := range u {
			if u[i] != v[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("same seed, different reports")
	}
	if same(a, c) {
		t.Error("different seeds, identical reports")
	}
}

func TestObfuscateErrors(t *testing.T) {
	g, _ := NewGrid(2, 2)
	ch, _ := Laplace(g, g, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	bad := &Channel{In: g, Out: g, P: append([]float64(nil), ch.P...)}
	bad.P[1] = math.NaN()
	for _, tc := range []struct {
		name   string
		rng    *rand.Rand
		counts []int
		ch     *Channel
		want   string
	}{
		{"nil rng", nil, []int{1, 1, 1, 1}, ch, "obfuscate: rng is nil"},
		{"short counts", rng, []int{1, 1, 1}, ch, "counts has 3 entries, want 4"},
		{"negative count", rng, []int{1, -1, 1, 1}, ch, "counts[1] = -1: must be >= 0"},
		{"nil channel", rng, []int{1, 1, 1, 1}, nil, "channel is nil"},
		{"NaN channel", rng, []int{1, 1, 1, 1}, bad, "channel row 0 is not a distribution (entries finite and >= 0, sum 1 within 4e-09)"},
	} {
		if _, err := Obfuscate(tc.rng, tc.counts, tc.ch); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// oneRowChannel is the channel of a single input cell with the given row.
func oneRowChannel(t *testing.T, row []float64) *Channel {
	t.Helper()
	ch, err := NewChannel(Grid{Rows: 1, Cols: 1}, Grid{Rows: 1, Cols: len(row)})
	if err != nil {
		t.Fatal(err)
	}
	copy(ch.Row(0), row)
	return ch
}

// TestObfuscateMethodCrossover: the two exact methods differ in the
// random words they consume, which shows which one ran. With k < 4|Y|
// check-ins, categorical draws take k+1 exponential variates, each at
// least one word; from k = 4|Y| on, conditional binomials take one
// binomial per output before the last, each a single word by inversion
// here (every conditional mean is below 10), so at most |Y|-1 words.
func TestObfuscateMethodCrossover(t *testing.T) {
	const n = 10
	row := make([]float64, n)
	for y := range row {
		row[y] = 1.0 / n
	}
	ch := oneRowChannel(t, row)
	for seed := range uint64(20) {
		for _, k := range []int{1, categoricalFactor*n - 1, categoricalFactor * n, 50} {
			src := &countingSource{src: rand.NewPCG(75, seed)}
			rep, err := Obfuscate(rand.New(src), []int{k}, ch)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, v := range rep {
				total += v
			}
			if total != k {
				t.Fatalf("k=%d: %d reports", k, total)
			}
			if categorical := k < categoricalFactor*n; categorical && src.n < k+1 {
				t.Errorf("k=%d < 4|Y|: %d words, fewer than the k+1 exponentials of categorical draws", k, src.n)
			} else if !categorical && src.n > n-1 {
				t.Errorf("k=%d >= 4|Y|: %d words, more than the |Y|-1 = %d binomials by inversion", k, src.n, n-1)
			}
		}
	}
}

// constSource returns the same word forever.
type constSource uint64

func (c constSource) Uint64() uint64 { return uint64(c) }

// TestObfuscateCategoricalEdges: categorical draws follow the inverse-CDF
// convention u in [F(y-1), F(y)) gives y, and a draw at the very top (the
// last exponential variate 0: a zero word, probability 2^-32) goes to the
// last output with mass, never to a later one of probability 0. The words
// are scripted: a word with i = 5, j = 1000 in rand's ziggurat gives the
// exponential 1000 we[5] at once, a zero word gives 0.
func TestObfuscateCategoricalEdges(t *testing.T) {
	const x = 5<<32 | 1000
	for _, tc := range []struct {
		name   string
		row    []float64
		k      int
		script []uint64
		want   []int
	}{
		// E1 = E2: the single draw is u = S1/S2 = 1/2 = F(0): report 1.
		{"u = F(0)", []float64{0.5, 0.5}, 1, []uint64{x, x}, []int{0, 1}},
		{"u = F(0), zero tail", []float64{0.5, 0.5, 0}, 1, []uint64{x, x}, []int{0, 1, 0}},
		// E2 = 0: u = S1/S2 = 1, the top.
		{"u = 1", []float64{0.5, 0.5, 0}, 1, []uint64{x, 0}, []int{0, 1, 0}},
		{"u = 1, zeros", []float64{0, 0.5, 0, 0.5, 0, 0}, 2, []uint64{x, x, 0}, []int{0, 0, 0, 2, 0, 0}},
	} {
		src := &scriptSource{script: tc.script, rest: constSource(0)}
		rep, err := Obfuscate(rand.New(src), []int{tc.k}, oneRowChannel(t, tc.row))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rep) != fmt.Sprint(tc.want) || src.n != len(tc.script) {
			t.Errorf("%s: reports %v from %d words, want %v from %d", tc.name, rep, src.n, tc.want, len(tc.script))
		}
	}
}
