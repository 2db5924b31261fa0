package mechanism

import (
	"context"
	"errors"
	"fmt"
	"math"

	"privic/kernels"
	"privic/kernels/enum"
)

// Target is the quantity on which mechanisms are put on equal footing.
type Target int

const (
	// TargetEps matches the tight epsilon (TightEpsilon) of the channel.
	TargetEps Target = iota
	// TargetDistortion matches the average distortion under the prior
	// (kernels.AvgDistortion): equal quality of service.
	TargetDistortion
	// TargetMI matches the mutual information between true and reported
	// cell under the prior (kernels.MutualInformation, nats).
	TargetMI
)

// targetNames are the spec spellings of the targets, by value
// (read-only).
var targetNames = enum.New[Target]("Target", "calibration target", "eps", "distortion", "mi")

// Targets lists every target in its spec spelling.
func Targets() []string { return targetNames.List() }

// String is the spec spelling: "eps", "distortion" or "mi".
func (t Target) String() string { return targetNames.String(t) }

// ParseTarget reads a target's spec spelling.
func ParseTarget(s string) (Target, error) { return targetNames.Parse(s) }

// increasing reports whether the target grows with the mechanism's
// parameter (less privacy): tight eps and MI grow, distortion falls.
func (t Target) increasing() bool { return t != TargetDistortion }

// DefaultRelTol is the default relative tolerance of Calibrate.
const DefaultRelTol = 1e-6

// ErrOutOfReach is wrapped by Calibrate's error when no parameter in the
// mechanism's range reaches the goal.
var ErrOutOfReach = errors.New("target out of reach")

// Method is the bracketing root finder of Calibrate.
type Method int

const (
	// Bisection halves the bracket (in log parameter) every step: about
	// log2(bracket / tolerance) channels, 15-25 in practice.
	Bisection Method = iota
	// Illinois is regula falsi on the log parameter with the Illinois
	// modification (Dowell & Jarratt, BIT 1971): still a bracketing
	// method, never leaving the bracket, but superlinear, usually 5-8
	// channels. It falls back to a bisection step whenever the secant
	// point is not finite or not strictly inside the bracket.
	Illinois
)

// methodNames are the spec spellings of the methods, by value
// (read-only).
var methodNames = enum.New[Method]("Method", "calibration method", "bisection", "illinois")

// String is the spec spelling: "bisection" or "illinois".
func (m Method) String() string { return methodNames.String(m) }

// ParseMethod reads a method's spec spelling.
func ParseMethod(s string) (Method, error) { return methodNames.Parse(s) }

// CalibrateOptions tunes Calibrate.
type CalibrateOptions struct {
	// RelTol: success when |value - goal| <= RelTol*goal; 0 means
	// DefaultRelTol.
	RelTol float64
	// MaxEvals bounds the channels built; 0 means 200.
	MaxEvals int
	// Method is the root finder (default Bisection).
	Method Method
	// AcceptJump: when the quantity jumps over goal (the bracket shrinks
	// to rounding with values on both sides; LP solutions can switch
	// vertex discontinuously), return the end of the bracket on the
	// private side (tight eps or MI below goal, distortion above) with
	// Jump set, instead of an error.
	AcceptJump bool
	// Operators builds every channel as an operator (the mechanism must
	// implement Operator) and sets Calibration.Op instead of Channel.
	Operators bool
	// Progress, if set, is called after every evaluation with the number
	// of channels built so far, the parameter and the value it gave.
	Progress func(evals int, param, value float64)
}

// Calibration is the result of Calibrate.
type Calibration struct {
	Target  Target
	Goal    float64           // the value asked for
	Param   float64           // the mechanism's parameter found
	Value   float64           // the target quantity at Param
	Channel *kernels.Channel  // the channel at Param (nil with CalibrateOptions.Operators)
	Op      kernels.ChannelOp // the channel at Param as an operator (CalibrateOptions.Operators only)
	Evals   int               // channels built
	// Jump reports that goal was not reached because the quantity jumps
	// over it (see CalibrateOptions.AcceptJump): Value is then on the
	// private side of Goal.
	Jump bool
}

