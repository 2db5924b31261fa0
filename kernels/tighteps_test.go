package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTightEpsClosedForms(t *testing.T) {
	line := Grid{Rows: 1, Cols: 2} // two cells at distance 1
	two := func(a, b float64) *Channel {
		ch, _ := NewChannel(line, line)
		copy(ch.P, []float64{a, 1 - a, b, 1 - b})
		return ch
	}
	for _, tc := range []struct {
		name string
		ch   *Channel
		want float64
	}{
		{"symmetric 0.8", two(0.8, 0.2), math.Log(4)},
		{"asymmetric", two(0.9, 0.6), max(math.Log(0.9/0.6), math.Log(0.4/0.1))},
		{"uniform", two(0.5, 0.5), 0},
		{"identity", two(1, 0), math.Inf(1)},
		// Column 1 is all zero: skipped, column 0 gives 0.
		{"constant output", two(1, 1), 0},
	} {
		got, err := tc.ch.TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want && math.Abs(got-tc.want) > 1e-14 {
			t.Errorf("%s: TightEps = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Distance matters: cells 3 apart.
	far := Grid{Rows: 1, Cols: 4}
	ch, _ := NewChannel(far, Grid{Rows: 1, Cols: 2})
	copy(ch.P, []float64{0.8, 0.2, 0.8, 0.2, 0.8, 0.2, 0.2, 0.8})
	// Pairs (x, 3): distances 3, 2, 1; the ratio is ln 4 each, largest over distance 1.
	if got, _ := ch.TightEpsilon(); math.Abs(got-math.Log(4)) > 1e-14 {
		t.Errorf("TightEps = %v, want ln 4", got)
	}
	one, _ := NewChannel(Grid{Rows: 1, Cols: 1}, line)
	for _, row := range [][]float64{{0.3, 0.7}, {0, 1}} { // a zero entry has nothing to compare with
		copy(one.P, row)
		if got, err := one.TightEpsilon(); err != nil || got != 0 {
			t.Errorf("single input %v: %v, %v; want 0", row, got, err)
		}
	}
	if _, err := (*Channel)(nil).TightEpsilon(); err == nil || !strings.Contains(err.Error(), "tight eps: channel is nil") {
		t.Errorf("nil channel: error %v", err)
	}
	bad := two(0.5, 0.5)
	bad.P[0] = math.NaN()
	if _, err := bad.TightEpsilon(); err == nil || !strings.Contains(err.Error(), "tight eps: channel[0,0] = NaN: entries must be finite and >= 0") {
		t.Errorf("NaN channel: error %v", err)
	}
	bad.P[0] = 0.6
	if _, err := bad.TightEpsilon(); err == nil || !strings.Contains(err.Error(), "tight eps: channel row 0 sums to 1.1, want 1") {
		t.Errorf("row sum 1.1: error %v", err)
	}
}

// TestTightEpsBruteForceVsDefinition checks the brute force against the
// definition evaluated with Dist on random channels with widened outputs.
func TestTightEpsBruteForceVsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := 0; trial < 10; trial++ {
		in, _ := NewGrid(1+rng.IntN(4), 1+rng.IntN(5))
		ch := randChannel(rng, in, in.Widen(1), 0)
		want := 0.0
		m, n := in.Len(), ch.Out.Len()
		for y := 0; y < n; y++ {
			for x := 0; x < m; x++ {
				for x2 := 0; x2 < m; x2++ {
					if x != x2 {
						want = max(want, math.Abs(math.Log(ch.P[x*n+y])-math.Log(ch.P[x2*n+y]))/Dist(in, x, in, x2))
					}
				}
			}
		}
		got, err := ch.TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*max(1, want) {
			t.Errorf("%v: TightEps %v, definition %v", in, got, want)
		}
	}
}

// TestBATightEpsParis: fast form vs brute force on the empirical Paris
// prior at the paper's betas.
func TestBATightEpsParis(t *testing.T) {
	forParisBetas(t, func(beta float64, _ Grid, _ []float64, b *BAChannel) {
		brute, err := b.Channel().TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		if fast := mustTightEps(t, b); math.Abs(fast-brute) > 1e-9*brute || fast > 2*beta+1e-9 {
			t.Errorf("beta=%v: fast %v, brute force %v (bound %v)", beta, fast, brute, 2*beta)
		}
	})
}

// TestLogSubnormal: the package's log is right for subnormal inputs,
// where math.Log on amd64 is not (golang/go#56600), and tight epsilon of a
// channel with subnormal entries uses it.
func TestLogSubnormal(t *testing.T) {
	for _, e := range []int{-1074, -1060, -1030, -1023, -1022, -1000, 0, 5} {
		x := math.Ldexp(1, e)
		if got, want := log(x), float64(e)*math.Ln2; math.Abs(got-want) > 1e-12*math.Abs(want)+1e-15 {
			t.Errorf("log(2^%d) = %v, want %v", e, got, want)
		}
	}
	if got, want := log(3*math.Ldexp(1, -1070)), math.Log(3)-1070*math.Ln2; math.Abs(got-want) > 1e-12 {
		t.Errorf("log(3*2^-1070) = %v, want %v", got, want)
	}
	line := Grid{Rows: 1, Cols: 2}
	ch, _ := NewChannel(line, line)
	a, b := math.Ldexp(1, -1060), math.Ldexp(1, -1070)
	copy(ch.P, []float64{1 - a, a, 1 - b, b})
	if got, want := mustTightEps(t, ch), 10*math.Ln2; math.Abs(got-want) > 1e-9 {
		t.Errorf("tight eps with subnormal entries %v, want 10 ln 2 = %v", got, want)
	}
}

func mustTightEps(t *testing.T, op ChannelOp) float64 {
	t.Helper()
	e, err := op.TightEpsilon()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTightEpsExpMatchesBruteForce: the O(|X||Y|) form equals the brute
// force on BA channels (random priors with zeros) and on LAP channels over
// base, widened and offset output grids.
func TestTightEpsExpMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 30; trial++ {
		g := Grid{Rows: 1 + rng.IntN(6), Cols: 1 + rng.IntN(7)}
		k := 0.05 + 3*rng.Float64()
		prior := make([]float64, g.Len())
		s := 0.0
		for i := range prior {
			if rng.IntN(4) > 0 {
				prior[i] = rng.Float64()
				s += prior[i]
			}
		}
		if s == 0 {
			prior[0], s = 1, 1
		}
		for i := range prior {
			prior[i] /= s
		}
		ba := mustBA(t, g, prior, BAConfig{Beta: k, Iterations: 1 + rng.IntN(10)})
		lapW, err := Laplace(g, g.Widen(rng.IntN(4)), k)
		if err != nil {
			t.Fatal(err)
		}
		lapOff, err := Laplace(g, Grid{Rows: g.Rows + 1, Cols: g.Cols, Row0: 1}, k)
		if err != nil {
			t.Fatal(err)
		}
		for name, ch := range map[string]*Channel{"ba": ba.Channel(), "lap-widened": lapW, "lap-offset": lapOff} {
			want, err := ch.TightEpsilon()
			if err != nil {
				t.Fatal(err)
			}
			got, err := TightEpsExp(ch, k)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-9*max(1, want) {
				t.Errorf("trial %d %s %v k=%v: TightEpsExp %v, brute force %v", trial, name, g, k, got, want)
			}
		}
	}
	for _, k := range []float64{-1, 0, math.NaN(), math.Inf(1)} {
		want := fmt.Sprintf("tight eps: k = %v: must be finite and > 0", k)
		if _, err := TightEpsExp(&Channel{In: Grid{Rows: 1, Cols: 2}, Out: Grid{Rows: 1, Cols: 2}, P: []float64{1, 0, 0, 1}}, k); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("k = %v: error %v, want one saying %q", k, err, want)
		}
	}
}

// TestTightEpsExpUnderflow: on a 5 x 5 LAP channel at eps = 200 the
// entries between cells more than 3.7 apart underflow to 0, so the brute
// force is +Inf, but the centre cell's column (distances <= 2 sqrt 2) is
// positive, and TightEpsExp gives the exact channel's tight epsilon,
// eps + max |ln Z(x) - ln Z(x')| / d(x,x') with Z(x) = sum over y of
// e^{-eps d(x,y)} (here within 1e-200 of 1, so eps itself).
func TestTightEpsExpUnderflow(t *testing.T) {
	g := Grid{Rows: 5, Cols: 5}
	const eps = 200
	ch, err := Laplace(g, g, eps)
	if err != nil {
		t.Fatal(err)
	}
	if brute := mustTightEps(t, ch); !math.IsInf(brute, 1) {
		t.Fatalf("brute force %v, want +Inf from the underflowed entries", brute)
	}
	lz := make([]float64, g.Len())
	for x := range lz {
		z := 0.0
		for y := range lz {
			z += math.Exp(-eps * Dist(g, x, g, y))
		}
		lz[x] = math.Log(z)
	}
	want := eps + bruteMaxLogRatio(g, lz)
	got, err := TightEpsExp(ch, eps)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("TightEpsExp %v, want %v", got, want)
	}
}

