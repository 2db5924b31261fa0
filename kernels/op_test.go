package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// islandCity is a rows x cols grid with a random islandPrior on it, the
// setting of the operator tests.
func islandCity(t testing.TB, rng *rand.Rand, rows, cols int) (Grid, []float64) {
	t.Helper()
	g, err := NewGrid(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return g, islandPrior(rng, rows, cols)
}

// islandPrior is islandVec normalised: a distribution with a deserted
// block.
func islandPrior(rng *rand.Rand, R, C int) []float64 {
	return toDist(islandVec(rng, R, C))
}

// closeVec reports the first entry where got and want differ by more than
// tol relative (plus 1e-300 absolute: the dense channels flush subnormal
// entries), or -1.
func closeVec(got, want []float64, tol float64) int {
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= tol*math.Abs(want[i])+1e-300) {
			return i
		}
	}
	return -1
}

// rrChannel is randomized response written out from its definition.
func rrChannel(g Grid, eps float64) *Channel {
	ch, _ := NewChannel(g, g)
	k := float64(g.Len())
	p := math.Exp(eps) / (math.Exp(eps) + k - 1)
	q := 1 / (math.Exp(eps) + k - 1)
	for x := 0; x < g.Len(); x++ {
		row := ch.Row(x)
		for y := range row {
			row[y] = q
		}
		row[x] = p
	}
	return ch
}

type opCase struct {
	name  string
	op    ChannelOp
	dense *Channel
}

// opCases builds BA, LAP (base and widened) and RR operators with their
// dense channels, on a grid below the FFT threshold and one above it.
func opCases(t *testing.T, rng *rand.Rand) []opCase {
	t.Helper()
	var cases []opCase
	for _, sz := range [][2]int{{5, 7}, {32, 36}} {
		g, prior := islandCity(t, rng, sz[0], sz[1])
		for _, beta := range []float64{0.3, 1.5} {
			b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 6})
			cases = append(cases, opCase{fmt.Sprintf("ba %v beta=%v", g, beta), b, b.Channel()})
		}
		for _, w := range []int{0, 3} {
			out := g.Widen(w)
			lap, err := NewLaplaceOp(g, out, 0.8)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := Laplace(g, out, 0.8)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, opCase{fmt.Sprintf("lap %v -> %v", g, out), lap, dense})
		}
		rr, err := NewRROp(g, 2)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, opCase{fmt.Sprintf("rr %v", g), rr, rrChannel(g, 2)})
	}
	return cases
}

