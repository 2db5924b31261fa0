package mechanism

import (
	"math"
	"strings"
	"testing"
)

func TestCoarsenedLiftsAndKeepsGeoInd(t *testing.T) {
	// A 5x7 grid in 2x2 blocks is a 3x4 block grid with partial blocks on
	// the last row and column. The lifted RR must: give every fine cell of
	// a block its block's row; put the coarse RR's mass on block middles;
	// stay eps-geo-indistinguishable in fine units.
	g := mustGrid(t, 5, 7)
	m := Coarsened{Base: RR{}, Factor: 2}
	if c := m.Coarse(g); c.Rows != 3 || c.Cols != 4 {
		t.Fatalf("coarse grid %v, want 3x4", c)
	}
	const eps = 0.9
	ch, err := m.Channel(g, g, nil, eps)
	if err != nil {
		t.Fatal(err)
	}
	checkStochastic(t, "coarse rr", ch, 1e-12)
	p, q := RRProbabilities(12, eps)
	// Fine (1,1) is in block (0,0) whose middle is (0,0); fine (4,6) is in
	// the partial block (2,3), a single cell.
	x := g.Index(1, 1)
	if got := ch.P[x*g.Len()+g.Index(0, 0)]; math.Abs(got-p) > 1e-15 {
		t.Errorf("C[(1,1),(0,0)] = %v, want p = %v", got, p)
	}
	if got := ch.P[x*g.Len()+g.Index(4, 6)]; math.Abs(got-q) > 1e-15 {
		t.Errorf("C[(1,1),(4,6)] = %v, want q = %v", got, q)
	}
	if got := ch.P[x*g.Len()+g.Index(1, 1)]; got != 0 {
		t.Errorf("C[(1,1),(1,1)] = %v, want 0 (not a block middle)", got)
	}
	te := bruteTightEps(ch)
	if cl := m.Claim(g, g, eps); te > cl.Hi*(1+1e-12) {
		t.Errorf("fine tight eps %v above claim %v", te, cl.Hi)
	}
	checkGeoInd(t, "coarse rr", ch, eps, 1e-15, 0)
}

func TestCoarsenedOptimalAggregatesPrior(t *testing.T) {
	// With Factor 1 the lift is the identity, so the lifted LP equals the
	// LP itself; with 2x2 blocks the lifted LP (solved on the aggregated
	// prior) must still be a stochastic, eps-geo-indistinguishable channel
	// on the fine grid, checked on every fine pair.
	g := mustGrid(t, 2, 3)
	prior := []float64{0.3, 0.05, 0.1, 0.25, 0.2, 0.1}
	direct, err := Optimal{Spanner: 1}.Channel(g, g, prior, 1)
	if err != nil {
		t.Fatal(err)
	}
	lifted, err := Coarsened{Base: Optimal{Spanner: 1}, Factor: 1}.Channel(g, g, prior, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range direct.P {
		if math.Abs(direct.P[i]-lifted.P[i]) > 1e-12 {
			t.Fatalf("factor 1: entry %d differs: %v vs %v", i, direct.P[i], lifted.P[i])
		}
	}
	big := mustGrid(t, 4, 6)
	bp := benchPrior(big)
	m := Coarsened{Base: Optimal{}, Factor: 2}
	ch, err := m.Channel(big, big, bp, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	checkStochastic(t, "lifted LP", ch, 1e-9)
	checkGeoInd(t, "lifted LP", ch, 0.8, 1e-7, 0)
	if _, err := (Coarsened{Base: Optimal{}, Factor: 2}).Channel(big, big.Widen(1), bp, 1); err == nil || !strings.Contains(err.Error(), "optimal-coarse2: output grid") || !strings.Contains(err.Error(), "must equal input grid") {
		t.Errorf("widened output: error %v", err)
	}
}
