package mechanism

import (
	"math"
	"strings"
	"testing"

	"privic/kernels"
)

func TestIdentificationRRClosedForm(t *testing.T) {
	// k-RR with a uniform prior: the column of a report sums to
	// p + (k-1) q = 1, so P(x=a | y=a) = p and P(x=a | y != a) = q. The
	// averaged posterior is p*p + (k-1)*q*q; the MAP guess is the report
	// itself, so the MAP adversary is right exactly when y = a: p.
	g := mustGrid(t, 3, 4)
	k := g.Len()
	for _, eps := range []float64{0.1, 1, 4} {
		ch, err := RR{}.Channel(g, g, nil, eps)
		if err != nil {
			t.Fatal(err)
		}
		p, q := RRProbabilities(k, eps)
		post, mp, err := Identification(uniformPrior(k), ch, 5)
		if err != nil {
			t.Fatal(err)
		}
		if want := p*p + float64(k-1)*q*q; math.Abs(post-want) > 1e-13 {
			t.Errorf("eps=%v: posterior %v, want %v", eps, post, want)
		}
		if math.Abs(mp-p) > 1e-13 {
			t.Errorf("eps=%v: MAP %v, want %v", eps, mp, p)
		}
	}
}

func TestIdentificationPriorMatters(t *testing.T) {
	// Binary RR with prior (pa, 1-pa) on two cells. Report a: posterior
	// pa p / (pa p + (1-pa) q); report b: pa q / (pa q + (1-pa) p). With a
	// prior strong enough that a is the MAP guess for both reports, the MAP
	// adversary always names a.
	g := mustGrid(t, 1, 2)
	const eps = 0.5
	ch, err := RR{}.Channel(g, g, nil, eps)
	if err != nil {
		t.Fatal(err)
	}
	p, q := RRProbabilities(2, eps)
	for _, pa := range []float64{0.2, 0.5, 0.9} {
		prior := []float64{pa, 1 - pa}
		post, mp, err := Identification(prior, ch, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := p*pa*p/(pa*p+(1-pa)*q) + q*pa*q/(pa*q+(1-pa)*p)
		if math.Abs(post-want) > 1e-13 {
			t.Errorf("pa=%v: posterior %v, want %v", pa, post, want)
		}
		var wantMAP float64
		switch {
		case pa*q > (1-pa)*p: // a wins both reports
			wantMAP = 1
		case pa*p > (1-pa)*q: // a wins only its own report
			wantMAP = p
		}
		if pa == 0.5 {
			wantMAP = p
		}
		if math.Abs(mp-wantMAP) > 1e-13 {
			t.Errorf("pa=%v: MAP %v, want %v", pa, mp, wantMAP)
		}
	}
	if _, _, err := Identification([]float64{0.5, 0.5}, ch, 2); err == nil || !strings.Contains(err.Error(), "identification: cell 2 outside the 2 cells of") {
		t.Errorf("cell outside the grid: error %v", err)
	}
}

// TestTightEpsOfMatchesBruteForce: the fast routes of TightEpsOf (closed
// form for RR, exponential form for BA and LAP) equal kernels.Channel.TightEpsilon.
func TestTightEpsOfMatchesBruteForce(t *testing.T) {
	in := kernels.Grid{Rows: 4, Cols: 5}
	prior := make([]float64, in.Len())
	for i := range prior {
		prior[i] = float64(1+i%3) / 1
	}
	s := 0.0
	for _, v := range prior {
		s += v
	}
	for i := range prior {
		prior[i] /= s
	}
	cases := []struct {
		m   Mechanism
		out kernels.Grid
	}{{RR{}, in}, {BA{}, in}, {LAP{}, in}, {LAP{}, in.Widen(2)}}
	for _, c := range cases {
		for _, p := range []float64{0.3, 1, 2.5} {
			ch, err := c.m.Channel(in, c.out, prior, p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ch.TightEpsilon()
			if err != nil {
				t.Fatal(err)
			}
			got, err := TightEpsOf(c.m, p, ch)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %v p=%v: TightEpsOf %v, brute force %v", c.m.Info().Name, c.out, p, got, want)
			}
		}
	}
}

func TestIdentificationOfAnExactChannel(t *testing.T) {
	// The identity channel reveals every cell: for a user at any a with
	// prior(a) > 0 the posterior of a is 1 and the MAP guess is a, whatever
	// the other rows report where a's row is 0.
	g := mustGrid(t, 1, 3)
	ch, err := kernels.NewChannel(g, g)
	if err != nil {
		t.Fatal(err)
	}
	for x := 0; x < 3; x++ {
		ch.P[x*3+x] = 1
	}
	prior := []float64{0.5, 0.3, 0.2}
	for a := 0; a < 3; a++ {
		post, mp, err := Identification(prior, ch, a)
		if err != nil {
			t.Fatal(err)
		}
		if post != 1 || mp != 1 {
			t.Errorf("a = %d: posterior %v, MAP %v, want 1 and 1", a, post, mp)
		}
	}
}

func TestIdentificationTiesWithinRelative1e12(t *testing.T) {
	// A channel from two cells to three under the uniform prior: in report
	// 0 the products prior(x) C[x,0] are 1/4 for x = 0 and (1/4)b for x = 1,
	// b = 1-1e-12, exactly at the relative 1e-12 that Identification
	// counts as a tie, so both cells are MAP guesses and share the report;
	// report 1 comes only from cell 0 and report 2 only from cell 1.
	in, out := mustGrid(t, 1, 2), mustGrid(t, 1, 3)
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	b := 1 - 1e-12
	copy(ch.P, []float64{0.5, 0.5, 0, 0.5 * b, 0, 1 - 0.5*b})
	prior := []float64{0.5, 0.5}
	c10, c12 := ch.P[3], ch.P[5]
	for _, c := range []struct {
		a                 int
		wantPost, wantMAP float64
	}{
		// P(x=1 | y=0) = b/(1+b); report 2 names 1 for sure.
		{1, c10*b/(1+b) + c12, c10/2 + c12},
		// P(x=0 | y=0) = 1/(1+b); report 1 names 0 for sure.
		{0, 0.5/(1+b) + 0.5, 0.5/2 + 0.5},
	} {
		post, mp, err := Identification(prior, ch, c.a)
		if err != nil {
			t.Fatal(err)
		}
		if mp != c.wantMAP || math.Abs(post-c.wantPost) > 1e-15 {
			t.Errorf("a = %d: posterior %v, MAP %v, want %v and %v", c.a, post, mp, c.wantPost, c.wantMAP)
		}
	}
}

func TestIdentificationOperatorEdgeCells(t *testing.T) {
	// Identification on the RR operator at the first and last cells
	// matches the k-RR closed form (posterior p² + (k-1) q², MAP p under
	// the uniform prior); cells -1 and k are refused with the reason.
	g := mustGrid(t, 2, 3)
	k := g.Len()
	const eps = 1.3
	op, err := RR{}.Op(g, g, nil, eps)
	if err != nil {
		t.Fatal(err)
	}
	p, q := RRProbabilities(k, eps)
	for _, a := range []int{0, k - 1} {
		post, mp, err := Identification(uniformPrior(k), op, a)
		if err != nil {
			t.Fatal(err)
		}
		if want := p*p + float64(k-1)*q*q; math.Abs(post-want) > 1e-14 || math.Abs(mp-p) > 1e-14 {
			t.Errorf("a = %d: posterior %v, MAP %v, want %v and %v", a, post, mp, want, p)
		}
	}
	for _, a := range []int{-1, k} {
		_, _, err := Identification(uniformPrior(k), op, a)
		if want := "outside the 6 cells"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a = %d: error %v, want one saying %q", a, err, want)
		}
	}
}