// TestOpsMatchDense: every operator agrees with its dense channel: the
// products C v and C^T u entry by entry (1e-9 relative), the tight
// epsilon (against the brute force), the metrics, the marginal and IBU.
func TestOpsMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, tc := range opCases(t, rng) {
		in, out := tc.op.Grids()
		if in != tc.dense.In || out != tc.dense.Out {
			t.Fatalf("%s: grids %v -> %v, dense %v -> %v", tc.name, in, out, tc.dense.In, tc.dense.Out)
		}
		v := islandVec(rng, out.Rows, out.Cols)
		u := islandPrior(rng, in.Rows, in.Cols)
		for _, p := range []struct {
			what         string
			apply, dense func(dst, src []float64) error
			src          []float64
			n            int
		}{
			{"C v", tc.op.Apply, tc.dense.Apply, v, in.Len()},
			{"C^T u", tc.op.ApplyT, tc.dense.ApplyT, u, out.Len()},
		} {
			got, want := make([]float64, p.n), make([]float64, p.n)
			if err := p.apply(got, p.src); err != nil {
				t.Fatal(err)
			}
			if err := p.dense(want, p.src); err != nil {
				t.Fatal(err)
			}
			if i := closeVec(got, want, 1e-9); i >= 0 {
				t.Errorf("%s: (%s)[%d] = %v, dense %v", tc.name, p.what, i, got[i], want[i])
			}
		}
		eps, err := tc.op.TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		// The brute force is O(|X|^2 |Y|): on the large grid use the
		// O(|X| |Y|) exponential form, itself checked against the brute
		// force in TestTightEpsExp.
		var brute float64
		switch {
		case in.Len() <= 64:
			brute, err = tc.dense.TightEpsilon()
		case tc.name[:2] == "rr":
			brute, err = tc.dense.TightEpsilon()
		default:
			k := 0.8
			if b, ok := tc.op.(*BAChannel); ok {
				k = b.Beta
			}
			brute, err = TightEpsExp(tc.dense, k)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(eps, brute, 1e-9) {
			t.Errorf("%s: tight eps %v, dense %v", tc.name, eps, brute)
		}
		for _, m := range []struct {
			name     string
			op       func([]float64, ChannelOp) (float64, error)
			dense    func([]float64, ChannelOp) (float64, error)
			tol, abs float64
		}{
			{"distortion", AvgDistortion, AvgDistortion, 1e-9, 0},
			{"mutual information", MutualInformation, MutualInformation, 0, 1e-9},
			{"bayes vulnerability", BayesVulnerability, BayesVulnerability, 1e-9, 0},
		} {
			g, err := m.op(u, tc.op)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.name, m.name, err)
			}
			w, err := m.dense(u, tc.dense)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(g-w) > m.tol*math.Abs(w)+m.abs {
				t.Errorf("%s: %s %v, dense %v", tc.name, m.name, g, w)
			}
		}
		q, err := Marginal(u, tc.op)
		if err != nil {
			t.Fatal(err)
		}
		qd, _ := Marginal(u, tc.dense)
		if i := closeVec(q, qd, 1e-9); i >= 0 {
			t.Errorf("%s: marginal[%d] = %v, dense %v", tc.name, i, q[i], qd[i])
		}
		// IBU compounds the products' errors over its iterations.
		est, _, err := IBU(tc.op, q, nil, IBUConfig{Iterations: 8})
		if err != nil {
			t.Fatal(err)
		}
		estD, _, err := IBU(tc.dense, qd, nil, IBUConfig{Iterations: 8})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(est, estD); d > 1e-9 {
			t.Errorf("%s: IBU estimates differ by %.3g", tc.name, d)
		}
	}
}

// TestGIBUOperators: GIBU over a BA, a LAP and an RR batch equals GIBU on their
// dense channels.
func TestGIBUOperators(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	cases := opCases(t, rng)
	for _, pick := range [][]int{{0, 2, 4}, {5, 7, 8, 9}} {
		var ops []Batch
		var dense []Batch
		for _, i := range pick {
			_, out := cases[i].op.Grids()
			counts := islandVec(rng, out.Rows, out.Cols)
			ops = append(ops, Batch{cases[i].op, counts})
			dense = append(dense, Batch{cases[i].dense, counts})
		}
		got, _, err := GIBU(ops, nil, IBUConfig{Iterations: 6})
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := GIBU(dense, nil, IBUConfig{Iterations: 6})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(got, want); d > 1e-10 {
			t.Errorf("batches %v: GIBU estimates differ by %.3g", pick, d)
		}
	}
}

