package verdict

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"privic/harness"
)

// Alpha is the level of every test: two-sided, 0.05.
const Alpha = 0.05

// MinSims is the number of simulations per level below which winners.csv
// names no winner on a simulated quantity.
const MinSims = 5

// Welch is Welch's two-sample t-test of mean(A) = mean(B).
type Welch struct {
	MeanA, MeanB float64
	NA, NB       int
	// SE is the standard error of the difference, DF Welch-Satterthwaite's
	// degrees of freedom, P the two-sided p-value.
	SE, DF, P float64
}

// WelchTest compares the means of a and b (NaN values left out). ok is
// false when either has fewer than 2 values: no variance, no test. Two
// samples without spread are separated when their means differ (P = 0)
// and not when they are equal (P = 1).
func WelchTest(a, b []float64) (w Welch, ok bool) {
	ma, sa, na := harness.MeanSD(a)
	mb, sb, nb := harness.MeanSD(b)
	w = Welch{MeanA: ma, MeanB: mb, NA: na, NB: nb, P: math.NaN(), SE: math.NaN(), DF: math.NaN()}
	if na < 2 || nb < 2 {
		return w, false
	}
	va, vb := sa*sa/float64(na), sb*sb/float64(nb)
	w.SE = math.Sqrt(va + vb)
	if w.SE == 0 {
		w.DF = float64(na + nb - 2)
		w.P = 1
		if ma != mb {
			w.P = 0
		}
		return w, true
	}
	w.DF = (va + vb) * (va + vb) / (va*va/float64(na-1) + vb*vb/float64(nb-1))
	t := math.Abs(ma-mb) / w.SE
	w.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.DF}.Survival(t)
	return w, true
}

// Holm adjusts the p-values of a family of tests by Holm's step-down
// method: sorted ascending, p_(i) becomes max over j <= i of
// min(1, (n - j + 1) p_(j)). A test is significant at Alpha when its
// adjusted p-value is below Alpha; the family-wise error stays at most
// Alpha. NaN p-values (tests that could not be run) stay NaN and do not
// count in n.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	// insertion sort by p, stable on index: families are small
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && p[idx[j]] < p[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	n := len(idx)
	running := 0.0
	for k, i := range idx {
		running = math.Max(running, math.Min(1, float64(n-k)*p[i]))
		out[i] = running
	}
	return out
}

// Interval is the two-sided (1 - Alpha) Student interval of the mean of
// v (NaN values left out); ok is false with fewer than 2 values.
func Interval(v []float64) (mean, lo, hi float64, ok bool) {
	m, sd, n := harness.MeanSD(v)
	if n < 2 {
		return m, math.NaN(), math.NaN(), false
	}
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1-Alpha/2) * sd / math.Sqrt(float64(n))
	return m, m - h, m + h, true
}

// Order is how a family of pairwise comparisons of means came out for
// one pair: A significantly lower, significantly higher, or not
// separated.
type Order int

const (
	// Tie: the test cannot separate the means (or could not be run).
	Tie Order = iota
	// Lower: mean(A) is significantly below mean(B).
	Lower
	// Higher: mean(A) is significantly above mean(B).
	Higher
)

// Compare runs Welch's test on every pair (a[i], b[i]), adjusts the
// p-values of the family by Holm and returns each pair's Order, the
// tests and whether every test could be run.
func Compare(a, b [][]float64) (order []Order, tests []Welch, all bool) {
	p := make([]float64, len(a))
	tests = make([]Welch, len(a))
	all = true
	for i := range a {
		w, ok := WelchTest(a[i], b[i])
		tests[i] = w
		p[i] = math.NaN()
		if ok {
			p[i] = w.P
		} else {
			all = false
		}
	}
	adj := Holm(p)
	order = make([]Order, len(a))
	for i, q := range adj {
		tests[i].P = q
		switch {
		case !(q < Alpha):
		case tests[i].MeanA < tests[i].MeanB:
			order[i] = Lower
		case tests[i].MeanA > tests[i].MeanB:
			order[i] = Higher
		}
	}
	return order, tests, all
}

// Combine is the verdict of a claim made of parts (one per beta, for
// example): reproduced when every part is; undecided when the decided
// parts are all reproduced but some part is undecided (or there are no
// parts); not reproduced when every decided part is; partly otherwise.
func Combine(parts ...string) string {
	decided, repro, not := 0, 0, 0
	for _, v := range parts {
		switch v {
		case harness.Undecided:
			continue
		case harness.Reproduced:
			repro++
		case harness.NotReproduced:
			not++
		}
		decided++
	}
	switch {
	case decided > 0 && repro == len(parts):
		return harness.Reproduced
	case repro == decided:
		return harness.Undecided
	case not == decided:
		return harness.NotReproduced
	}
	return harness.Partly
}
