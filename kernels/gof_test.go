package kernels

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Goodness of fit for the samplers (binomial, Obfuscate). A test bins its
// draws into bins of about equal probability under the exact law, and
// compares Pearson's statistic with the chi-square quantile at level
// gofAlpha. Seeds are fixed, so every test is deterministic; gofAlpha is
// small so that a correct sampler still passes when a change of code
// changes the random stream (it fails a given test with probability
// gofAlpha over the choice of seed).
//
// Each test also draws from a negative control, a sampler that is wrong
// by a known small amount, and asserts that the same statistic rejects
// it: the test shows that it can fail, and at which size of error.
const gofAlpha = 1e-4

// controlNoncentrality is the expected excess of Pearson's statistic over
// its null mean for the negative controls (see reweighted). At 100 bins
// and gofAlpha, a control at this distance is rejected with probability
// 0.995.
const controlNoncentrality = 150

// eqBins partitions the integers into runs of consecutive values with
// about equal probability under an exact pmf.
type eqBins struct {
	upper []int     // bin i holds upper[i-1] < k <= upper[i]; the first and last bins are unbounded
	prob  []float64 // probability of each bin, normalised
}

// newEqBins makes about nbins bins for the pmf given on lo, lo+1, ...,
// lo+len(pmf)-1 (mass outside, if any, is ignored). Each bin closes where
// the cumulative probability reaches the next multiple of 1/nbins; bins
// below half that probability are merged into a neighbour, so a pmf with
// large atoms gets fewer bins.
func newEqBins(pmf []float64, lo, nbins int) eqBins {
	total := 0.0
	for _, v := range pmf {
		total += v
	}
	target := total / float64(nbins)
	var b eqBins
	cum, mass := 0.0, 0.0
	next := target
	for i, v := range pmf {
		cum += v
		mass += v
		if cum >= next || i == len(pmf)-1 {
			for next <= cum {
				next += target
			}
			if mass < target/2 && len(b.prob) > 0 && i < len(pmf)-1 {
				continue // too small: keep filling this bin
			}
			if mass < target/2 && len(b.prob) > 0 {
				// The last bin is small: merge it into the previous one.
				b.prob[len(b.prob)-1] += mass
				b.upper[len(b.upper)-1] = lo + i
				break
			}
			b.upper = append(b.upper, lo+i)
			b.prob = append(b.prob, mass)
			mass = 0
		}
	}
	for i := range b.prob {
		b.prob[i] /= total
	}
	return b
}

// index returns the bin of k.
func (b eqBins) index(k int) int {
	return min(sort.SearchInts(b.upper, k), len(b.upper)-1)
}

// central tells whether bin i is in the middle half of the bins.
func (b eqBins) central(i int) bool {
	n := len(b.prob)
	return 4*i >= n && 4*i < 3*n
}

// stat draws n values and returns Pearson's statistic of their bin counts.
func (b eqBins) stat(n int, draw func() int) float64 {
	obs := make([]float64, len(b.prob))
	for range n {
		obs[b.index(draw())]++
	}
	return pearsonStat(obs, b.prob, float64(n))
}

// pearsonStat is Pearson's statistic of observed counts against
// probabilities prob for n draws.
func pearsonStat(obs, prob []float64, n float64) float64 {
	s := 0.0
	for i, o := range obs {
		e := n * prob[i]
		s += (o - e) * (o - e) / e
	}
	return s
}

// pearson returns Pearson's statistic of observed against expected counts
// and its degrees of freedom, pooling the cells expected below 5 into one:
// for tests that compare every cell of a row with its exact expectation.
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

// chiSquareOK fails the test when pearson(obs, exp) exceeds the
// chi-square quantile at 1-gofAlpha.
func chiSquareOK(t *testing.T, name string, obs, exp []float64) {
	t.Helper()
	stat, df := pearson(obs, exp)
	if df < 1 {
		t.Fatalf("%s: no degrees of freedom", name)
	}
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - gofAlpha)
	if stat > crit {
		t.Errorf("%s: chi-square %.2f > %.2f (df %d, alpha %v)", name, stat, crit, df, gofAlpha)
	}
}

// chiSquareCritical is the chi-square quantile at 1-gofAlpha for k bins.
func chiSquareCritical(k int) float64 {
	return distuv.ChiSquared{K: float64(k - 1)}.Quantile(1 - gofAlpha)
}

// reweighted returns a negative control for a sampler of the binned law:
// it rejects a draw falling in a central bin with probability delta and
// draws again, so that its pmf is off by a factor (1-delta)/(1-delta w) on
// the central bins (of mass w) and 1/(1-delta w) elsewhere. delta is set
// so that n draws give Pearson's statistic an expected excess of
// controlNoncentrality: n delta^2 w(1-w)/(1-delta w)^2 = that.
func (b eqBins) reweighted(rng *rand.Rand, n int, draw func() int) (func() int, float64) {
	w := 0.0
	for i, p := range b.prob {
		if b.central(i) {
			w += p
		}
	}
	// Solve delta / (1 - delta w) = r for delta.
	r := math.Sqrt(controlNoncentrality / (float64(n) * w * (1 - w)))
	delta := r / (1 + r*w)
	return func() int {
		for {
			k := draw()
			if !b.central(b.index(k)) || rng.Float64() >= delta {
				return k
			}
		}
	}, delta
}

// TestEqBins checks the binning on a pmf with a large atom and on a
// smooth one.
func TestEqBins(t *testing.T) {
	// Atoms 0.05 and 0.6, then 35 atoms of 0.01: the large atom is one
	// bin, with the small first atom merged into it; the small atoms make
	// bins of about 0.1.
	pmf := []float64{0.05, 0.6}
	for range 35 {
		pmf = append(pmf, 0.01)
	}
	b := newEqBins(pmf, 3, 10)
	if len(b.upper) < 3 || b.upper[0] != 4 || math.Abs(b.prob[0]-0.65) > 1e-12 || b.upper[len(b.upper)-1] != 39 {
		t.Errorf("atoms: bins %v with probabilities %v", b.upper, b.prob)
	}
	for i, p := range b.prob[1:] {
		if p < 0.05-1e-12 || p > 0.15+1e-12 {
			t.Errorf("atoms: bin %d has probability %v, want about 0.1", i+1, p)
		}
	}
	last := len(b.upper) - 1
	for _, tc := range []struct{ k, bin int }{{-5, 0}, {3, 0}, {4, 0}, {5, 1}, {39, last}, {1000, last}} {
		if got := b.index(tc.k); got != tc.bin {
			t.Errorf("index(%d) = %d, want %d", tc.k, got, tc.bin)
		}
	}
	// Uniform on 1000 values, 100 bins: each bin 10 values, probability 0.01.
	u := make([]float64, 1000)
	for i := range u {
		u[i] = 1
	}
	b = newEqBins(u, 0, 100)
	sum := 0.0
	for i, p := range b.prob {
		sum += p
		if math.Abs(p-0.01) > 1e-9 {
			t.Fatalf("uniform: bin %d has probability %v", i, p)
		}
	}
	if len(b.prob) != 100 || math.Abs(sum-1) > 1e-12 {
		t.Errorf("uniform: %d bins, total %v", len(b.prob), sum)
	}
	central := 0
	for i := range b.prob {
		if b.central(i) {
			central++
		}
	}
	if central != 50 || !b.central(25) || b.central(24) || !b.central(74) || b.central(75) {
		t.Errorf("%d central bins", central)
	}
}
