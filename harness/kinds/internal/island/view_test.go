package island

import (
	"math"
	"math/rand/v2"
	"testing"

	"privic/kernels"
)

// viewPrior is a random prior with a deserted block around a and mass at
// a: an island.
func viewPrior(rng *rand.Rand, g kernels.Grid, a int) []float64 {
	p := make([]float64, g.Len())
	ar, ac := g.Cell(a)
	s := 0.0
	for i := range p {
		r, c := g.Cell(i)
		if max(abs(r-ar), abs(c-ac)) <= 3 && i != a {
			continue
		}
		p[i] = rng.ExpFloat64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// On a grid above kernels.DenseOpCells the statistics of a structured
// operator (rows from C^T e_x, MAP guesses from the columns C e_y) agree
// with those of its materialised matrix, for BA and for LAP on a widened
// output grid.
func TestViewOperatorMatchesDense(t *testing.T) {
	g := kernels.Grid{Rows: 33, Cols: 34} // 1,122 cells
	a, b := 10*34+8, 20*34+25
	prior := viewPrior(rand.New(rand.NewPCG(3, 4)), g, a)
	block := make([]bool, g.Len())
	ar, ac := g.Cell(a)
	for i := range block {
		r, c := g.Cell(i)
		block[i] = i != a && max(abs(r-ar), abs(c-ac)) <= 3
	}
	ba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: 0.6, Iterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	wide := g.Widen(3)
	lap, err := kernels.NewLaplaceOp(g, wide, 1.1)
	if err != nil {
		t.Fatal(err)
	}
	lapDense, err := kernels.Laplace(g, wide, 1.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		op    kernels.ChannelOp
		dense *kernels.Channel
	}{{"ba", ba, ba.Channel()}, {"lap", lap, lapDense}} {
		if kernels.DenseOf(tc.op) != nil {
			t.Fatalf("%s: the operator has a dense form on %d cells", tc.name, g.Len())
		}
		vo, err := NewView(prior, tc.op, Measures{})
		if err != nil {
			t.Fatal(err)
		}
		vd, err := NewView(prior, tc.dense, Measures{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []int{a, b} {
			so, err := vo.Stats(x, block)
			if err != nil {
				t.Fatal(err)
			}
			sd, err := vd.Stats(x, block)
			if err != nil {
				t.Fatal(err)
			}
			got := []float64{so.PDeserted, so.POutside, so.PBlock, so.PAt, so.PWithin1, so.PWithin2, so.ExpPriorMass,
				so.ExpDistance, float64(so.ModeRow), float64(so.ModeCol), so.ModeDistance, so.MAPIdent, so.ExpPosterior}
			want := []float64{sd.PDeserted, sd.POutside, sd.PBlock, sd.PAt, sd.PWithin1, sd.PWithin2, sd.ExpPriorMass,
				sd.ExpDistance, float64(sd.ModeRow), float64(sd.ModeCol), sd.ModeDistance, sd.MAPIdent, sd.ExpPosterior}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
					t.Errorf("%s at %d: %s = %v, dense %v", tc.name, x, StatsHeader()[i], got[i], want[i])
				}
			}
			ro, _ := vo.Row(x)
			rd, _ := vd.Row(x)
			for y := range rd {
				if math.Abs(ro[y]-rd[y]) > 1e-9*rd[y]+1e-300 {
					t.Fatalf("%s row %d entry %d: %v, dense %v", tc.name, x, y, ro[y], rd[y])
				}
			}
		}
	}
}
