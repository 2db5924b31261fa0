package mechanism

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"privic/kernels"
)

// rrMIUniform is the closed-form mutual information of k-RR under the
// uniform prior: the output is uniform too, so I = ln k - H(row) =
// ln k + p ln p + (k-1) q ln q.
func rrMIUniform(k int, eps float64) float64 {
	p, q := RRProbabilities(k, eps)
	return math.Log(float64(k)) + p*math.Log(p) + float64(k-1)*q*math.Log(q)
}

func TestCalibrateHitsTarget(t *testing.T) {
	g := mustGrid(t, 4, 5)
	prior := benchPrior(g)
	cases := []struct {
		m    Mechanism
		t    Target
		goal float64
	}{
		{RR{}, TargetEps, 0.7},
		{RR{}, TargetDistortion, 1.5},
		{RR{}, TargetMI, 0.4},
		{PlanarLaplace{}, TargetEps, 1.1},
		{PlanarLaplace{Point: CellCentre}, TargetDistortion, 0.8},
		{PlanarLaplace{}, TargetMI, 1.2},
		{BA{}, TargetEps, 0.9},
		{BA{}, TargetDistortion, 1.0},
		{BA{}, TargetMI, 0.3},
	}
	for _, c := range cases {
		for _, method := range []Method{Bisection, Illinois} {
			name := c.m.Info().Name + "/" + c.t.String() + "/" + method.String()
			res, err := Calibrate(context.Background(), c.m, g, g, prior, c.t, c.goal, CalibrateOptions{Method: method})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			// Rebuild the channel at the parameter found and measure it with
			// the test's own definitions.
			ch, err := c.m.Channel(g, g, prior, res.Param)
			if err != nil {
				t.Fatal(err)
			}
			var got float64
			switch c.t {
			case TargetEps:
				got = bruteTightEps(ch)
			case TargetDistortion:
				got = distortion(prior, ch)
			case TargetMI:
				got = mutualInfo(prior, ch)
			}
			if math.Abs(got-c.goal) > DefaultRelTol*c.goal {
				t.Errorf("%s: %s = %v gives %v, want %v within %g", name, c.m.Info().Param, res.Param, got, c.goal, DefaultRelTol)
			}
			if res.Value != got && math.Abs(res.Value-got) > 1e-12*got {
				t.Errorf("%s: reported value %v, measured %v", name, res.Value, got)
			}
			t.Logf("%s: %s = %.6g after %d channels", name, c.m.Info().Param, res.Param, res.Evals)
		}
	}
}