// TestSampleRows: Sample's draws from single rows match the exact rows
// (chi-square), for windows that hold most of the row (large beta) and for
// flat kernels where most draws come from the far envelopes; and a row
// perturbed by 5% is rejected, so the test has power.
func TestSampleRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	g, prior := islandCity(t, rng, 24, 30)
	var ops []opCase
	for _, beta := range []float64{0.05, 0.4, 3} {
		b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 8})
		ops = append(ops, opCase{fmt.Sprintf("ba beta=%v", beta), b, b.Channel()})
	}
	lap, _ := NewLaplaceOp(g, g.Widen(4), 0.3)
	lapD, _ := Laplace(g, g.Widen(4), 0.3)
	// A nearly flat LAP: the far envelope proposes uniform cells (c = 1),
	// which is cheaper than proposing offsets.
	lapFlat, _ := NewLaplaceOp(g, g.Widen(4), 0.02)
	lapFlatD, _ := Laplace(g, g.Widen(4), 0.02)
	rr, _ := NewRROp(g, 1)
	ops = append(ops, opCase{"lap widened", lap, lapD}, opCase{"lap flat", lapFlat, lapFlatD}, opCase{"rr", rr, rrChannel(g, 1)})
	const k = 200000
	for _, tc := range ops {
		_, out := tc.op.Grids()
		for _, x := range []int{0, g.Len() / 2, g.Len() - 1, g.Index(3, 4)} {
			rep := make([]int, out.Len())
			if err := tc.op.Sample(rng, x, k, rep); err != nil {
				t.Fatal(err)
			}
			obs, exp := make([]float64, len(rep)), make([]float64, len(rep))
			n := 0
			for y, c := range rep {
				obs[y] = float64(c)
				n += c
				exp[y] = k * tc.dense.Row(x)[y]
			}
			if n != k {
				t.Fatalf("%s row %d: %d draws, want %d", tc.name, x, n, k)
			}
			chiSquareOK(t, fmt.Sprintf("%s row %d", tc.name, x), obs, exp)
			// Power: a row with a fifth of its largest entry's mass spread
			// over the others is rejected wherever that shift is large.
			bad := append([]float64(nil), exp...)
			top := 0
			for y, e := range exp {
				if e > exp[top] {
					top = y
				}
			}
			shift := 0.2 * exp[top]
			for y := range bad {
				if y != top {
					bad[y] += shift * exp[y] / (k - exp[top])
				}
			}
			bad[top] -= shift
			stat, df := pearson(obs, bad)
			crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - gofAlpha)
			if 0.05*exp[top] > 3*crit && stat <= crit {
				t.Errorf("%s row %d: a perturbed row is not rejected (chi-square %.1f <= %.1f)", tc.name, x, stat, crit)
			}
		}
	}
}

// TestObfuscateOpMatchesDense: obfuscating through the structured BA
// channel and through its dense matrix give the same distribution of
// reports (a chi-square test of homogeneity on the pooled counts of many
// repetitions), on a grid of 1,080 cells (the FFT path).
func TestObfuscateOpMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	g, prior := islandCity(t, rng, 30, 36)
	counts := make([]int, g.Len())
	for x, p := range prior {
		counts[x] = int(p * 30000)
	}
	b := mustBA(t, g, prior, BAConfig{Beta: 0.8, Iterations: 10})
	dense := b.Channel()
	const reps = 20
	a, d := make([]float64, g.Len()), make([]float64, g.Len())
	for range reps {
		ra, err := Obfuscate(rng, counts, b)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := Obfuscate(rng, counts, dense)
		if err != nil {
			t.Fatal(err)
		}
		for y := range ra {
			a[y] += float64(ra[y])
			d[y] += float64(rd[y])
		}
	}
	// Homogeneity of two samples of equal size: expected counts are the
	// pooled halves; (a - e)^2/e + (d - e)^2/e = (a - d)^2 / (a + d).
	stat, bins := 0.0, 0
	var pa, pd float64
	for y := range a {
		if a[y]+d[y] < 10 {
			pa += a[y]
			pd += d[y]
			continue
		}
		stat += (a[y] - d[y]) * (a[y] - d[y]) / (a[y] + d[y])
		bins++
	}
	if pa+pd > 0 {
		stat += (pa - pd) * (pa - pd) / (pa + pd)
		bins++
	}
	crit := distuv.ChiSquared{K: float64(bins - 1)}.Quantile(1 - gofAlpha)
	if stat > crit {
		t.Errorf("structured and dense obfuscation differ: chi-square %.1f > %.1f (df %d)", stat, crit, bins-1)
	}
}

