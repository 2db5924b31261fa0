package mechanism

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"privic/kernels"
)

// curve is a synthetic mechanism for testing Calibrate's root finder: its
// channel operator reports value(p) exactly as every target (tight eps,
// distortion, MI), so the parameter reaching a goal is known in closed
// form. It claims lo·p (1-tol) <= eps <= hi·p (1+tol) and records every
// parameter it is built at: the channels built are the cost of a
// calibration.
type curve struct {
	min, max float64
	lo, hi   float64 // slopes of the claim
	tol      float64 // the claim's Tol
	value    func(p float64) float64
	built    *[]float64
}

func (c curve) Info() Info { return Info{Name: "curve", Param: "p", Min: c.min, Max: c.max} }

func (c curve) Claim(_, _ kernels.Grid, p float64) Claim {
	return Claim{Lo: c.lo * p, Hi: c.hi * p, Tol: c.tol}
}

func (c curve) Channel(kernels.Grid, kernels.Grid, []float64, float64) (*kernels.Channel, error) {
	return nil, errors.New("curve: operator form only")
}

func (c curve) Op(_, _ kernels.Grid, _ []float64, p float64) (kernels.ChannelOp, error) {
	*c.built = append(*c.built, p)
	return curveOp{v: c.value(p)}, nil
}

// curveOp is the operator of curve: only its target values are defined.
type curveOp struct {
	kernels.ChannelOp
	v float64
}

func (o curveOp) TightEpsilon() (float64, error)               { return o.v, nil }
func (o curveOp) AvgDistortion([]float64) (float64, error)     { return o.v, nil }
func (o curveOp) MutualInformation([]float64) (float64, error) { return o.v, nil }

// calibrateCurve calibrates c (operators on, on a 2x2 grid with the uniform
// prior) and returns the result and the parameters built, failing t if one
// was built twice: a bracketing search has no reason to rebuild a channel.
func calibrateCurve(t *testing.T, c curve, tg Target, goal float64, opt CalibrateOptions) (*Calibration, []float64, error) {
	t.Helper()
	var built []float64
	c.built = &built
	if c.min == 0 {
		c.min, c.max = 1e-6, 1e6
	}
	g := mustGrid(t, 2, 2)
	opt.Operators = true
	res, err := Calibrate(context.Background(), c, g, g, uniformPrior(4), tg, goal, opt)
	seen := map[float64]bool{}
	for _, p := range built {
		if seen[p] {
			t.Errorf("goal %v: parameter %v built twice (all: %v)", goal, p, built)
		}
		seen[p] = true
	}
	if err == nil && res.Evals != len(built) {
		t.Errorf("goal %v: Evals = %d, %d channels built", goal, res.Evals, len(built))
	}
	return res, built, err
}

// bisectionBound is the most refinement steps bisection in log parameter
// can take on the bracket [a, b] when every parameter within relative r of
// the root is within tolerance: the k-th step halves a bracket of log width
// w/2^(k-1) whose ends are both more than ln(1+r) from the root, so
// w/2^(k-1) > 2 ln(1+r).
func bisectionBound(a, b, r float64) int {
	return int(math.Floor(math.Log2(math.Log(b/a)/(2*math.Log1p(r))))) + 1
}

// checkBisection checks that every parameter built after the first two
// (the bracket [built[0], built[1]]) is the geometric mean of the smallest
// bracket known so far, as bisection in log parameter places it.
func checkBisection(t *testing.T, name string, built []float64, value func(float64) float64, goal float64) {
	t.Helper()
	a, b := built[0], built[1]
	below := value(a) < goal
	for i, p := range built[2:] {
		if want := math.Sqrt(a * b); math.Abs(p-want) > 1e-12*want {
			t.Errorf("%s: step %d at %v, want the log midpoint %v of [%v, %v]", name, i+1, p, want, a, b)
			return
		}
		if (value(p) < goal) == below {
			a = p
		} else {
			b = p
		}
	}
}

