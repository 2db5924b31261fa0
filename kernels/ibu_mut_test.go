package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkIBUStopsStrictlyBelowDelta checks the stopping rule of an IBU
// variant at its boundary: convergence mode stops at the first r with
// max_x |theta_r(x) - theta_{r-1}(x)| < Delta, strictly. The changes are
// computed here from the estimates the runs return: first roughly, from
// runs capped at r updates (Delta 1e-300 never stops them early; some
// variants renormalise a capped estimate once more, which moves its last
// bits), then exactly, from runs that stop at r-1 and at r on Deltas
// just above those rough changes (the estimates the stopping test
// compared). With Delta equal to the exact change of update r (below
// every earlier change and above the next) the run must go on to r+1,
// and with Delta the next float above, stop at r.
func checkIBUStopsStrictlyBelowDelta(t *testing.T, name string, run func(cfg IBUConfig) ([]float64, int, error)) {
	t.Helper()
	const maxR = 16
	capped := func(r int) []float64 {
		th, it, err := run(IBUConfig{Delta: 1e-300, MaxIterations: r})
		if err != nil || it != r {
			t.Fatalf("%s: capped at %d: %d iterations, %v", name, r, it, err)
		}
		return append([]float64(nil), th...)
	}
	start := uniform(len(capped(1)))
	rough := []float64{0} // rough[r]: the change of update r
	prev := start
	for r := 1; r <= maxR+1; r++ {
		cur := capped(r)
		rough = append(rough, maxAbsDiff(cur, prev))
		prev = cur
	}
	const eps = 1e-7
	// below reports whether rough[r] is clearly below every earlier change.
	below := func(r int) bool {
		for s := 1; s < r; s++ {
			if rough[r]*(1+eps) >= rough[s] {
				return false
			}
		}
		return true
	}
	stopped := func(r int) []float64 {
		if r == 0 {
			return start
		}
		th, it, err := run(IBUConfig{Delta: rough[r] * (1 + eps), MaxIterations: 100})
		if err != nil || it != r {
			t.Fatalf("%s: delta just above the rough change of update %d: stopped after %d (%v)", name, r, it, err)
		}
		return append([]float64(nil), th...)
	}
	tested := 0
	for r := 2; r <= maxR; r++ {
		if !below(r) || !below(r-1) || rough[r+1] >= rough[r]*(1-eps) {
			continue
		}
		tested++
		d := maxAbsDiff(stopped(r), stopped(r-1))
		if _, it, err := run(IBUConfig{Delta: d, MaxIterations: 100}); err != nil || it != r+1 {
			t.Errorf("%s: delta = change of update %d (%v): stopped after %d (%v), want %d", name, r, d, it, err, r+1)
		}
		if _, it, err := run(IBUConfig{Delta: nextUp(d), MaxIterations: 100}); err != nil || it != r {
			t.Errorf("%s: delta just above the change of update %d: stopped after %d (%v), want %d", name, r, it, err, r)
		}
	}
	if tested == 0 {
		t.Fatalf("%s: no two successive updates whose changes are below every earlier one: %v", name, rough[1:])
	}
}

func nextUp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }

// TestIBUStopsStrictlyBelowDelta: the boundary of the stopping rule in
// every IBU path: dense IBU, GIBU over two batches, the factorised IBU on
// a small BA channel, and on a large one (FFT products) in the linear and
// the log domain.
func TestIBUStopsStrictlyBelowDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	g, _ := NewGrid(3, 4)
	ch := randChannel(rng, g, g, 0)
	q := randPrior(rng, g.Len(), 0)
	var ws IBUWorkspace
	checkIBUStopsStrictlyBelowDelta(t, "dense IBU", func(cfg IBUConfig) ([]float64, int, error) {
		return ws.IBU(nil, ch, q, nil, cfg)
	})
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	batches := []Batch{{ch, randPrior(rng, g.Len(), 0)}, {ch2, randPrior(rng, ch2.Out.Len(), 0)}}
	checkIBUStopsStrictlyBelowDelta(t, "GIBU", func(cfg IBUConfig) ([]float64, int, error) {
		return ws.GIBU(nil, batches, nil, cfg)
	})
	for _, tc := range []struct {
		rows, cols int
		beta       float64
		log        bool
	}{{5, 6, 0.9, false}, {32, 32, 2, false}, {32, 32, 40, true}} {
		gb, prior := randCity(t, rng, tc.rows, tc.cols, 0.2)
		var bw BAWorkspace
		b, err := bw.ba(gb, prior, BAConfig{Beta: tc.beta, Iterations: 5}, tc.log)
		if err != nil {
			t.Fatal(err)
		}
		qb := randPrior(rng, gb.Len(), 0)
		name := fmt.Sprintf("IBU on BA %v log=%v", gb, tc.log)
		t.Run(name, func(t *testing.T) {
			checkIBUStopsStrictlyBelowDelta(t, name, func(cfg IBUConfig) ([]float64, int, error) {
				return ws.IBUOnBA(nil, b, qb, nil, cfg)
			})
		})
	}
}