// TestBALargeMatchesDirect: BA on a grid that takes the FFT path equals BA
// with direct products: after one iteration to 1e-9 (each product is
// certified to 4e-10), after ten to 1e-8 (the iterations compound the
// errors); the tight epsilon to 1e-9. With a deserted block and a large
// beta the linear domain fails and both runs end in the log domain.
func TestBALargeMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(79, 80))
	g, prior := islandCity(t, rng, 34, 38)
	for _, beta := range []float64{0.05, 0.7, 3, 80} {
		for _, iters := range []int{1, 10} {
			var fast, slow BAWorkspace
			slow.kp = newKProd(g.Rows, g.Cols, beta, false)
			slow.kp.useFFT = false
			bf, err := fast.BA(g, prior, BAConfig{Beta: beta, Iterations: iters})
			if err != nil {
				t.Fatal(err)
			}
			bs, err := slow.ba(g, prior, BAConfig{Beta: beta, Iterations: iters}, bf.logDomain)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9
			if iters > 1 {
				tol = 1e-8
			}
			if i := closeVec(bf.Marginal, bs.Marginal, tol); i >= 0 {
				t.Errorf("beta=%v %d iterations (log %v): c[%d] = %v, direct %v", beta, iters, bf.logDomain, i, bf.Marginal[i], bs.Marginal[i])
			}
			if i := closeVec(bf.LogZ(), bs.LogZ(), tol); i >= 0 {
				t.Errorf("beta=%v %d iterations: ln Z[%d] = %v, direct %v", beta, iters, i, bf.LogZ()[i], bs.LogZ()[i])
			}
			if e, w := mustTightEps(t, bf), mustTightEps(t, bs); !relClose(e, w, 1e-9) {
				t.Errorf("beta=%v %d iterations: tight eps %v, direct %v", beta, iters, e, w)
			}
			if beta == 80 && iters == 10 && !bf.logDomain {
				t.Errorf("beta=%v: the large grid stayed in the linear domain", beta)
			}
		}
	}
	// Convergence mode: the same stopping iteration and change.
	var fast, slow BAWorkspace
	slow.kp = newKProd(g.Rows, g.Cols, 1.2, false)
	slow.kp.useFFT = false
	cfg := BAConfig{Beta: 1.2, Delta: 1e-6}
	bf, err := fast.BA(g, prior, cfg)
	if err != nil {
		t.Fatal(err)
	}
	bs, _ := slow.BA(g, prior, cfg)
	if bf.Iterations != bs.Iterations || !relClose(bf.Change, bs.Change, 1e-6) {
		t.Errorf("convergence: %d iterations, change %v; direct %d, %v", bf.Iterations, bf.Change, bs.Iterations, bs.Change)
	}
}

// TestIBUFactorisedLarge: the factorised IBU on the FFT path equals dense IBU on
// the materialised channel in both stopping modes; its log-domain
// iteration equals dense IBU where neither underflows; and when a report
// lies deep in a deserted block (den(y) below denTiny, where the dense
// channel's entries flush to zero), the log-domain result equals IBU
// written from the definition in the log domain.
func TestIBUFactorisedLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	g, prior := islandCity(t, rng, 32, 40)
	for _, beta := range []float64{0.4, 2, 25} {
		b := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 8})
		ch := b.Channel()
		q, _ := Marginal(prior, ch)
		compareIBUFactorised(t, fmt.Sprintf("beta=%v", beta), b, ch, q, prior, 300, 1e-8)
		if beta < 25 {
			var w IBUWorkspace
			got := make([]float64, g.Len())
			if _, err := w.ibuLogBA(got, b, q, prior, 10, false, 0); err != nil {
				t.Fatal(err)
			}
			want, _, _ := IBU(ch, q, prior, IBUConfig{Iterations: 10})
			if d := maxAbsDiff(got, want); d > 1e-9 {
				t.Errorf("beta=%v: log-domain and dense IBU differ by %.3g", beta, d)
			}
			continue
		}
		corner := make([]float64, g.Len())
		corner[0] = 0.5
		for i := range q {
			corner[i] += 0.5 * q[i]
		}
		got, _, err := IBU(b.Factorised(), corner, prior, IBUConfig{Iterations: 4})
		if err != nil {
			t.Fatal(err)
		}
		want := plainLogIBU(b, corner, prior, 4)
		if d := maxAbsDiff(got, want); d > 1e-9 {
			t.Errorf("beta=%v, report in the deserted block: IBU and the log-domain definition differ by %.3g", beta, d)
		}
	}
}