func TestCalibrateRefusals(t *testing.T) {
	lin := curve{hi: 1, lo: 1, value: func(p float64) float64 { return p }}
	for _, c := range []struct {
		goal float64
		opt  CalibrateOptions
		want string
	}{
		{0, CalibrateOptions{}, "calibrate curve: eps target 0: must be finite and > 0"},
		{math.Inf(1), CalibrateOptions{}, "calibrate curve: eps target +Inf: must be finite and > 0"},
		{1, CalibrateOptions{RelTol: 1}, "calibrate curve: RelTol = 1: must be in (0, 1), or 0 for the default"},
		{1, CalibrateOptions{RelTol: -1e-9}, "calibrate curve: RelTol = -1e-09: must be in (0, 1), or 0 for the default"},
		{1, CalibrateOptions{MaxEvals: -1}, "calibrate curve: MaxEvals = -1: must be >= 0"},
		{1, CalibrateOptions{Method: Illinois + 1}, "calibrate curve: unknown method 2"},
	} {
		res, built, err := calibrateCurve(t, lin, TargetEps, c.goal, c.opt)
		if err == nil || err.Error() != c.want || res != nil || len(built) != 0 {
			t.Errorf("goal %v, %+v: %v, error %v after %d channels, want %q and no channel", c.goal, c.opt, res, err, len(built), c.want)
		}
	}
	// The defaults (RelTol 0, MaxEvals 0) are accepted and the bounds just
	// inside are too.
	for _, opt := range []CalibrateOptions{{}, {RelTol: 0.999, MaxEvals: 1}} {
		if res, _, err := calibrateCurve(t, lin, TargetEps, 2, opt); err != nil || res.Param != 2 || res.Evals != 1 {
			t.Errorf("%+v: %+v, %v; want p = 2 after 1 channel", opt, res, err)
		}
	}
}

func TestCalibrateMaxEvals(t *testing.T) {
	// Without a claim, a root at 1000 takes more than 3 channels (1, 4,
	// 16, ...): the search stops at exactly MaxEvals and names the last.
	c := curve{value: func(p float64) float64 { return p }}
	_, built, err := calibrateCurve(t, c, TargetEps, 1000, CalibrateOptions{MaxEvals: 3})
	if len(built) != 3 {
		t.Fatalf("%d channels built, want MaxEvals = 3 (%v)", len(built), built)
	}
	last := built[2]
	want := fmt.Sprintf("no convergence within 3 evaluations (last: p = %v gives %v)", last, last)
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want ...%q", err, want)
	}
}

func TestCalibrateToleranceInclusive(t *testing.T) {
	// Distortion 0.375/p starts at p = 1 with 0.375: against goal 0.25 and
	// RelTol 0.5, |0.375 - 0.25| = 0.5·0.25 exactly (dyadic numbers), on
	// the boundary of the tolerance, which includes it.
	c := curve{value: func(p float64) float64 { return 0.375 / p }}
	res, built, err := calibrateCurve(t, c, TargetDistortion, 0.25, CalibrateOptions{RelTol: 0.5})
	if err != nil || res.Param != 1 || res.Value != 0.375 || len(built) != 1 {
		t.Errorf("%+v, %v after %v; want p = 1 (value 0.375) after one channel", res, err, built)
	}
}