// TestIBUUniformFixedPoint: when the reports are exactly those the uniform
// input produces (q = u C), the uniform start is a fixed point of IBU
// (theta_1(x) = u(x) sum_y C[x,y] = u(x)), so convergence mode stops after
// one update, in every IBU path: the first change is measured from the
// uniform start itself.
func TestIBUUniformFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	const delta = 1e-9
	g, _ := NewGrid(3, 4)
	ch := randChannel(rng, g, g, 0.2)
	u := uniform(g.Len())
	q, err := Marginal(u, ch)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, est []float64, it int, err error) {
		t.Helper()
		if err != nil || it != 1 || maxAbsDiff(est, uniform(len(est))) > 1e-15 {
			t.Errorf("%s: %d updates (%v), estimate %.3g from uniform; want 1 update, uniform", name, it, err, maxAbsDiff(est, uniform(len(est))))
		}
	}
	est, it, err := IBU(ch, q, nil, IBUConfig{Delta: delta})
	check("dense IBU", est, it, err)
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	q2, err := Marginal(u, ch2)
	if err != nil {
		t.Fatal(err)
	}
	est, it, err = GIBU([]Batch{{ch, q}, {ch2, q2}}, nil, IBUConfig{Delta: delta})
	check("GIBU", est, it, err)
	for _, tc := range []struct {
		rows, cols int
		beta       float64
		log        bool
	}{{5, 6, 0.9, false}, {5, 6, 0.9, true}, {32, 32, 2, false}, {32, 32, 40, true}} {
		gb, prior := randCity(t, rng, tc.rows, tc.cols, 0.2)
		var bw BAWorkspace
		b, err := bw.ba(gb, prior, BAConfig{Beta: tc.beta, Iterations: 5}, tc.log)
		if err != nil {
			t.Fatal(err)
		}
		ub := uniform(gb.Len())
		qb := make([]float64, gb.Len())
		if err := b.ApplyT(qb, ub); err != nil {
			t.Fatal(err)
		}
		est, it, err := b.IBU(toDist(qb), nil, IBUConfig{Delta: delta})
		check(fmt.Sprintf("IBU on BA %v log=%v", gb, tc.log), est, it, err)
	}
}

// scaled returns v times s, a new slice.
func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = s * x
	}
	return out
}

// TestGIBUCountScale: GIBU depends on the counts only through their
// proportions (each is divided by the total N), so counts scaled by
// 1e300 or 1e-300 (totals near the ends of the float range, where any
// unnormalised ratio would overflow or underflow) give the estimate of the
// unscaled counts; one batch of counts n q gives IBU with q.
func TestGIBUCountScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	g, _ := NewGrid(3, 4)
	ch := randChannel(rng, g, g, 0.1)
	ch2, _ := Laplace(g, g.Widen(1), 0.7)
	q := randPrior(rng, g.Len(), 0.2)
	counts2 := scaled(randPrior(rng, ch2.Out.Len(), 0.2), 3)
	cfg := IBUConfig{Iterations: 12}
	want, _, err := IBU(ch, q, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want2, _, err := GIBU([]Batch{{ch, q}, {ch2, counts2}}, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1e300, 1e-300, 7} {
		got, _, err := GIBU([]Batch{{ch, scaled(q, s)}}, nil, cfg)
		if err != nil || maxAbsDiff(got, want) > 1e-14 {
			t.Errorf("one batch of counts %g q: differs from IBU with q by %.3g (%v)", s, maxAbsDiff(got, want), err)
		}
		got, _, err = GIBU([]Batch{{ch, scaled(q, s)}, {ch2, scaled(counts2, s)}}, nil, cfg)
		if err != nil || maxAbsDiff(got, want2) > 1e-14 {
			t.Errorf("two batches, counts scaled by %g: differ from the unscaled estimate by %.3g (%v)", s, maxAbsDiff(got, want2), err)
		}
	}
}
