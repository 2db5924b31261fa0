package kernels_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"privic/kernels"
)

// The stress tests push the kernels to the ends of the parameter range the
// harness accepts (beta from 1e-4 to 100, grids from 1 x 1 to 64 x 64, a
// prior with a single non-zero cell) and check that every output is a
// finite number satisfying the kernels' invariants, or that the input is
// refused with a one-line error. The numbers are checked against closed
// forms where one exists (EMD from a point mass, 1 x 1 grids, the 2 beta
// bound of BA's tight eps), never against the code's own earlier output.

// stBetas are log-spaced from 1e-4 to 100 (two per decade).
func stBetas() []float64 {
	var b []float64
	for e := -4.0; e <= 2.0001; e += 0.5 {
		b = append(b, math.Pow(10, e))
	}
	return b
}

// stFinite fails if v holds a NaN or an infinity.
func stFinite(t *testing.T, what string, v []float64) {
	t.Helper()
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s[%d] = %v", what, i, x)
		}
	}
}

// stEstimate runs iters IBU iterations on the report distribution q
// through ch, checks that the estimate is a distribution on g's cells and
// returns it with its EMD to prior.
func stEstimate(t *testing.T, g kernels.Grid, prior []float64, ch *kernels.Channel, q []float64, iters int) ([]float64, float64) {
	t.Helper()
	est, _, err := kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: iters})
	if err != nil {
		t.Fatalf("IBU: %v", err)
	}
	stDist(t, "IBU estimate", est, g.Len())
	d, err := kernels.EMD(g, prior, g, est)
	if err != nil {
		t.Fatalf("EMD(prior, estimate): %v", err)
	}
	return est, d
}

// stDist fails unless p is a distribution over n cells (entries finite and
// >= 0, sum 1 within 1e-9 * n).
func stDist(t *testing.T, what string, p []float64, n int) {
	t.Helper()
	if len(p) != n {
		t.Fatalf("%s has %d entries, want %d", what, len(p), n)
	}
	s := 0.0
	for i, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			t.Fatalf("%s[%d] = %v", what, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-9*float64(n) {
		t.Fatalf("%s sums to %v", what, s)
	}
}

// stStochastic fails unless every row of ch is a distribution.
func stStochastic(t *testing.T, what string, ch *kernels.Channel) {
	t.Helper()
	m, n := ch.In.Len(), ch.Out.Len()
	if len(ch.P) != m*n {
		t.Fatalf("%s has %d entries, want %d", what, len(ch.P), m*n)
	}
	for x := range m {
		stDist(t, fmt.Sprintf("%s row %d", what, x), ch.Row(x), n)
	}
}

// stOneLine fails unless err is a one-line error mentioning word.
func stOneLine(t *testing.T, err error, word string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error about %s", word)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.Contains(msg, word) {
		t.Fatalf("error %q: want one line mentioning %q", msg, word)
	}
}

// stPoint is the prior with all mass on cell i.
func stPoint(m, i int) []float64 {
	p := make([]float64, m)
	p[i] = 1
	return p
}

// stEMDFromPoint is the closed form of the EMD from a point mass at cell
// i of a to q on b: all of q's mass must travel from i, so the distance is
// sum_y q(y) d(i, y).
func stEMDFromPoint(a kernels.Grid, i int, b kernels.Grid, q []float64) float64 {
	s := 0.0
	for y, v := range q {
		s += v * kernels.Dist(a, i, b, y)
	}
	return s
}

func stDiameter(g kernels.Grid) float64 { return math.Hypot(float64(g.Rows-1), float64(g.Cols-1)) }