func TestCalibrateStartsFromClaim(t *testing.T) {
	// No claim (Hi = 0): the search starts at 1, which here is the answer.
	lin := func(p float64) float64 { return p }
	res, built, err := calibrateCurve(t, curve{value: lin}, TargetEps, 1, CalibrateOptions{})
	if err != nil || res.Param != 1 || len(built) != 1 {
		t.Errorf("no claim: %+v, %v after %v; want p = 1 after one channel", res, err, built)
	}
	// An exact claim eps = 2p is hit at goal/2, in one channel.
	double := func(p float64) float64 { return 2 * p }
	res, built, err = calibrateCurve(t, curve{lo: 2, hi: 2, value: double}, TargetEps, 3, CalibrateOptions{})
	if err != nil || res.Param != 1.5 || res.Value != 3 || len(built) != 1 {
		t.Errorf("exact claim: %+v, %v after %v; want p = 1.5 after one channel", res, err, built)
	}
	// eps = 3p within the claim [2p, 4p]: the bracket is the claim's
	// [goal/4, goal/2], then bisection in log parameter to the root 1.
	triple := func(p float64) float64 { return 3 * p }
	const tol = 1e-9
	res, built, err = calibrateCurve(t, curve{lo: 2, hi: 4, value: triple}, TargetEps, 3, CalibrateOptions{RelTol: tol})
	if err != nil {
		t.Fatal(err)
	}
	if built[0] != 0.75 || built[1] != 1.5 {
		t.Errorf("bracket from %v and %v, want the claim's 0.75 and 1.5", built[0], built[1])
	}
	if math.Abs(res.Param-1) > tol {
		t.Errorf("p = %v, want 1 within %g", res.Param, tol)
	}
	if n := 2 + bisectionBound(0.75, 1.5, tol); res.Evals > n {
		t.Errorf("%d channels, bisection needs at most %d", res.Evals, n)
	}
	checkBisection(t, "3p", built, triple, 3)
}