// plainLogIBU is IBU on a BA channel written from the definition in the
// log domain, ln C[x,y] = ln c(y) - beta d(x,y) - ln Z(x), with O(m^2)
// log-sum-exps per iteration.
func plainLogIBU(b *BAChannel, q, start []float64, iters int) []float64 {
	g := b.Grid
	m := g.Len()
	lz := b.LogZ()
	lc := make([]float64, m)
	for y := range lc {
		lc[y] = log(b.Marginal[y])
		if b.logDomain {
			lc[y] = b.logc[y]
		}
	}
	lC := func(x, y int) float64 { return lc[y] - b.Beta*Dist(g, x, g, y) - lz[x] }
	theta := append([]float64(nil), start...)
	for range iters {
		next := make([]float64, m)
		for y := range m {
			if q[y] == 0 {
				continue
			}
			mx := math.Inf(-1)
			for x := range m {
				if theta[x] > 0 {
					mx = max(mx, log(theta[x])+lC(x, y))
				}
			}
			if mx == math.Inf(-1) {
				continue
			}
			s := 0.0
			for x := range m {
				if theta[x] > 0 {
					s += math.Exp(log(theta[x]) + lC(x, y) - mx)
				}
			}
			lden := mx + math.Log(s)
			for x := range m {
				if theta[x] > 0 {
					next[x] += q[y] * math.Exp(log(theta[x])+lC(x, y)-lden)
				}
			}
		}
		normalize(next)
		theta = next
	}
	return theta
}

// TestOpErrors: bad arguments to the operators are refused with a one-line
// error, never a panic.
func TestOpErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	g, _ := NewGrid(4, 5)
	m := g.Len()
	b := mustBA(t, g, uniform(m), BAConfig{Beta: 1, Iterations: 2})
	lap, _ := NewLaplaceOp(g, g.Widen(1), 1)
	rr, _ := NewRROp(g, 1)
	oneLine := func(name string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%s: multi-line error %q", name, err)
		}
	}
	for _, op := range []ChannelOp{b, lap, rr, b.Channel()} {
		in, out := op.Grids()
		name := fmt.Sprintf("%T", op)
		oneLine(name+" apply short", op.Apply(make([]float64, in.Len()), make([]float64, out.Len()-1)))
		oneLine(name+" apply dst", op.Apply(make([]float64, in.Len()+1), make([]float64, out.Len())))
		neg := make([]float64, out.Len())
		neg[1] = -1
		oneLine(name+" apply negative", op.Apply(make([]float64, in.Len()), neg))
		nan := make([]float64, in.Len())
		nan[0] = math.NaN()
		oneLine(name+" apply transpose NaN", op.ApplyT(make([]float64, out.Len()), nan))
		oneLine(name+" sample nil rng", op.Sample(nil, 0, 1, make([]int, out.Len())))
		oneLine(name+" sample cell", op.Sample(rng, in.Len(), 1, make([]int, out.Len())))
		oneLine(name+" sample count", op.Sample(rng, 0, -1, make([]int, out.Len())))
		oneLine(name+" sample out", op.Sample(rng, 0, 1, make([]int, out.Len()+2)))
		_, err := Obfuscate(rng, make([]int, in.Len()+1), op)
		oneLine(name+" obfuscate counts", err)
		_, _, err = IBU(op, make([]float64, out.Len()), nil, IBUConfig{Iterations: 1})
		oneLine(name+" ibu zero q", err)
		_, err = Marginal([]float64{1}, op)
		oneLine(name+" marginal prior", err)
	}
	var zero BAChannel
	oneLine("zero BA apply", zero.Apply(nil, nil))
	oneLine("zero BA sample", zero.Sample(rng, 0, 1, nil))
	if _, err := zero.TightEpsilon(); err == nil {
		t.Error("zero BA channel: tight eps without error")
	}
	var zl LaplaceOp
	oneLine("zero LAP apply", zl.Apply(nil, nil))
	_, err := NewLaplaceOp(g.Widen(1), g, 1)
	oneLine("LAP output inside input", err)
	_, err = NewLaplaceOp(g, g, math.NaN())
	oneLine("LAP eps NaN", err)
	_, err = NewRROp(g, 0)
	oneLine("RR eps 0", err)
	_, err = NewRROp(Grid{Rows: 0, Cols: 3}, 1)
	oneLine("RR bad grid", err)
	_, err = Obfuscate(rng, []int{1}, nil)
	oneLine("obfuscate nil op", err)
	_, _, err = GIBU(nil, nil, IBUConfig{Iterations: 1})
	oneLine("gibu no batches", err)
	_, _, err = GIBU([]Batch{{lap, make([]float64, lap.Out.Len())}, {}}, nil, IBUConfig{Iterations: 1})
	oneLine("gibu nil op", err)
	_, err = AvgDistortion(uniform(m), fakeOp{rr})
	oneLine("metrics of an unknown operator", err)
	big, _ := NewGrid(200, 200)
	bb := mustBA(t, big, uniform(big.Len()), BAConfig{Beta: 1, Iterations: 1})
	_, err = bb.Dense()
	oneLine("dense 200x200 BA channel", err)
	if bb.Channel() != nil {
		t.Error("Channel materialised a 40,000-cell channel")
	}
}

