package island

import (
	"math"
	"testing"

	"privic/kernels"
)

// TestStatsByHand checks every statistic on a 1x3 example worked out on
// paper.
func TestStatsByHand(t *testing.T) {
	g := kernels.Grid{Rows: 1, Cols: 3}
	ch := &kernels.Channel{In: g, Out: g, P: []float64{
		0.7, 0.25, 0.05,
		0.2, 0.6, 0.2,
		0.1, 0.3, 0.6,
	}}
	prior := []float64{0.6, 0, 0.4}
	v, err := NewView(prior, ch, Measures{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := v.Stats(2, []bool{false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	// q = prior.C = (0.46, 0.27, 0.27); the MAP guess is cell 0 for
	// reports 0 and 1 and cell 2 for report 2.
	want := LocStats{
		PDeserted: 0.3, PBlock: 0.3, PAt: 0.6, PWithin1: 0.9, PWithin2: 1,
		ExpPriorMass: 0.1*0.6 + 0.6*0.4, ExpDistance: 0.1*2 + 0.3*1,
		ModeRow: 0, ModeCol: 2, ModeDistance: 0,
		MAPIdent:     0.6,
		ExpPosterior: 0.1*0.04/0.46 + 0.3*0.12/0.27 + 0.6*0.24/0.27,
	}
	got := []float64{s.PDeserted, s.POutside, s.PBlock, s.PAt, s.PWithin1, s.PWithin2, s.ExpPriorMass, s.ExpDistance,
		float64(s.ModeRow), float64(s.ModeCol), s.ModeDistance, s.MAPIdent, s.ExpPosterior}
	exp := []float64{want.PDeserted, want.POutside, want.PBlock, want.PAt, want.PWithin1, want.PWithin2, want.ExpPriorMass, want.ExpDistance,
		float64(want.ModeRow), float64(want.ModeCol), want.ModeDistance, want.MAPIdent, want.ExpPosterior}
	for i := range got {
		if math.Abs(got[i]-exp[i]) > 1e-12 {
			t.Errorf("%s = %v, want %v", StatsHeader()[i], got[i], exp[i])
		}
	}
}