func TestCalibrateIllinoisExactOnLogLinear(t *testing.T) {
	// eps = 1 + ln p is linear in the log parameter, so the regula falsi
	// point of the bracket [goal/Hi, goal/Lo] = [1/2, 8] is the root p = 1
	// itself: Illinois needs one channel after the bracket's two, while
	// bisection halves the bracket's log width ln 16 down to the tolerance.
	v := func(p float64) float64 { return 1 + math.Log(p) }
	c := curve{lo: 1.0 / 8, hi: 2, value: v}
	const tol = 1e-9
	for _, method := range []Method{Illinois, Bisection} {
		res, built, err := calibrateCurve(t, c, TargetEps, 1, CalibrateOptions{RelTol: tol, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if built[0] != 0.5 || built[1] != 8 {
			t.Errorf("%v: bracket from %v and %v, want 1/2 and 8", method, built[0], built[1])
		}
		// |ln p| <= tol is within tolerance; the root is 1.
		if math.Abs(res.Param-1) > 2*tol {
			t.Errorf("%v: p = %v, want 1 within %g", method, res.Param, tol)
		}
		switch method {
		case Illinois:
			if res.Evals != 3 {
				t.Errorf("Illinois: %d channels (%v), want 3", res.Evals, built)
			}
		case Bisection:
			// Within relative r of the root, |ln p| < r, within tolerance.
			if n := 2 + bisectionBound(0.5, 8, tol); res.Evals > n || res.Evals < 4 {
				t.Errorf("bisection: %d channels, want 4 to %d", res.Evals, n)
			}
			checkBisection(t, "1 + ln p", built, v, 1)
		}
	}
}

func TestCalibrateProportionalStep(t *testing.T) {
	// eps = p under the claim eps <= 2p: the first point p0 = goal/2 gives
	// goal/2, and the proportional step goes to p0 · 2 · 1.02 = 1.02 goal,
	// 2% past the root, so two channels bracket it and the rest stay
	// inside [p0, 1.02 goal].
	lin := func(p float64) float64 { return p }
	const goal, tol = 5.0, 1e-9
	res, built, err := calibrateCurve(t, curve{hi: 2, value: lin}, TargetEps, goal, CalibrateOptions{RelTol: tol})
	if err != nil {
		t.Fatal(err)
	}
	p0, p1 := goal/2, goal/2*(2*1.02)
	if built[0] != p0 || math.Abs(built[1]-p1) > 1e-15*p1 {
		t.Fatalf("first channels at %v, want %v then %v", built[:2], p0, p1)
	}
	if math.Abs(res.Param-goal) > tol*goal {
		t.Errorf("p = %v, want %v within %g", res.Param, goal, tol)
	}
	if n := 2 + bisectionBound(p0, p1, tol); res.Evals > n {
		t.Errorf("%d channels, bisection from [%v, %v] needs at most %d", res.Evals, p0, p1, n)
	}
	checkBisection(t, "p", built, lin, goal)

	// Value 0 (below any goal) or +Inf (above) gives no proportion: the
	// step is the factor 4, 1 -> 4 -> 16, and (tight eps falling) 16 ->
	// 4 -> 1.
	zero := func(p float64) float64 {
		if p < 16 {
			return 0
		}
		return 1e3
	}
	_, built, _ = calibrateCurve(t, curve{value: zero}, TargetEps, 10, CalibrateOptions{MaxEvals: 3})
	if fmt.Sprint(built) != "[1 4 16]" {
		t.Errorf("value 0: channels at %v, want 1, 4, 16", built)
	}
	inf := func(p float64) float64 {
		if p > 0.1 {
			return math.Inf(1)
		}
		return 1
	}
	_, built, _ = calibrateCurve(t, curve{value: inf}, TargetEps, 10, CalibrateOptions{MaxEvals: 3})
	if fmt.Sprint(built) != "[1 0.25 0.0625]" {
		t.Errorf("value +Inf: channels at %v, want 1, 1/4, 1/16", built)
	}
}

func TestCalibrateOutOfReachEnds(t *testing.T) {
	// eps = p on [1e-3, 10] under the exact claim eps = p: a goal below
	// 1e-3 or above 10 is out of reach, which the first channel (at the
	// clamped goal/Hi, the end of the range) already shows.
	c := curve{min: 1e-3, max: 10, lo: 1, hi: 1, value: func(p float64) float64 { return p }}
	for _, tc := range []struct {
		goal float64
		want string
	}{
		{1e-4, "target out of reach: eps goes from 0.001 (p = 0.001) to 0.001 (p = 0.001, the end of its range [0.001, 10])"},
		{20, "target out of reach: eps goes from 10 (p = 10) to 10 (p = 10, the end of its range [0.001, 10])"},
	} {
		_, built, err := calibrateCurve(t, c, TargetEps, tc.goal, CalibrateOptions{})
		if !errors.Is(err, ErrOutOfReach) || !strings.HasSuffix(err.Error(), tc.want) || len(built) != 1 {
			t.Errorf("goal %v: error %v after %v, want ...%q after one channel", tc.goal, err, built, tc.want)
		}
	}
	// An MI goal below reach walks down by factors 4 from 1 to the end of
	// the range: 1, 1/4, 1/16, 1/64, then 1e-2.
	c = curve{min: 1e-2, max: 10, value: func(p float64) float64 { return 1 + p }}
	_, built, err := calibrateCurve(t, c, TargetMI, 0.5, CalibrateOptions{})
	want := []float64{1, 0.25, 0.0625, 0.015625, 0.01}
	if !errors.Is(err, ErrOutOfReach) || fmt.Sprint(built) != fmt.Sprint(want) {
		t.Errorf("error %v after %v, want out of reach after %v", err, built, want)
	}
}

func TestCalibrateClaimSlack(t *testing.T) {
	// eps = 0.9p within the exact claim eps = p up to Tol 0.2: the first
	// channel (p = goal) falls 10% short; the claim's other bound is the
	// same point, so the next channel is a proportional step.
	c := curve{lo: 1, hi: 1, tol: 0.2, value: func(p float64) float64 { return 0.9 * p }}
	res, built, err := calibrateCurve(t, c, TargetEps, 1, CalibrateOptions{RelTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if p := 1 / 0.9; math.Abs(res.Param-p) > 1e-9*p || built[0] != 1 {
		t.Errorf("p = %v from %v, want %v from 1", res.Param, built[0], p)
	}
}

func TestCalibrateJumpCost(t *testing.T) {
	// eps = p jumps to 2p at p = J: goal 1.5 J is never reached. The
	// bracket [goal/2, goal] from the claim [p, 2p] is bisected until it
	// is 1e-10 relative wide, about ceil(log2(ln 2 / 1e-10)) halvings,
	// and the private end of it is returned (AcceptJump).
	for _, J := range []float64{1e-3, 1, 1e3} {
		jump := func(p float64) float64 {
			if p < J {
				return p
			}
			return 2 * p
		}
		c := curve{min: 1e-9, max: 1e9, lo: 1, hi: 2, value: jump}
		res, built, err := calibrateCurve(t, c, TargetEps, 1.5*J, CalibrateOptions{AcceptJump: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Jump || !(res.Param < J && res.Param >= J*(1-1e-10)) || res.Value != res.Param {
			t.Errorf("J = %v: %+v, want the jump's private side within 1e-10", J, res)
		}
		if n := 2 + int(math.Ceil(math.Log2(math.Ln2/1e-10))) + 1; len(built) > n {
			t.Errorf("J = %v: %d channels, want at most %d", J, len(built), n)
		}
		checkBisection(t, fmt.Sprint("jump at ", J), built, jump, 1.5*J)
	}
}

// illinoisRef is regula falsi with the Illinois modification (Dowell &
// Jarratt, BIT 1971), written from the textbook: on g(u) = f(e^u), with
// f(p) = v(p) - goal for a rising target and goal - v(p) for a falling one,
// from the bracket [lo, hi] of log parameters (g(lo) < 0 < g(hi)), the
// secant point lo - g(lo) (hi - lo) / (g(hi) - g(lo)) replaces the end of
// its sign, and the value kept at the other end is halved when that end
// was kept the step before too. A secant point not strictly inside the
// bracket gives way to the midpoint. It returns the parameters it
// evaluates, up to the first within relative tol of goal.
func illinoisRef(v func(float64) float64, rising bool, goal, tol, pLo, pHi float64) []float64 {
	g := func(u float64) float64 {
		if rising {
			return v(math.Exp(u)) - goal
		}
		return goal - v(math.Exp(u))
	}
	lo, hi := math.Log(pLo), math.Log(pHi)
	gLo, gHi := g(lo), g(hi)
	kept := 0 // the end kept at the last step: -1 lo, +1 hi
	var ps []float64
	for len(ps) < 200 {
		u := lo - gLo*(hi-lo)/(gHi-gLo)
		if !(u > lo && u < hi) {
			u = (lo + hi) / 2
		}
		p := math.Exp(u)
		ps = append(ps, p)
		if math.Abs(v(p)-goal) <= tol*goal {
			return ps
		}
		if gu := g(u); gu < 0 {
			lo, gLo = u, gu
			if kept == 1 {
				gHi /= 2
			}
			kept = 1
		} else {
			hi, gHi = u, gu
			if kept == -1 {
				gLo /= 2
			}
			kept = -1
		}
	}
	return ps
}

func TestCalibrateIllinoisMatchesTextbook(t *testing.T) {
	// Convex and concave targets, rising and falling, on which plain
	// regula falsi keeps one end and the Illinois halving is what moves
	// it: the parameters built after the bracket must be the textbook
	// method's.
	const tol = 1e-9
	for _, tc := range []struct {
		name   string
		t      Target
		v      func(float64) float64
		lo, hi float64 // claim slopes
		goal   float64
	}{
		{"eps p^2", TargetEps, func(p float64) float64 { return p * p }, 0.25, 2, 1},
		{"eps p^4", TargetEps, func(p float64) float64 { return p * p * p * p }, 0.25, 2, 1},
		{"eps sqrt p", TargetEps, math.Sqrt, 0.25, 2, 1},
		{"distortion 1/p^2", TargetDistortion, func(p float64) float64 { return 1 / (p * p) }, 0, 0, 0.3},
		{"mi 1-1/p", TargetMI, func(p float64) float64 { return 1 - 1/(1+p) }, 0, 0, 0.9},
	} {
		c := curve{lo: tc.lo, hi: tc.hi, value: tc.v}
		res, built, err := calibrateCurve(t, c, tc.t, tc.goal, CalibrateOptions{RelTol: tol, Method: Illinois})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		// The bracket is the last two parameters before the first inside
		// it: find its ends among the parameters built.
		k := 2
		for ; k < len(built); k++ {
			if lo, hi := math.Min(built[k-2], built[k-1]), math.Max(built[k-2], built[k-1]); built[k] > lo && built[k] < hi {
				break
			}
		}
		a, b := built[k-2], built[k-1]
		rising := tc.t != TargetDistortion
		pLo, pHi := a, b
		if (tc.v(a) < tc.goal) != rising {
			pLo, pHi = b, a
		}
		want := illinoisRef(tc.v, rising, tc.goal, tol, pLo, pHi)
		got := built[k:]
		ok := len(got) == len(want)
		for i := 0; ok && i < len(got); i++ {
			ok = math.Abs(got[i]-want[i]) <= 1e-12*want[i]
		}
		if !ok {
			t.Errorf("%s: refined at %v, the textbook Illinois at %v", tc.name, got, want)
		}
		t.Logf("%s: p = %v after %d channels (%d refining)", tc.name, res.Param, res.Evals, len(got))
	}
}

func TestCalibrateIllinoisSecantOnAnEnd(t *testing.T) {
	// When one end's value dwarfs the other's, the regula falsi point
	// rounds onto the other end: Illinois must bisect instead (neither
	// rebuilding that end's channel nor taking the bracket for a jump),
	// then converge. Rising: eps = (1 - 3e-6) p^1500 from p = 1 (3e-6 short
	// of goal 1) steps to 1.02, where eps is about 8e12. Falling:
	// distortion (1 - 3e-6) (4/p)^50 is about 1.3e30 at p = 1 and 3e-6
	// short of goal 1 at p = 4.
	for _, tc := range []struct {
		t Target
		k float64 // the exponent
		v func(float64) float64
	}{
		{TargetEps, 1500, func(p float64) float64 { return (1 - 3e-6) * math.Pow(p, 1500) }},
		{TargetDistortion, -50, func(p float64) float64 { return (1 - 3e-6) * math.Pow(4/p, 50) }},
	} {
		res, built, err := calibrateCurve(t, curve{value: tc.v}, tc.t, 1, CalibrateOptions{Method: Illinois})
		if err != nil || res.Jump {
			t.Errorf("%v: %+v, %v", tc.t, res, err)
			continue
		}
		if want := math.Sqrt(built[0] * built[1]); math.Abs(built[2]-want) > 1e-15*want {
			t.Errorf("%v: first refinement at %v, want the bisection point %v of [%v, %v]", tc.t, built[2], want, built[0], built[1])
		}
		// The root p* solves v(p*) = 1: v(p) = (p/p*)^k.
		root := math.Pow(1-3e-6, -1/tc.k)
		if tc.k < 0 {
			root *= 4
		}
		if got := math.Pow(res.Param/root, tc.k); math.Abs(got-1) > DefaultRelTol*(1+1e-9) {
			t.Errorf("%v: p = %v, (p/p*)^k = %v, want 1 within %g", tc.t, res.Param, got, DefaultRelTol)
		}
	}
}

func TestCalibrateJumpWidthInclusive(t *testing.T) {
	// A bracket exactly 1e-10 relative wide is a jump: b = 0.58207660913...
	// and a = b - 2^-34 (exact) have b - a = 1e-10 b in floating point. The
	// claim [p/b, p/a] makes them the first two channels for goal 1, and
	// the step from 0.5 to 2 between them is taken as a jump at once.
	const b = 0.5820766091346741
	a := b - 0x1p-34
	if b-a != 1e-10*b || 1/(1/a) != a || 1/(1/b) != b {
		t.Fatalf("a = %v, b = %v: not exactly 1e-10 relative apart", a, b)
	}
	step := func(p float64) float64 {
		if p <= a {
			return 0.5
		}
		return 2
	}
	res, built, err := calibrateCurve(t, curve{lo: 1 / b, hi: 1 / a, value: step}, TargetEps, 1, CalibrateOptions{AcceptJump: true})
	if err != nil || !res.Jump || res.Param != a || fmt.Sprint(built) != fmt.Sprint([]float64{a, b}) {
		t.Errorf("%+v, %v after %v; want a jump at %v after channels at %v and %v", res, err, built, a, a, b)
	}
}