// stressCase runs the whole chain on one grid, prior and beta: BA (fixed
// and convergence mode), its channel, marginal and tight eps, Laplace at
// eps = 2 beta (base and widened outputs), obfuscation of the prior's
// counts, IBU and GIBU on the reports, and EMDs.
func stressCase(t *testing.T, g kernels.Grid, prior []float64, point int, beta float64, brute bool) {
	m := g.Len()
	rng := rand.New(rand.NewPCG(uint64(m), math.Float64bits(beta)))

	for _, cfg := range []kernels.BAConfig{
		{Beta: beta, Iterations: 10},
		{Beta: beta, Delta: 1e-9, MaxIterations: 200},
	} {
		bac, err := kernels.BA(g, prior, cfg)
		if err != nil {
			t.Fatalf("BA %+v: %v", cfg, err)
		}
		if bac.Iterations < 1 || (cfg.Iterations > 0 && bac.Iterations != cfg.Iterations) || bac.Iterations > max(cfg.Iterations, cfg.MaxIterations) {
			t.Fatalf("BA %+v did %d iterations", cfg, bac.Iterations)
		}
		stDist(t, "BA marginal", bac.Marginal, m)
		ch := bac.Channel()
		stStochastic(t, "BA channel", ch)
		if m == 1 && ch.P[0] != 1 {
			t.Fatalf("1x1 BA channel = %v, want [1]", ch.P)
		}
		// The tight eps of a BA channel is at most 2 beta (paper, Remark
		// 2.3); the fast form is documented to be exact and finite.
		eps, err := bac.TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(eps) || math.IsInf(eps, 0) || eps < 0 {
			t.Fatalf("BA tight eps = %v", eps)
		}
		if bound := 2*beta*(1+1e-12) + 1e-9; eps > bound {
			t.Fatalf("BA tight eps %v above 2 beta = %v", eps, 2*beta)
		}
		if m == 1 && eps != 0 {
			t.Fatalf("1x1 grid: tight eps %v, want 0", eps)
		}
		if brute {
			be, err := ch.TightEpsilon()
			if err != nil {
				t.Fatalf("brute-force tight eps: %v", err)
			}
			// +Inf is documented where entries underflowed to zero; a
			// finite value must respect the same bound, and agrees with
			// the fast form while every entry is a normal number.
			if !math.IsInf(be, 1) {
				if math.IsNaN(be) || be < 0 || be > 2*beta*(1+1e-12)+1e-9 {
					t.Fatalf("brute-force tight eps %v (beta %v)", be, beta)
				}
				if stMin(ch.P) > 1e-290 && math.Abs(be-eps) > 1e-9*max(1, eps) {
					t.Fatalf("brute-force tight eps %v, fast form %v", be, eps)
				}
			}
		}

		// IBU on the exact report distribution, and on sampled reports.
		q, err := kernels.Marginal(prior, ch)
		if err != nil {
			t.Fatalf("marginal: %v", err)
		}
		stDist(t, "report distribution", q, m)
		est, emdEst := stEstimate(t, g, prior, ch, q, 5)
		if point >= 0 {
			want := stEMDFromPoint(g, point, g, est)
			if math.Abs(emdEst-want) > 1e-9*(1+want) {
				t.Fatalf("EMD from the point prior = %v, closed form %v", emdEst, want)
			}
		}
		if math.IsNaN(emdEst) || emdEst < 0 || emdEst > stDiameter(g)+1e-9 {
			t.Fatalf("EMD = %v (diameter %v)", emdEst, stDiameter(g))
		}

		counts := make([]int, m)
		const n = 1_000_000
		if point >= 0 {
			counts[point] = n
		} else {
			for i := range counts {
				counts[i] = n / m
			}
		}
		reports, err := kernels.Obfuscate(rng, counts, ch)
		if err != nil {
			t.Fatalf("obfuscate: %v", err)
		}
		stCounts(t, reports, counts, m)
		qs := kernels.Empirical(reports)
		est2, _, err := kernels.IBU(ch, qs, est, kernels.IBUConfig{Delta: 1e-10, MaxIterations: 20})
		if err != nil {
			t.Fatalf("IBU on sampled reports: %v", err)
		}
		stDist(t, "IBU estimate from reports", est2, m)
	}

	// Laplace at eps = 2 beta, on the base grid and widened by 5 cells.
	for _, out := range []kernels.Grid{g, g.Widen(5)} {
		lap, err := kernels.Laplace(g, out, 2*beta)
		if err != nil {
			t.Fatalf("Laplace -> %v: %v", out, err)
		}
		stStochastic(t, "Laplace channel", lap)
		if brute {
			le, err := lap.TightEpsilon()
			if err != nil {
				t.Fatalf("Laplace tight eps: %v", err)
			}
			// |d(x,y) - d(x',y)| <= d(x,x') for the kernel and the same for
			// the row normalisers: at most 2 eps (+Inf only if an entry
			// underflowed).
			if math.IsNaN(le) || le < 0 || (!math.IsInf(le, 1) && le > 4*beta*(1+1e-12)+1e-9) {
				t.Fatalf("Laplace tight eps %v at eps %v", le, 2*beta)
			}
		}
		q, err := kernels.Marginal(prior, lap)
		if err != nil {
			t.Fatalf("Laplace marginal: %v", err)
		}
		stDist(t, "Laplace report distribution", q, out.Len())
		if point >= 0 {
			d, err := kernels.EMD(g, prior, out, q)
			if err != nil {
				t.Fatalf("EMD(prior, Laplace reports): %v", err)
			}
			if want := stEMDFromPoint(g, point, out, q); math.Abs(d-want) > 1e-9*(1+want) {
				t.Fatalf("EMD from the point prior to the Laplace reports = %v, closed form %v", d, want)
			}
		}
		// GIBU over a BA batch and a Laplace batch of sampled reports.
		bac, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 3})
		if err != nil {
			t.Fatalf("BA: %v", err)
		}
		ba := bac.Channel()
		c1, err := kernels.Obfuscate(rng, stCountsOf(prior, 5000), ba)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := kernels.Obfuscate(rng, stCountsOf(prior, 5000), lap)
		if err != nil {
			t.Fatal(err)
		}
		est, _, err := kernels.GIBU([]kernels.Batch{{Channel: ba, Counts: stFloats(c1)}, {Channel: lap, Counts: stFloats(c2)}}, nil, kernels.IBUConfig{Iterations: 4})
		if err != nil {
			t.Fatalf("GIBU: %v", err)
		}
		stDist(t, "GIBU estimate", est, m)
	}
}