// fakeOp is an operator the package does not know.
type fakeOp struct{ ChannelOp }

// TestOpsSmallAreDense: below the FFT threshold the package-level
// functions give a structured operator's results bit for bit equal to the
// dense functions on its channel, random draws included.
func TestOpsSmallAreDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	g, prior := islandCity(t, rng, 11, 15)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.7, Iterations: 10})
	lap, _ := NewLaplaceOp(g, g.Widen(5), 1.1)
	lapD, _ := Laplace(g, g.Widen(5), 1.1)
	rr, _ := NewRROp(g, 1.5)
	counts := make([]int, g.Len())
	for x, p := range prior {
		counts[x] = int(p * 10078)
	}
	for _, tc := range []opCase{{"ba", b, b.Channel()}, {"lap", lap, lapD}, {"rr", rr, rrChannel(g, 1.5)}} {
		got, err := Obfuscate(rand.New(rand.NewPCG(1, 2)), counts, tc.op)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Obfuscate(rand.New(rand.NewPCG(1, 2)), counts, tc.dense)
		for y := range want {
			if got[y] != want[y] {
				t.Fatalf("%s: reports of cell %d: %d, dense %d", tc.name, y, got[y], want[y])
			}
		}
		_, out := tc.op.Grids()
		q := islandPrior(rng, out.Rows, out.Cols)
		e1, _, err := IBU(tc.op, q, nil, IBUConfig{Iterations: 5})
		if err != nil {
			t.Fatal(err)
		}
		e2, _, _ := IBU(tc.dense, q, nil, IBUConfig{Iterations: 5})
		if d := maxAbsDiff(e1, e2); d != 0 && tc.name != "rr" {
			t.Errorf("%s: IBU differs from dense by %g", tc.name, d)
		}
		d1, _ := AvgDistortion(prior, tc.op)
		d2, _ := AvgDistortion(prior, tc.dense)
		if d1 != d2 && tc.name != "rr" {
			t.Errorf("%s: distortion %v, dense %v", tc.name, d1, d2)
		}
	}
}