func TestCalibrateRRClosedForms(t *testing.T) {
	// RR's tight eps is its parameter (one evaluation), and its MI under
	// the uniform prior is known in closed form.
	g := mustGrid(t, 3, 3)
	res, err := Calibrate(context.Background(), RR{}, g, g, nil, TargetEps, 1.3, CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Param != 1.3 || res.Evals != 1 {
		t.Errorf("eps target: param %v after %d evaluations, want 1.3 after 1", res.Param, res.Evals)
	}
	res, err = Calibrate(context.Background(), RR{}, g, g, uniformPrior(9), TargetMI, 0.5, CalibrateOptions{RelTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if got := rrMIUniform(9, res.Param); math.Abs(got-0.5) > 1e-9*0.5 {
		t.Errorf("MI target 0.5: eps %v has closed-form MI %v", res.Param, got)
	}
}

func TestCalibrateOutOfReach(t *testing.T) {
	g := mustGrid(t, 3, 3)
	u := uniformPrior(9)
	// MI can never exceed ln 9; distortion can never exceed that of the
	// constant-uniform channel (RR at eps -> 0).
	maxD := 0.0
	for x := 0; x < 9; x++ {
		for y := 0; y < 9; y++ {
			maxD += kernels.Dist(g, x, g, y) / 81
		}
	}
	for _, c := range []struct {
		t    Target
		goal float64
	}{{TargetMI, math.Log(9) * 1.01}, {TargetDistortion, maxD * 1.01}} {
		_, err := Calibrate(context.Background(), RR{}, g, g, u, c.t, c.goal, CalibrateOptions{})
		if !errors.Is(err, ErrOutOfReach) || !strings.Contains(err.Error(), "out of reach") {
			t.Errorf("%v = %v: error %v, want out of reach", c.t, c.goal, err)
		}
	}
	if _, err := Calibrate(context.Background(), RR{}, g, g, u, TargetEps, -1, CalibrateOptions{}); err == nil || !strings.Contains(err.Error(), "calibrate rr: eps target -1: must be finite and > 0") {
		t.Errorf("negative goal: error %v", err)
	}
	if _, err := ParseTarget("qos"); err == nil || !strings.Contains(err.Error(), `unknown calibration target "qos" (known: eps, distortion, mi)`) {
		t.Errorf("ParseTarget(qos): error %v", err)
	}
	for _, s := range []string{"bisection", "illinois"} {
		if m, err := ParseMethod(s); err != nil || m.String() != s {
			t.Errorf("ParseMethod(%q) = %v, %v", s, m, err)
		}
	}
	for _, s := range Targets() {
		if tg, err := ParseTarget(s); err != nil || tg.String() != s {
			t.Errorf("ParseTarget(%q) = %v, %v", s, tg, err)
		}
	}
}

// mutualInfo is I(X;Y) in nats from the definition.
func mutualInfo(prior []float64, ch *kernels.Channel) float64 {
	m, n := ch.In.Len(), ch.Out.Len()
	q := make([]float64, n)
	for x := 0; x < m; x++ {
		for y := 0; y < n; y++ {
			q[y] += prior[x] * ch.P[x*n+y]
		}
	}
	s := 0.0
	for x := 0; x < m; x++ {
		for y := 0; y < n; y++ {
			if v := ch.P[x*n+y]; v > 0 && prior[x] > 0 {
				s += prior[x] * v * math.Log(v/q[y])
			}
		}
	}
	return s
}

// jumpy is RR whose epsilon jumps from 1 to 2 at parameter 1.
type jumpy struct{ RR }

func (jumpy) Info() Info { i := (RR{}).Info(); i.Name = "jumpy"; return i }
func (jumpy) Claim(in, out kernels.Grid, p float64) Claim {
	return Claim{Lo: 0, Hi: 2 * p}
}
func (j jumpy) Channel(in, out kernels.Grid, prior []float64, p float64) (*kernels.Channel, error) {
	if p >= 1 {
		p++
	}
	return j.RR.Channel(in, out, prior, p)
}

func TestCalibrateJump(t *testing.T) {
	g := mustGrid(t, 2, 2)
	for _, method := range []Method{Bisection, Illinois} {
		if _, err := Calibrate(context.Background(), jumpy{}, g, g, nil, TargetEps, 1.5, CalibrateOptions{Method: method}); err == nil || !strings.Contains(err.Error(), "jumps") {
			t.Errorf("%v: error %v, want a jump", method, err)
		}
		res, err := Calibrate(context.Background(), jumpy{}, g, g, nil, TargetEps, 1.5, CalibrateOptions{Method: method, AcceptJump: true})
		if err != nil {
			t.Fatal(err)
		}
		// The private side of the jump: parameter just below 1, eps just
		// below 1 (RR's tight eps is its parameter).
		if !res.Jump || !(res.Param < 1 && res.Param > 1-1e-9) || math.Abs(res.Value-res.Param) > 1e-12 {
			t.Errorf("%v: %+v, want a jump at parameter 1 from below", method, res)
		}
	}
}

// TestCalibrateStopsWhenCancelled: a calibration checks its context before
// every channel it builds, so a cancelled run stops at the next one, and
// Progress sees every evaluation.
func TestCalibrateStopsWhenCancelled(t *testing.T) {
	g := kernels.Grid{Rows: 4, Cols: 5}
	prior := make([]float64, g.Len())
	for i := range prior {
		prior[i] = float64(1+i%3) / 40
	}
	normalise(prior)
	ctx, cancel := context.WithCancel(context.Background())
	var seen []int
	_, err := Calibrate(ctx, RR{}, g, g, prior, TargetDistortion, 1.3, CalibrateOptions{
		Progress: func(evals int, param, value float64) {
			seen = append(seen, evals)
			if !(param > 0) || math.IsNaN(value) {
				t.Errorf("evaluation %d: parameter %v, value %v", evals, param, value)
			}
			if evals == 2 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped after 2 evaluations") {
		t.Fatalf("error %v, want a cancellation after 2 evaluations", err)
	}
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 {
		t.Errorf("progress saw evaluations %v, want [1 2]", seen)
	}
	// A context already done builds nothing.
	seen = nil
	if _, err := Calibrate(ctx, RR{}, g, g, prior, TargetEps, 1, CalibrateOptions{Progress: func(n int, _, _ float64) { seen = append(seen, n) }}); !errors.Is(err, context.Canceled) || len(seen) != 0 {
		t.Errorf("cancelled before the start: error %v, evaluations %v", err, seen)
	}
}