// Calibrate finds the parameter at which mechanism m, from in to out under
// prior, reaches goal for target t, within opt.RelTol relative to goal.
//
// Method: a bracketing root finder on the logarithm of the parameter
// (parameters are positive and span decades), bisection by default. The
// bracket starts from the mechanism's Claim for eps targets (goal/Hi(1)
// and goal/Lo(1) bound the answer when the claim is linear in the
// parameter, as all claims here are; an exact claim is hit at the first
// evaluation) and from 1 otherwise, and is widened within [Min, Max] of
// the mechanism's Info (proportionally for eps, by factors of 4 otherwise)
// until it straddles goal; if it never
// does, the error wraps ErrOutOfReach and says which values the mechanism
// reaches. The search stops when the value is within tolerance; if the
// bracket shrinks to rounding without that (the quantity jumps over goal),
// it is an error.
//
// ctx is checked before every evaluation: once it is done, Calibrate
// returns its error (wrapped) without building another channel.
func Calibrate(ctx context.Context, m Mechanism, in, out kernels.Grid, prior []float64, t Target, goal float64, opt CalibrateOptions) (*Calibration, error) {
	info := m.Info()
	if t < TargetEps || t > TargetMI {
		return nil, fmt.Errorf("calibrate %s: unknown target %d", info.Name, int(t))
	}
	if !(goal > 0) || math.IsInf(goal, 0) {
		return nil, fmt.Errorf("calibrate %s: %v target %v: must be finite and > 0", info.Name, t, goal)
	}
	if !(opt.RelTol >= 0 && opt.RelTol < 1) {
		return nil, fmt.Errorf("calibrate %s: RelTol = %v: must be in (0, 1), or 0 for the default", info.Name, opt.RelTol)
	}
	tol := opt.RelTol
	if tol == 0 {
		tol = DefaultRelTol
	}
	if opt.MaxEvals < 0 {
		return nil, fmt.Errorf("calibrate %s: MaxEvals = %d: must be >= 0", info.Name, opt.MaxEvals)
	}
	maxEvals := opt.MaxEvals
	if maxEvals == 0 {
		maxEvals = 200
	}
	if opt.Method != Bisection && opt.Method != Illinois {
		return nil, fmt.Errorf("calibrate %s: unknown method %d", info.Name, int(opt.Method))
	}
	if t != TargetEps || info.PriorDependent {
		if err := checkPrior(info.Name, in, prior); err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
	}
	c := &calibrator{ctx: ctx, m: m, in: in, out: out, prior: prior, t: t, goal: goal, tol: tol, maxEvals: maxEvals, method: opt.Method, acceptJump: opt.AcceptJump, progress: opt.Progress}
	if opt.Operators {
		if c.op, _ = m.(Operator); c.op == nil {
			return nil, fmt.Errorf("calibrate %s: the mechanism has no operator form", info.Name)
		}
	}
	res, err := c.run()
	if err != nil {
		return nil, fmt.Errorf("calibrate %s to %v = %v on %v: %w", info.Name, t, goal, in, err)
	}
	return res, nil
}

type calibrator struct {
	ctx        context.Context
	m          Mechanism
	in, out    kernels.Grid
	prior      []float64
	t          Target
	goal, tol  float64
	maxEvals   int
	method     Method
	acceptJump bool
	op         Operator // non-nil: build operators
	progress   func(evals int, param, value float64)
	evals      int
	best       *Calibration // the evaluation within tolerance, once found
	lastParam  float64
	lastValue  float64
}

// point is one evaluation: the parameter, the target value, f (the value
// minus goal oriented to grow with the parameter; 0: within tolerance),
// whether f < 0 (the value is on the private side of goal: tight eps or MI
// below it, distortion above) and the channel.
type point struct {
	p, v, f float64
	private bool
	ch      *kernels.Channel
	op      kernels.ChannelOp
}

func (c *calibrator) eval(p float64) (point, error) {
	info := c.m.Info()
	if c.evals >= c.maxEvals {
		return point{}, fmt.Errorf("no convergence within %d evaluations (last: %s = %v gives %v)", c.maxEvals, info.Param, c.lastParam, c.lastValue)
	}
	if err := c.ctx.Err(); err != nil {
		return point{}, fmt.Errorf("stopped after %d evaluations: %w", c.evals, err)
	}
	c.evals++
	var ch *kernels.Channel
	var op kernels.ChannelOp
	var v float64
	var err error
	if c.op != nil {
		if op, err = c.op.Op(c.in, c.out, c.prior, p); err != nil {
			return point{}, err
		}
		v, err = TargetValue(c.t, c.prior, op)
	} else {
		if ch, err = c.m.Channel(c.in, c.out, c.prior, p); err != nil {
			return point{}, err
		}
		if c.t == TargetEps {
			v, err = TightEpsOf(c.m, p, ch)
		} else {
			v, err = TargetValue(c.t, c.prior, ch)
		}
	}
	if err != nil {
		return point{}, err
	}
	if math.IsNaN(v) {
		return point{}, fmt.Errorf("%v is NaN at %s = %v", c.t, info.Param, p)
	}
	c.lastParam, c.lastValue = p, v
	if c.progress != nil {
		c.progress(c.evals, p, v)
	}
	f := v - c.goal
	if !c.t.increasing() {
		f = -f
	}
	if math.Abs(v-c.goal) <= c.tol*c.goal {
		c.best = &Calibration{Target: c.t, Goal: c.goal, Param: p, Value: v, Channel: ch, Op: op}
		f = 0
	}
	return point{p, v, f, f < 0, ch, op}, nil
}

func (c *calibrator) done() *Calibration {
	c.best.Evals = c.evals
	return c.best
}

func (c *calibrator) run() (*Calibration, error) {
	a, b, done, err := c.bracket()
	if done {
		return c.result(err)
	}
	return c.refine(a, b)
}

