package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mapPrior is a random prior with a deserted block and some ties.
func mapPrior(rng *rand.Rand, g Grid) []float64 {
	p := make([]float64, g.Len())
	for i := range p {
		r, c := g.Cell(i)
		if r < g.Rows/3 && c < g.Cols/2 {
			continue
		}
		p[i] = float64(1 + rng.IntN(20)) // small integers: ties
	}
	return toDist(p)
}

// MAPGuess's guesses are maximum a posteriori on the materialised
// channel (within rounding of the factorised products, and the lowest
// index among exact ties), and its marginal is prior C, for BA and LAP
// above the dense threshold (window search), RR (closed form), a dense
// channel and an operator without structure (columns).
func TestMAPGuessOpIsMAP(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g, _ := NewGrid(33, 34)
	prior := mapPrior(rng, g)
	ba := mustBA(t, g, prior, BAConfig{Beta: 0.9, Iterations: 10})
	wide := g.Widen(3)
	lap, _ := NewLaplaceOp(g, wide, 1.3)
	lapDense, _ := Laplace(g, wide, 1.3)
	rr, _ := NewRROp(g, 2)
	small, _ := NewGrid(7, 8)
	sp := mapPrior(rng, small)
	rrSmall, _ := NewRROp(small, 0.5)
	for _, tc := range []struct {
		name  string
		op    ChannelOp
		dense *Channel
		prior []float64
	}{
		{"ba", ba, ba.Channel(), prior},
		{"lap", lap, lapDense, prior},
		{"rr", rr, rrChannel(g, 2), prior},
		{"rr small (dense)", rrSmall, rrChannel(small, 0.5), sp},
		{"columns", opaque{lap}, lapDense, prior},
	} {
		q, arg, err := MAPGuess(tc.prior, tc.op)
		if err != nil {
			t.Fatal(err)
		}
		ch := tc.dense
		n := ch.Out.Len()
		for y := range n {
			best, want := 0.0, -1
			sum := 0.0
			for x := range ch.In.Len() {
				v := tc.prior[x] * ch.P[x*n+y]
				sum += v
				if v > best {
					best, want = v, x
				}
			}
			if math.Abs(q[y]-sum) > 1e-9*sum+1e-300 {
				t.Fatalf("%s: q[%d] = %v, want %v", tc.name, y, q[y], sum)
			}
			if want < 0 {
				if arg[y] != -1 {
					t.Fatalf("%s: output %d reached by none, guess %d", tc.name, y, arg[y])
				}
				continue
			}
			got := tc.prior[arg[y]] * ch.P[arg[y]*n+y]
			if got < best*(1-1e-9) {
				t.Fatalf("%s: output %d: guess %d with %v, best %d with %v", tc.name, y, arg[y], got, want, best)
			}
			if got == best && arg[y] > want {
				t.Fatalf("%s: output %d: guess %d, the lower %d ties", tc.name, y, arg[y], want)
			}
		}
	}
}

// opaque hides an operator's type, so that MAPGuess takes the columns.
type opaque struct{ ChannelOp }