// stMin is the smallest entry of v: the fast tight eps is exact only while
// no channel entry has underflowed (with c(y) = 0 a whole column is zero
// and the brute force skips it, rightly giving a smaller value).
func stMin(v []float64) float64 {
	mn := math.Inf(1)
	for _, x := range v {
		mn = min(mn, x)
	}
	return mn
}

func stCounts(t *testing.T, reports, counts []int, n int) {
	t.Helper()
	if len(reports) != n {
		t.Fatalf("%d report counts, want %d", len(reports), n)
	}
	want, got := 0, 0
	for _, c := range counts {
		want += c
	}
	for y, c := range reports {
		if c < 0 {
			t.Fatalf("report count[%d] = %d", y, c)
		}
		got += c
	}
	if got != want {
		t.Fatalf("%d reports from %d check-ins", got, want)
	}
}

func stFloats(c []int) []float64 {
	f := make([]float64, len(c))
	for i, v := range c {
		f[i] = float64(v)
	}
	return f
}

// stCountsOf gives n check-ins distributed as prior (rounded down, the
// remainder on the largest cell).
func stCountsOf(prior []float64, n int) []int {
	c := make([]int, len(prior))
	left, big := n, 0
	for i, p := range prior {
		c[i] = int(p * float64(n))
		left -= c[i]
		if p > prior[big] {
			big = i
		}
	}
	c[big] += left
	return c
}

// TestStressSmallGrids: 1 x 1 and 1 x 50 (and a 7 x 9 for two dimensions),
// every beta from 1e-4 to 100, a point prior at a corner and in the
// middle, and the uniform prior.
func TestStressSmallGrids(t *testing.T) {
	for _, shape := range [][2]int{{1, 1}, {1, 50}, {7, 9}} {
		g, err := kernels.NewGrid(shape[0], shape[1])
		if err != nil {
			t.Fatal(err)
		}
		m := g.Len()
		uniform := make([]float64, m)
		for i := range uniform {
			uniform[i] = 1 / float64(m)
		}
		priors := []struct {
			name  string
			p     []float64
			point int
		}{
			{"corner", stPoint(m, 0), 0},
			{"middle", stPoint(m, m/2), m / 2},
			{"uniform", uniform, -1},
		}
		for _, pr := range priors {
			for _, beta := range stBetas() {
				t.Run(fmt.Sprintf("%dx%d/%s/beta=%g", g.Rows, g.Cols, pr.name, beta), func(t *testing.T) {
					stressCase(t, g, pr.p, pr.point, beta, true)
				})
			}
		}
	}
}

