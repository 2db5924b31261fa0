package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The distribution tests use fixed seeds, so they are deterministic; each
// compares Pearson's statistic with the chi-square quantile at the
// significance level alpha (a correct sampler fails a given test with
// probability alpha over the choice of seed).
const alpha = 0.001

// pearson returns Pearson's statistic of observed vs expected counts and
// its degrees of freedom, pooling cells with expectation below 5 into one.
func pearson(obs, exp []float64) (stat float64, df int) {
	var po, pe float64
	bins := 0
	for i, e := range exp {
		if e < 5 {
			po += obs[i]
			pe += exp[i]
			continue
		}
		stat += (obs[i] - e) * (obs[i] - e) / e
		bins++
	}
	if pe > 0 {
		stat += (po - pe) * (po - pe) / pe
		bins++
	}
	return stat, bins - 1
}

func chiSquareOK(t *testing.T, name string, obs, exp []float64) {
	t.Helper()
	stat, df := pearson(obs, exp)
	if df < 1 {
		t.Fatalf("%s: no degrees of freedom", name)
	}
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
	if stat > crit {
		t.Errorf("%s: chi-square %.2f > %.2f (df %d, alpha %v)", name, stat, crit, df, alpha)
	}
}

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

// TestBinomial checks the sampler against the exact pmf in both regimes
// (inversion for n min(p,1-p) < 10, BTRD above, with its exact test
// reached for |k - mode| > 15 when npq is large) and for p > 1/2.
func TestBinomial(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, tc := range []struct {
		n int
		p float64
	}{
		{1, 0.5}, {7, 0.3}, {40, 0.1}, {2000, 0.003}, {60, 0.9},
		{30, 0.4}, {100, 0.37}, {1000, 0.5}, {250, 0.93}, {100000, 0.01}, {5000000, 0.2},
	} {
		const draws = 40000
		// Bins: k in [lo, hi] (12 standard deviations around the mean)
		// and one bin for everything outside.
		mean, sdk := float64(tc.n)*tc.p, math.Sqrt(float64(tc.n)*tc.p*(1-tc.p))
		lo := max(0, int(mean-12*sdk)-20)
		hi := min(tc.n, int(mean+12*sdk)+20)
		obs := make([]float64, hi-lo+2)
		sum := 0.0
		for i := 0; i < draws; i++ {
			k := binomial(rng, tc.n, tc.p)
			if k < 0 || k > tc.n {
				t.Fatalf("Bin(%d,%v) drew %d", tc.n, tc.p, k)
			}
			if k < lo || k > hi {
				obs[hi-lo+1]++
			} else {
				obs[k-lo]++
			}
			sum += float64(k)
		}
		exp := make([]float64, hi-lo+2)
		in := 0.0
		for k := lo; k <= hi; k++ {
			exp[k-lo] = draws * binomialPMF(tc.n, k, tc.p)
			in += exp[k-lo]
		}
		exp[hi-lo+1] = max(0, draws-in)
		chiSquareOK(t, "binomial", obs, exp)
		sd := sdk / math.Sqrt(draws)
		if math.Abs(sum/draws-mean) > 4.5*sd {
			t.Errorf("Bin(%d,%v): sample mean %v, want %v +- %v", tc.n, tc.p, sum/draws, mean, sd)
		}
	}
	for _, tc := range []struct {
		n    int
		p    float64
		want int
	}{{0, 0.5, 0}, {10, 0, 0}, {10, 1, 10}, {-3, 0.5, 0}} {
		if k := binomial(rng, tc.n, tc.p); k != tc.want {
			t.Errorf("Bin(%d,%v) = %d, want %d", tc.n, tc.p, k, tc.want)
		}
	}
}

// TestObfuscateDistribution: the aggregated report counts of many source
// cells against their expectation sum_x counts[x] C[x,y], once with counts
// that take the categorical path and once with counts that take the
// binomial path. The sum of independent multinomials has a covariance no
// larger than one multinomial's, so the chi-square(bins-1) quantile is
// conservative here.
func TestObfuscateDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	g, _ := NewGrid(6, 7)
	prior := randPrior(rng, g.Len(), 0.2)
	b, _ := BA(g, prior, BAConfig{Beta: 0.7, Iterations: 10})
	lap, _ := Laplace(g, g.Widen(2), 0.9)
	for name, ch := range map[string]*Channel{"ba": b.Channel(), "laplace widened": lap} {
		n := ch.Out.Len()
		for _, scale := range []float64{0.5 * categoricalFactor, 8 * categoricalFactor} {
			counts := make([]int, g.Len())
			total := 0
			for x, p := range prior {
				if p > 0 {
					counts[x] = int(scale*float64(n)*(0.5+rng.Float64())) + 1
				}
				total += counts[x]
			}
			rep, err := Obfuscate(rng, counts, ch)
			if err != nil {
				t.Fatal(err)
			}
			obs := make([]float64, n)
			exp := make([]float64, n)
			got := 0
			for y, v := range rep {
				obs[y] = float64(v)
				got += v
			}
			if got != total {
				t.Fatalf("%s: %d reports for %d check-ins", name, got, total)
			}
			for x, k := range counts {
				for y, v := range ch.Row(x) {
					exp[y] += float64(k) * v
				}
			}
			for y := range exp {
				if exp[y] == 0 && obs[y] != 0 {
					t.Fatalf("%s: %v reports of an impossible output %d", name, obs[y], y)
				}
			}
			chiSquareOK(t, name, obs, exp)
		}
	}
}

// TestObfuscateSingleSource: with one occupied cell the reports are one
// multinomial. Over many repetitions the count of one output must be
// Binomial(k, C[x,y]), and the pooled reports Multinomial(reps*k, C[x,:]).
func TestObfuscateSingleSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	g, _ := NewGrid(5, 5)
	ch, _ := Laplace(g, g, 0.6)
	n := ch.Out.Len()
	const x, y, reps = 12, 13, 3000       // centre cell and its east neighbour
	for _, k := range []int{20, 40 * n} { // categorical path, binomial path
		counts := make([]int, g.Len())
		counts[x] = k
		hist := make([]float64, k+1)
		pooled := make([]float64, n)
		for r := 0; r < reps; r++ {
			rep, err := Obfuscate(rng, counts, ch)
			if err != nil {
				t.Fatal(err)
			}
			hist[rep[y]]++
			for j, v := range rep {
				pooled[j] += float64(v)
			}
		}
		p := ch.Row(x)[y]
		exp := make([]float64, k+1)
		for j := range exp {
			exp[j] = reps * binomialPMF(k, j, p)
		}
		chiSquareOK(t, "single-source marginal", hist, exp)
		pexp := make([]float64, n)
		for j, v := range ch.Row(x) {
			pexp[j] = float64(reps*k) * v
		}
		chiSquareOK(t, "single-source pooled", pooled, pexp)
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
	}{
		{"nil rng", nil, []int{1, 1, 1, 1}, ch},
		{"short counts", rng, []int{1, 1, 1}, ch},
		{"negative count", rng, []int{1, -1, 1, 1}, ch},
		{"nil channel", rng, []int{1, 1, 1, 1}, nil},
		{"NaN channel", rng, []int{1, 1, 1, 1}, bad},
	} {
		if _, err := Obfuscate(tc.rng, tc.counts, tc.ch); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