// TestOpsConcurrent: one BA channel and one LAP operator on a large grid
// serve several goroutines at once (run with -race), with the results of
// a single goroutine.
func TestOpsConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(87, 88))
	g, prior := islandCity(t, rng, 32, 40)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.9, Iterations: 5})
	lap, _ := NewLaplaceOp(g, g.Widen(2), 0.9)
	for _, op := range []ChannelOp{b, lap} {
		in, out := op.Grids()
		v := islandVec(rng, out.Rows, out.Cols)
		want := make([]float64, in.Len())
		if err := op.Apply(want, v); err != nil {
			t.Fatal(err)
		}
		wantEps, _ := op.TightEpsilon()
		errs := make(chan error, 4)
		for k := range 4 {
			go func() {
				got := make([]float64, in.Len())
				for range 3 {
					if err := op.Apply(got, v); err != nil {
						errs <- err
						return
					}
					if i := closeVec(got, want, 1e-9); i >= 0 {
						errs <- fmt.Errorf("%T: entry %d: %v, alone %v", op, i, got[i], want[i])
						return
					}
					if e, _ := op.TightEpsilon(); e != wantEps {
						errs <- fmt.Errorf("%T: tight eps %v, alone %v", op, e, wantEps)
						return
					}
					rep := make([]int, out.Len())
					if err := op.Sample(rand.New(rand.NewPCG(uint64(k), 1)), 3, 100, rep); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	}
}

// An operator's product depends on its input only, not on the products
// before it: jobs that share a channel must get the same bits whatever
// order they run in. A point mass with a large beta leaves most entries of
// the full FFT uncertified, which used to steer the next product of the
// same pooled workspace onto the near/far split.
func TestOpProductsIndependentOfHistory(t *testing.T) {
	const R, C = 40, 45 // above fftMinCells: the FFT path
	rng := rand.New(rand.NewPCG(11, 12))
	prior := islandPrior(rng, R, C)
	g := Grid{Rows: R, Cols: C}
	for _, beta := range []float64{0.5, 4} {
		ba := mustBA(t, g, prior, BAConfig{Beta: beta, Iterations: 3})
		m := g.Len()
		smooth := make([]float64, m)
		for i := range smooth {
			smooth[i] = 1 + rng.Float64()
		}
		point := make([]float64, m)
		point[0] = 1
		for _, tr := range []bool{false, true} {
			apply := ba.Apply
			if tr {
				apply = ba.ApplyT
			}
			first := make([]float64, m)
			if err := apply(first, smooth); err != nil {
				t.Fatal(err)
			}
			scratch := make([]float64, m)
			for range 3 {
				if err := apply(scratch, point); err != nil {
					t.Fatal(err)
				}
			}
			again := make([]float64, m)
			if err := apply(again, smooth); err != nil {
				t.Fatal(err)
			}
			for i := range first {
				if math.Float64bits(first[i]) != math.Float64bits(again[i]) {
					t.Fatalf("beta %g transpose %v: entry %d is %v after other products, %v before", beta, tr, i, again[i], first[i])
				}
			}
		}
	}
}

// TestDenseFormMatchesChannel: a structured operator on a small grid goes
// through the dense kernels on its dense form, without the check of its
// rows that a *Channel gets on every call; the results are exactly those
// of the *Channel it materialises (same random stream, same estimates
// and iteration counts), and shapes and weights are still checked.
func TestDenseFormMatchesChannel(t *testing.T) {
	g, err := NewGrid(4, 5)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	prior := randPrior(rng, g.Len(), 0)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.7, Iterations: 6})
	lapOp, err := NewLaplaceOp(g, g.Widen(1), 1.5)
	if err != nil {
		t.Fatal(err)
	}
	lap, err := Laplace(g, g.Widen(1), 1.5)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, g.Len())
	for i := range counts {
		counts[i] = rng.IntN(200) // both multinomial methods
	}
	var ops, dense []Batch
	for _, tc := range []struct {
		op ChannelOp
		ch *Channel
	}{{b, b.Channel()}, {lapOp, lap}} {
		want, err := Obfuscate(rand.New(rand.NewPCG(3, 4)), counts, tc.ch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Obfuscate(rand.New(rand.NewPCG(3, 4)), counts, tc.op)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%T: Obfuscate %v, on the *Channel %v", tc.op, got, want)
		}
		q, w := make([]float64, len(got)), make([]float64, len(got))
		n := 0
		for _, k := range got {
			n += k
		}
		for y, k := range got {
			q[y], w[y] = float64(k)/float64(n), float64(k)
		}
		ops = append(ops, Batch{Channel: tc.op, Counts: w})
		dense = append(dense, Batch{Channel: tc.ch, Counts: w})
		for _, cfg := range []IBUConfig{{Iterations: 7}, {Delta: 1e-9}} {
			var w1, w2 IBUWorkspace
			e1, i1, err1 := w1.IBU(nil, tc.ch, q, prior, cfg)
			e2, i2, err2 := w2.IBU(nil, tc.op, q, prior, cfg)
			if err1 != nil || err2 != nil || i1 != i2 || !slices.Equal(e1, e2) {
				t.Fatalf("%T: IBU on the *Channel %v %d %v, on the operator %v %d %v", tc.op, e1, i1, err1, e2, i2, err2)
			}
		}
	}
	var w1, w2 IBUWorkspace
	e1, i1, err1 := w1.GIBU(nil, dense, nil, IBUConfig{Iterations: 9})
	e2, i2, err2 := w2.GIBU(nil, ops, nil, IBUConfig{Iterations: 9})
	if err1 != nil || err2 != nil || i1 != i2 || !slices.Equal(e1, e2) {
		t.Fatalf("GIBU on the *Channels %v %d %v, on the operators %v %d %v", e1, i1, err1, e2, i2, err2)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"Obfuscate, short counts", second(Obfuscate(rng, counts[:3], b)), fmt.Sprintf("obfuscate: counts has 3 entries, want %d", g.Len())},
		{"GIBU, zero counts", third(w2.GIBU(nil, []Batch{{Channel: b, Counts: make([]float64, g.Len())}}, nil, IBUConfig{Iterations: 1})), "gibu: batch 0: counts: total 0 must be finite and > 0"},
		{"IBU, short q", third(w2.IBU(nil, lapOp, []float64{1}, nil, IBUConfig{Iterations: 1})), "ibu: report distribution q"},
		{"IBU, nil channel", third(w2.IBU(nil, nil, nil, nil, IBUConfig{Iterations: 1})), "ibu: channel is nil"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, tc.err, tc.want)
		}
	}
}