// starts returns the first point of the search, in the parameter range,
// and the other end the claim suggests for it (0: none). For tight
// epsilon they are where the claim at parameter 1, scaled linearly, puts
// goal: goal/Hi and goal/Lo.
func (c *calibrator) starts() (p0, p1 float64) {
	info := c.m.Info()
	lo, hi := info.Min, info.Max
	p0, p1 = 1.0, 0.0
	if c.t == TargetEps {
		cl := c.m.Claim(c.in, c.out, 1)
		if cl.Hi > 0 {
			p0 = c.goal / cl.Hi
		}
		if cl.Lo > 0 {
			p1 = c.goal / cl.Lo
		}
	}
	return math.Min(math.Max(p0, lo), hi), p1
}

// bracket evaluates from the starting points until two points a, b
// straddle goal (f of opposite signs). done reports that the search ended
// instead: at a point within tolerance (c.best), or with err (goal out
// of reach, or an evaluation's error).
func (c *calibrator) bracket() (a, b point, done bool, err error) {
	info := c.m.Info()
	lo, hi := info.Min, info.Max
	p0, p1 := c.starts()
	first, err := c.eval(p0)
	if err != nil || first.f == 0 {
		return a, b, true, err
	}
	// The other end of the bracket: first the claim's other bound, then
	// steps towards goal. The claim's lower bound puts goal at or below
	// goal/Lo, the other end when the first value is short of goal (and
	// that end, within the range, is not the first point itself). For
	// tight epsilon, which every mechanism here scales about linearly with
	// its parameter, the step is proportional (goal/value, overshooting by
	// 2%), so the bracket starts narrow; otherwise a factor 4, which the
	// proportional step also comes to when the value is 0 or +Inf (r is
	// then +Inf).
	a, b = first, first
	if p1 = math.Min(p1, hi); first.private && p1 > p0 {
		if b, err = c.eval(p1); err != nil || b.f == 0 {
			return a, b, true, err
		}
	}
	for b.private == first.private {
		if (first.private && b.p >= hi) || (!first.private && b.p <= lo) {
			return a, b, true, c.unreachable(first, b)
		}
		step := 4.0
		if c.t == TargetEps {
			r := c.goal / b.v
			if !first.private {
				r = 1 / r
			}
			step = math.Min(math.Max(r*1.02, 1.02), 4)
		}
		next := math.Min(b.p*step, hi)
		if !first.private {
			next = math.Max(b.p/step, lo)
		}
		a = b
		if b, err = c.eval(next); err != nil || b.f == 0 {
			return a, b, true, err
		}
	}
	return a, b, false, nil
}

// refine narrows the bracket [a, b] (f of opposite signs) in log
// parameter, by bisection or the Illinois variant of regula falsi, until
// an evaluation is within tolerance.
func (c *calibrator) refine(a, b point) (*Calibration, error) {
	info := c.m.Info()
	side := 0 // Illinois: which end was kept last (-1 a, +1 b)
	fa, fb := a.f, b.f
	for {
		la, lb := math.Log(a.p), math.Log(b.p)
		mid := math.Exp((la + lb) / 2)
		if c.method == Illinois {
			// The regula falsi point, unless it is not strictly inside the
			// bracket: not finite (NaN fails both tests, exp(±Inf) is 0 or
			// +Inf), or rounded onto an end, which would build that end's
			// channel again.
			if s := math.Exp((la*fb - lb*fa) / (fb - fa)); s > math.Min(a.p, b.p) && s < math.Max(a.p, b.p) {
				mid = s
			}
		}
		// A bracket at most 1e-10 relative wide that still straddles goal
		// means the quantity jumps there. (The log midpoint of any wider
		// bracket is strictly inside it.)
		if math.Abs(b.p-a.p) <= 1e-10*math.Max(a.p, b.p) {
			if c.acceptJump {
				priv := a
				if b.private {
					priv = b
				}
				return &Calibration{Target: c.t, Goal: c.goal, Param: priv.p, Value: priv.v, Channel: priv.ch, Op: priv.op, Evals: c.evals, Jump: true}, nil
			}
			return nil, fmt.Errorf("%v jumps across %v between %s = %v and %v (values %v, %v): no parameter within relative %g",
				c.t, c.goal, info.Param, a.p, b.p, a.v, b.v, c.tol)
		}
		m, err := c.eval(mid)
		if err != nil || m.f == 0 {
			return c.result(err)
		}
		if m.private == a.private {
			a, fa = m, m.f
			if side == -1 {
				fb /= 2 // b kept twice in a row: Illinois halving
			}
			side = -1
		} else {
			b, fb = m, m.f
			if side == 1 {
				fa /= 2
			}
			side = 1
		}
	}
}

func (c *calibrator) result(err error) (*Calibration, error) {
	if err != nil {
		return nil, err
	}
	return c.done(), nil
}

// unreachable explains that goal lies outside the values seen from the
// first evaluation to the end of the parameter range.
func (c *calibrator) unreachable(first, end point) error {
	info := c.m.Info()
	return fmt.Errorf("%w: %v goes from %v (%s = %v) to %v (%s = %v, the end of its range [%v, %v])",
		ErrOutOfReach, c.t, first.v, info.Param, first.p, end.v, info.Param, end.p, info.Min, info.Max)
}