// TestStressLargeGrid: 64 x 64 (4096 cells, a dense channel is 128 MiB)
// at the ends and the middle of the beta range, with a point prior.
func TestStressLargeGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("64x64 grid: 128 MiB channels; skipped in -short mode")
	}
	g, err := kernels.NewGrid(64, 64)
	if err != nil {
		t.Fatal(err)
	}
	m := g.Len()
	corner := 0
	for _, beta := range []float64{1e-4, 1, 100} {
		t.Run(fmt.Sprintf("beta=%g", beta), func(t *testing.T) {
			prior := stPoint(m, corner)
			bac, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 10})
			if err != nil {
				t.Fatalf("BA: %v", err)
			}
			stDist(t, "BA marginal", bac.Marginal, m)
			eps, err := bac.TightEpsilon()
			if err != nil || math.IsNaN(eps) || math.IsInf(eps, 0) || eps < 0 || eps > 2*beta*(1+1e-12)+1e-9 {
				t.Fatalf("BA tight eps = %v (%v) at beta %v", eps, err, beta)
			}
			ch := bac.Channel()
			stStochastic(t, "BA channel", ch)
			q, err := kernels.Marginal(prior, ch)
			if err != nil {
				t.Fatal(err)
			}
			est, d := stEstimate(t, g, prior, ch, q, 3)
			if want := stEMDFromPoint(g, corner, g, est); math.Abs(d-want) > 1e-9*(1+want) {
				t.Fatalf("EMD from the corner = %v, closed form %v", d, want)
			}
			counts := make([]int, m)
			counts[corner] = 1_000_000
			rep, err := kernels.Obfuscate(rand.New(rand.NewPCG(1, 2)), counts, ch)
			if err != nil {
				t.Fatal(err)
			}
			stCounts(t, rep, counts, m)
		})
	}
	lap, err := kernels.Laplace(g, g.Widen(5), 2)
	if err != nil {
		t.Fatal(err)
	}
	stStochastic(t, "Laplace channel", lap)
}

// TestStressRefusals: parameters outside the domain are refused with a
// one-line error naming what is wrong, never a panic or NaN output.
func TestStressRefusals(t *testing.T) {
	g, _ := kernels.NewGrid(3, 4)
	m := g.Len()
	prior := stPoint(m, 5)
	for _, beta := range []float64{0, -1, -1e-300, math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 5})
		stOneLine(t, err, "beta")
		_, err = kernels.Laplace(g, g, beta)
		stOneLine(t, err, "eps")
	}
	for _, p := range [][]float64{
		make([]float64, m), // no mass
		stPoint(m+1, 0),    // wrong length
		{math.NaN(), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{math.Inf(1), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	} {
		_, err := kernels.BA(g, p, kernels.BAConfig{Beta: 1, Iterations: 5})
		stOneLine(t, err, "prior")
	}
	for _, cfg := range []kernels.BAConfig{{Beta: 1}, {Beta: 1, Iterations: -1}, {Beta: 1, Delta: math.NaN()}} {
		_, err := kernels.BA(g, prior, cfg)
		if err == nil || strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("BA %+v: error %v, want a one-line refusal", cfg, err)
		}
	}
	for _, shape := range [][2]int{{0, 5}, {5, 0}, {-1, 3}, {1 << 11, 1 << 11}} {
		bad := kernels.Grid{Rows: shape[0], Cols: shape[1]}
		if _, err := kernels.BA(bad, []float64{1}, kernels.BAConfig{Beta: 1, Iterations: 1}); err == nil || strings.ContainsAny(err.Error(), "\n") {
			t.Fatalf("BA on grid %v: %v", bad, err)
		}
		if _, err := kernels.Laplace(bad, bad, 1); err == nil {
			t.Fatalf("Laplace on grid %v accepted", bad)
		}
	}
	// Beta far beyond the harness's range still gives finite numbers.
	for _, beta := range []float64{1e-300, 1e300} {
		bac, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 5})
		if err != nil {
			stOneLine(t, err, "beta")
			continue
		}
		stStochastic(t, fmt.Sprintf("BA channel at beta %g", beta), bac.Channel())
		stFinite(t, "BA marginal", bac.Marginal)
		if eps, err := bac.TightEpsilon(); err != nil || math.IsNaN(eps) || eps < 0 || eps > 2*beta*(1+1e-12)+1e-9 {
			t.Fatalf("tight eps %v (%v) at beta %g", eps, err, beta)
		}
	}
}