// second and third return the error of a two- or three-valued call.
func second[A any](_ A, err error) error        { return err }
func third[A, B any](_ A, _ B, err error) error { return err }

// TestFactorisedSmallGrid: on a grid below DenseOpCells a BA channel is
// used in its dense form and BAChannel.Factorised in its factorised one:
// the two agree to rounding (IBU, marginal, metrics, MAP guesses), and
// the metrics of a log-domain channel's factorised form are refused.
func TestFactorisedSmallGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	g, prior := randCity(t, rng, 6, 7, 0.3)
	b := mustBA(t, g, prior, BAConfig{Beta: 0.9, Iterations: 7})
	f := b.Factorised()
	q := noErr[[]float64](t)(Marginal(prior, b))
	if qf := noErr[[]float64](t)(Marginal(prior, f)); closeVec(qf, q, 1e-12) >= 0 {
		t.Errorf("marginal: factorised %v, dense %v", qf, q)
	}
	est, _, err := IBU(b, q, nil, IBUConfig{Iterations: 12})
	if err != nil {
		t.Fatal(err)
	}
	estF, _, err := IBU(f, q, nil, IBUConfig{Iterations: 12})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(estF, est); d > 1e-12 {
		t.Errorf("IBU: factorised and dense differ by %g", d)
	}
	for name, m := range map[string]func([]float64, ChannelOp) (float64, error){
		"distortion": AvgDistortion, "mutual information": MutualInformation, "bayes vulnerability": BayesVulnerability,
	} {
		if vd, vf := noErr[float64](t)(m(prior, b)), noErr[float64](t)(m(prior, f)); !relClose(vf, vd, 1e-9) {
			t.Errorf("%s: factorised %v, dense %v", name, vf, vd)
		}
	}
	_, arg, err := MAPGuess(prior, b)
	if err != nil {
		t.Fatal(err)
	}
	_, argF, err := MAPGuess(prior, f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(argF, arg) {
		t.Errorf("MAP guesses: factorised %v, dense %v", argF, arg)
	}
	lb := mustBA(t, g, prior, BAConfig{Beta: 300, Iterations: 3})
	if !lb.logDomain {
		t.Fatal("beta = 300 should iterate in the log domain")
	}
	if _, err := AvgDistortion(prior, lb.Factorised()); err == nil || !strings.Contains(err.Error(), "avg distortion: not available for a factorised channel iterated in the log domain") {
		t.Errorf("log-domain factorised channel: error %v", err)
	}
	if _, err := AvgDistortion(prior, lb); err != nil {
		t.Errorf("log-domain channel in its dense form: %v", err)
	}
}

// noErr returns a function that returns the value of a two-valued call,
// failing t on its error.
func noErr[V any](t *testing.T) func(V, error) V {
	return func(v V, err error) V {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