// TestTightEpsScansPositiveColumnsOnly is the regression test for the
// fine-resolution study that stopped finishing: a channel lifted from a
// coarse grid (the optimal mechanism on blocks) has one positive column
// per block and zeros elsewhere, and the brute force must tell the zero
// columns apart in one pass each, scanning pairs only where every entry is
// positive. When each column was scanned pair by pair, a 9,680-cell
// lifted channel cost 9,680 scans of 4.7e7 pairs at every calibration
// step instead of 24.
func TestTightEpsScansPositiveColumnsOnly(t *testing.T) {
	g := Grid{Rows: 6, Cols: 8}
	m := g.Len()
	// Outputs 5, 17 and 40 are the blocks' representatives; rows differ, so
	// the tight epsilon is positive and finite.
	reps := []int{5, 17, 40}
	lifted, _ := NewChannel(g, g)
	rng := rand.New(rand.NewPCG(3, 4))
	for x := range m {
		row := lifted.Row(x)
		w := []float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}
		s := w[0] + w[1] + w[2]
		for i, y := range reps {
			row[y] = w[i] / s
		}
	}
	mixed, _ := NewChannel(g, g) // column 0 is 0 in row 0 only: +Inf
	for x := range m {
		mixed.Row(x)[0], mixed.Row(x)[1] = 0.5, 0.5
	}
	mixed.Row(0)[0], mixed.Row(0)[1] = 0, 1
	constant, _ := NewChannel(g, g) // every row the same: 0
	for x := range m {
		constant.Row(x)[7] = 1
	}
	for _, tc := range []struct {
		name      string
		ch        *Channel
		wantScans int
		inf       bool
	}{
		{"lifted, 3 positive columns", lifted, 3, false},
		{"zero beside a positive", mixed, 0, true},
		{"constant", constant, 1, false},
	} {
		eps, scans, err := TightEpsScans(tc.ch)
		if err != nil {
			t.Fatal(err)
		}
		if scans != tc.wantScans {
			t.Errorf("%s: %d columns scanned pair by pair, want %d (zero columns need one pass each)", tc.name, scans, tc.wantScans)
		}
		if math.IsInf(eps, 1) != tc.inf {
			t.Errorf("%s: TightEps = %v, +Inf expected: %v", tc.name, eps, tc.inf)
		}
		// The brute force over the definition agrees.
		want := 0.0
		n := tc.ch.Out.Len()
		for y := range n {
			for x := range m {
				for x2 := range m {
					a, b := tc.ch.P[x*n+y], tc.ch.P[x2*n+y]
					if x == x2 || (a == 0 && b == 0) {
						continue
					}
					want = max(want, math.Abs(math.Log(a)-math.Log(b))/Dist(g, x, g, x2))
				}
			}
		}
		if eps != want && math.Abs(eps-want) > 1e-14*want {
			t.Errorf("%s: TightEps = %v, definition %v", tc.name, eps, want)
		}
	}
}
