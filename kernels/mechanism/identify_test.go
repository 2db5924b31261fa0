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
// form for RR, exponential form for BA and LAP) equal kernels.TightEps.
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
			want, err := kernels.TightEps(ch)
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