func TestMeasureOperatorSaysTheBayesErrorWork(t *testing.T) {
	// The Bayes error left out by Measure on an operator is |Y| |X|^2
	// operations: 16 reports times 4^2 guesses-by-cells for LAP from 2x2
	// to its 4x4 widening. Given the mechanism, Measure computes it on
	// the mechanism's dense channel, as on that channel itself.
	in := mustGrid(t, 2, 2)
	out := in.Widen(1)
	op, err := LAP{}.Op(in, out, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, skipped, err := Measure(uniformPrior(in.Len()), op, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(m.BayesError) || len(skipped) == 0 {
		t.Fatalf("Bayes error %v, skipped %q", m.BayesError, skipped)
	}
	last := skipped[len(skipped)-1]
	for _, want := range []string{"a minimum over 4 guesses for each of 16 reports", "O(|Y| |X|^2) = 256 operations"} {
		if !strings.Contains(last, want) {
			t.Errorf("skipped %q, want it to say %q", last, want)
		}
	}
	m, skipped, err = Measure(uniformPrior(in.Len()), op, LAP{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := LAP{}.Channel(in, out, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Measure(uniformPrior(in.Len()), ch, LAP{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 0 || !(m.BayesError > 0) || m.BayesError != want.BayesError {
		t.Errorf("with the mechanism: Bayes error %v (dense %v), skipped %q", m.BayesError, want.BayesError, skipped)
	}
}
