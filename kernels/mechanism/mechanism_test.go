package mechanism

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"reflect"
	"strings"
	"testing"

	"privic/kernels"
)

// allMechanisms lists one instance of every mechanism with output grids
// it accepts for input g.
func allMechanisms(g kernels.Grid) []struct {
	m   Mechanism
	out kernels.Grid
} {
	return []struct {
		m   Mechanism
		out kernels.Grid
	}{
		{RR{}, g},
		{BA{}, g},
		{BA{Delta: 1e-10, MaxIterations: 5000}, g},
		{LAP{}, g},
		{LAP{}, g.Widen(2)},
		{PlanarLaplace{}, g},
		{PlanarLaplace{Point: CellCentre}, g.Widen(1)},
		{Optimal{Spanner: 1}, g},
		{Elastic{}, g},
	}
}

func TestEveryChannelRowStochasticAndWithinClaim(t *testing.T) {
	g := mustGrid(t, 2, 3)
	prior := []float64{0.3, 0.05, 0.1, 0.25, 0.2, 0.1}
	for _, c := range allMechanisms(g) {
		info := c.m.Info()
		for _, p := range []float64{0.2, 0.9, 2.5} {
			ch, err := c.m.Channel(g, c.out, prior, p)
			if err != nil {
				t.Fatalf("%s(%v): %v", info.Name, p, err)
			}
			if err := ch.Validate(); err != nil {
				t.Errorf("%s(%v): %v", info.Name, p, err)
			}
			checkStochastic(t, info.Name, ch, 1e-11)
			te, err := ch.TightEpsilon()
			if err != nil {
				t.Fatal(err)
			}
			if brute := bruteTightEps(ch); math.Abs(te-brute) > 1e-12*brute {
				t.Errorf("%s(%v): TightEpsilon %v, definition %v", info.Name, p, te, brute)
			}
			cl := c.m.Claim(g, c.out, p)
			tol := math.Max(cl.Tol, 1e-9)
			if te < cl.Lo*(1-tol) || te > cl.Hi*(1+tol) {
				t.Errorf("%s(%s=%v) on %v -> %v: tight eps %v outside the claimed [%v, %v] (%s)",
					info.Name, info.Param, p, g, c.out, te, cl.Lo, cl.Hi, cl.Note)
			}
			if cl.Exact() && math.Abs(te-cl.Hi) > 1e-12*cl.Hi {
				t.Errorf("%s(%v): exact claim %v, measured %v", info.Name, p, cl.Hi, te)
			}
		}
	}
}

func TestRRClosedForms(t *testing.T) {
	// For any prior, RR's output marginal is q + (p-q) prior(y), so
	// I(X;Y) = H(Y) - H(Y|X) with H(Y|X) = -p ln p - (k-1) q ln q; the
	// chance of reporting the true cell is p, which under the uniform prior
	// is also the MAP adversary's success probability; the distortion is
	// q sum_x prior(x) sum_y d(x,y).
	g := mustGrid(t, 3, 4)
	k := g.Len()
	priors := [][]float64{uniformPrior(k), benchPrior(g)}
	for _, eps := range []float64{0.05, 0.8, 3, 30} {
		ch, err := RR{}.Channel(g, g, nil, eps)
		if err != nil {
			t.Fatal(err)
		}
		p, q := RRProbabilities(k, eps)
		if math.Abs(p/q-math.Exp(eps)) > 1e-12*math.Exp(eps) || math.Abs(p+float64(k-1)*q-1) > 1e-15 {
			t.Fatalf("eps=%v: p=%v q=%v", eps, p, q)
		}
		for _, prior := range priors {
			hy := 0.0
			for y := 0; y < k; y++ {
				qy := q + (p-q)*prior[y]
				hy -= qy * math.Log(qy)
			}
			want := hy + p*math.Log(p) + float64(k-1)*q*math.Log(q)
			got, err := kernels.MutualInformation(prior, ch)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("eps=%v: MI %v, closed form %v", eps, got, want)
			}
			acc := 0.0
			for x := 0; x < k; x++ {
				acc += prior[x] * ch.P[x*k+x]
			}
			if math.Abs(acc-p) > 1e-14 {
				t.Errorf("eps=%v: P(report = truth) %v, want %v", eps, acc, p)
			}
			wantD := 0.0
			for x := 0; x < k; x++ {
				for y := 0; y < k; y++ {
					wantD += prior[x] * q * kernels.Dist(g, x, g, y)
				}
			}
			m, skipped, err := Measure(prior, ch, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if skipped != nil {
				t.Errorf("eps=%v: dense channel, skipped %q", eps, skipped)
			}
			if math.Abs(m.AvgDistortion-wantD) > 1e-12 || math.Abs(m.MutualInformation-want) > 1e-12 || math.Abs(m.TightEps-eps) > 1e-12*eps {
				t.Errorf("eps=%v: Measure %+v, want distortion %v MI %v eps %v", eps, m, wantD, want, eps)
			}
		}
		v, err := kernels.BayesVulnerability(uniformPrior(k), ch)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-p) > 1e-14 {
			t.Errorf("eps=%v: MAP accuracy %v, want %v", eps, v, p)
		}
		if got := rrMIUniform(k, eps); math.Abs(got-mutualInfo(uniformPrior(k), ch)) > 1e-12 {
			t.Errorf("eps=%v: uniform-prior MI closed form %v", eps, got)
		}
	}
}

func TestOptimalNoWorseThanLAPAtSameTightEps(t *testing.T) {
	// LAP calibrated to tight eps = eps is eps-geo-indistinguishable, hence
	// feasible for the exact LP, so the LP's distortion cannot be larger.
	// (LAP at nominal eps is only 2 eps-geo-ind, so the comparison must be
	// at equal tight eps.) The nominal-eps comparison is logged.
	g := mustGrid(t, 2, 3)
	prior := []float64{0.3, 0.05, 0.1, 0.25, 0.2, 0.1}
	for _, eps := range []float64{0.3, 1, 2} {
		opt, err := Optimal{}.Channel(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		dOpt, err := kernels.AvgDistortion(prior, opt)
		if err != nil {
			t.Fatal(err)
		}
		cal, err := Calibrate(context.Background(), LAP{}, g, g, prior, TargetEps, eps, CalibrateOptions{RelTol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		dLap, err := kernels.AvgDistortion(prior, cal.Channel)
		if err != nil {
			t.Fatal(err)
		}
		if dOpt > dLap+1e-9 {
			t.Errorf("eps=%v: LP distortion %v > LAP's %v (LAP nominal eps %v)", eps, dOpt, dLap, cal.Param)
		}
		nominal, _ := kernels.Laplace(g, g, eps)
		dNom, _ := kernels.AvgDistortion(prior, nominal)
		t.Logf("eps=%v: LP %.6f, LAP at tight eps %.6f (nominal %.4f), LAP at nominal eps %.6f", eps, dOpt, dLap, cal.Param, dNom)
	}
}

func TestRegistry(t *testing.T) {
	reg, err := NewRegistry(Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), ","); got != "ba,lap,rr,planar-laplace,optimal,elastic-metric" {
		t.Errorf("Names = %s", got)
	}
	for _, n := range reg.Names() {
		e, err := reg.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		info := e.New(Options{}).Info()
		if info.Name != n || e.Reference() == "" || e.Param == "" || !(info.Min > 0 && info.Min < info.Max) {
			t.Errorf("%s: incomplete entry %+v, Info %+v", n, e, info)
		}
	}
	if _, err := reg.Lookup("exponential"); err == nil || !strings.Contains(err.Error(), `unknown mechanism "exponential" (known: ba, lap,`) {
		t.Errorf("unknown name: error %v", err)
	}
	// Options reach the constructors.
	e, _ := reg.Lookup("optimal")
	if m := e.New(Options{LPSpanner: 2, LPSolver: SolverCLP, LPMethod: MethodDecompose}); m != (Optimal{Spanner: 2, Solver: SolverCLP, Method: MethodDecompose}) {
		t.Errorf("optimal with options: %+v", m)
	}
	e, _ = reg.Lookup("planar-laplace")
	if got := e.New(Options{PlanarPoint: CellCentre}).Info().Name; got != "planar-laplace-centre" {
		t.Errorf("planar-laplace with centre points: %s", got)
	}
	toy := Entry{Name: "toy", Param: "p", New: func(Options) Mechanism { return RR{} }}
	for _, bad := range [][]Entry{
		{toy, toy},
		{{Name: "Toy", New: toy.New}},
		{{Name: ""}},
		{{Name: "toy"}},
	} {
		if _, err := NewRegistry(bad...); err == nil {
			t.Errorf("NewRegistry(%+v) accepted", bad)
		}
	}
}

// TestBuiltinStyles: every built-in mechanism has a style of its own
// (colour, marker and dash each told apart from the others'), and
// StyleOf finds a mechanism's style from its label or a variant's.
func TestBuiltinStyles(t *testing.T) {
	colours, markers := map[color.RGBA]string{}, map[string]string{}
	for _, e := range Builtin() {
		s := e.Style
		if s.Color.A != 0xFF || s.Marker == "" {
			t.Errorf("%s: style %+v lacks an opaque colour or a marker", e.Name, s)
		}
		if o, dup := colours[s.Color]; dup {
			t.Errorf("%s and %s share the colour %v", o, e.Name, s.Color)
		}
		if o, dup := markers[s.Marker]; dup {
			t.Errorf("%s and %s share the marker %q", o, e.Name, s.Marker)
		}
		colours[s.Color], markers[s.Marker] = e.Name, e.Name
	}
	builtin := map[string]Style{}
	for _, e := range Builtin() {
		builtin[e.Name] = e.Style
	}
	for label, want := range map[string]string{
		"ba": "ba", "lap": "lap", "planar-laplace": "planar-laplace", "planar-laplace-centre": "planar-laplace",
		"optimal-spanner1-coarse3": "optimal", "optimal": "optimal", "elastic-metric": "elastic-metric", "rr": "rr",
	} {
		got, ok := StyleOf(label)
		if !ok || !reflect.DeepEqual(got, builtin[want]) {
			t.Errorf("StyleOf(%q) = %+v, %v; want %s's style", label, got, ok, want)
		}
	}
	for _, label := range []string{"laplace", "BA", "opt", "elastic"} {
		if _, ok := StyleOf(label); ok {
			t.Errorf("StyleOf(%q) found a style", label)
		}
	}
}

// TestLPSize checks the LP interface against Optimal.Size, directly and
// on the block grid of a Coarsened optimal mechanism.
func TestLPSize(t *testing.T) {
	g := mustGrid(t, 5, 7)
	opt := Optimal{Spanner: 1, Solver: SolverGonum}
	_, rows := opt.Size(g, g)
	if got := opt.LPSize(g, g); got != (LPSize{Solver: SolverGonum, Method: MethodDual, Grid: g, Constraints: rows}) {
		t.Errorf("Optimal.LPSize = %+v, want %d rows on %v", got, rows, g)
	}
	c := Coarsened{Base: opt, Factor: 3}
	coarse := c.Coarse(g) // 2 x 3 blocks
	_, crows := opt.Size(coarse, coarse)
	if got := c.LPSize(g, g); got.Grid != coarse || got.Constraints != crows || crows >= rows {
		t.Errorf("Coarsened.LPSize = %+v, want %d rows on %v", got, crows, coarse)
	}
	if got := (Coarsened{Base: RR{}, Factor: 2}).LPSize(g, g); got.Solver != "" || got.Constraints != 0 {
		t.Errorf("Coarsened RR claims an LP: %+v", got)
	}
}

func TestSameGridMechanismsRefuseOtherOutputs(t *testing.T) {
	g := mustGrid(t, 2, 2)
	for _, m := range []Mechanism{RR{}, BA{}} {
		want := m.Info().Name + ": output grid 4x4@(-1,-1) must equal input grid 2x2"
		if _, err := m.Channel(g, g.Widen(1), uniformPrior(4), 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: widened output: error %v, want one saying %q", m.Info().Name, err, want)
		}
	}
	for _, m := range []Mechanism{RR{}, BA{}, LAP{}, PlanarLaplace{}, Optimal{}} {
		for _, p := range []float64{0, -1, math.NaN(), math.Inf(1), 1e9} {
			in := m.Info()
			want := fmt.Sprintf("%s: %s = %v: must be in (0, %v]", in.Name, in.Param, p, in.Max)
			if _, err := m.Channel(g, g, uniformPrior(4), p); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: parameter %v: error %v, want one saying %q", in.Name, p, err, want)
			}
		}
	}
}

func TestTwoCellClaims(t *testing.T) {
	// Two cells are the smallest grid with pairs: BA and LAP claim
	// p <= TightEps <= 2p there (one cell claims nothing), and the channel
	// measured by the definition honours both bounds.
	for _, g := range []kernels.Grid{mustGrid(t, 1, 2), mustGrid(t, 2, 1)} {
		for _, m := range []Mechanism{BA{}, LAP{}} {
			name := m.Info().Name
			for _, p := range []float64{0.3, 1.7} {
				cl := m.Claim(g, g, p)
				if cl.Lo != p || cl.Hi != 2*p {
					t.Errorf("%s on %v at %v: claim [%v, %v], want [%v, %v]", name, g, p, cl.Lo, cl.Hi, p, 2*p)
				}
				ch, err := m.Channel(g, g, []float64{0.4, 0.6}, p)
				if err != nil {
					t.Fatal(err)
				}
				if te := bruteTightEps(ch); te < cl.Lo*(1-1e-12) || te > cl.Hi*(1+1e-12) {
					t.Errorf("%s on %v at %v: tight eps %v outside [%v, %v]", name, g, p, te, cl.Lo, cl.Hi)
				}
			}
			if cl := m.Claim(mustGrid(t, 1, 1), mustGrid(t, 1, 1), 1); cl.Lo != 0 || cl.Hi != 0 {
				t.Errorf("%s on one cell: claim [%v, %v], want none", name, cl.Lo, cl.Hi)
			}
		}
	}
}

func TestLAPClaimOnOtherOutput(t *testing.T) {
	// An output grid that does not contain the input (here two cells to
	// its east) loses the lower bound: LAP claims only TightEps <= 2 eps,
	// and the measured channel honours it.
	in := mustGrid(t, 2, 2)
	out := kernels.Grid{Rows: 2, Cols: 2, Col0: 2}
	for _, eps := range []float64{0.4, 1.5} {
		cl := LAP{}.Claim(in, out, eps)
		if cl.Lo != 0 || cl.Hi != 2*eps {
			t.Errorf("eps %v: claim [%v, %v], want [0, %v]", eps, cl.Lo, cl.Hi, 2*eps)
		}
		ch, err := LAP{}.Channel(in, out, nil, eps)
		if err != nil {
			t.Fatal(err)
		}
		if te := bruteTightEps(ch); te > cl.Hi*(1+1e-12) {
			t.Errorf("eps %v: tight eps %v above %v", eps, te, cl.Hi)
		}
	}
}

func TestRegistryNamesAreLowercaseDigitsAndHyphens(t *testing.T) {
	// The accepted alphabet is exactly a-z, 0-9 and '-': its end points are
	// accepted and the characters just outside each range refused.
	mk := func(name string) Entry {
		return Entry{Name: name, Param: "p", New: func(Options) Mechanism { return RR{} }}
	}
	for _, name := range []string{"a", "z", "0", "9", "-", "az-09", "k2-rr"} {
		if _, err := NewRegistry(mk(name)); err != nil {
			t.Errorf("name %q refused: %v", name, err)
		}
	}
	for _, name := range []string{"", "`", "{", "/", ":", "A", "Z", "a_b", "a b", "a.b", "é"} {
		_, err := NewRegistry(mk(name))
		if err == nil || !strings.Contains(err.Error(), "use a-z, 0-9 and '-'") {
			t.Errorf("name %q: error %v, want the allowed alphabet", name, err)
		}
	}
}

func TestCheckPriorToleranceIsPerCell(t *testing.T) {
	// A prior may miss 1 by StochasticTol per cell, that much included.
	// On 27895 cells StochasticTol*27895 is a multiple of 2^-53, so a
	// prior summing to exactly 1 minus it exists: one cell at 1-δ, the
	// rest 0. It is accepted and the next float below is refused; on four
	// cells a sum of 1 + 2 StochasticTol is within 4 StochasticTol.
	const n = 27895
	g := mustGrid(t, 5, n/5)
	tol := float64(kernels.StochasticTol) // rounded first, as checkPrior's operand
	delta := tol * n
	if f := delta * (1 << 53); f != math.Trunc(f) {
		t.Fatalf("StochasticTol*%d = %v is not a multiple of 2^-53", n, delta)
	}
	prior := make([]float64, n)
	prior[0] = 1 - delta
	if err := checkPrior("p", g, prior); err != nil {
		t.Errorf("sum 1 - %v on %d cells: %v", delta, n, err)
	}
	prior[0] = math.Nextafter(1-delta, 0)
	if err := checkPrior("p", g, prior); err == nil || !strings.Contains(err.Error(), "p: prior sums to") {
		t.Errorf("sum %v on %d cells: error %v", prior[0], n, err)
	}
	small := mustGrid(t, 2, 2)
	q := []float64{0.25, 0.25, 0.25, 0.25 + 2*kernels.StochasticTol}
	if err := checkPrior("p", small, q); err != nil {
		t.Errorf("sum 1 + 2 tol on 4 cells: %v", err)
	}
}

func TestTightEpsOfRRIsItsParameterExactly(t *testing.T) {
	// On two or more cells RR's tight epsilon is its parameter, returned
	// as such (bit for bit, not a log-ratio recomputed from the channel);
	// on one cell the channel is constant and its tight epsilon is 0.
	for _, sz := range [][2]int{{1, 2}, {2, 1}, {2, 3}} {
		g := mustGrid(t, sz[0], sz[1])
		for _, eps := range []float64{0.1, 0.7, 1.3, 2.9, 5.5} {
			ch, err := RR{}.Channel(g, g, nil, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []Mechanism{RR{}, &RR{}} {
				if got, err := TightEpsOf(m, eps, ch); err != nil || got != eps {
					t.Errorf("%T on %v at eps %v: %v, %v; want exactly %v", m, g, eps, got, err, eps)
				}
			}
		}
	}
	one := mustGrid(t, 1, 1)
	ch, err := RR{}.Channel(one, one, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := TightEpsOf(RR{}, 2, ch); err != nil || got != 0 {
		t.Errorf("one cell: %v, %v; want 0", got, err)
	}
}

func TestRRProbabilitiesClosedForm(t *testing.T) {
	// p = e^eps/(e^eps+k-1), q = 1/(e^eps+k-1) for k >= 2; one cell (or
	// none) reports itself: p = 1, q = 0.
	for _, k := range []int{2, 3, 10} {
		for _, eps := range []float64{0.01, 1, 7} {
			p, q := RRProbabilities(k, eps)
			e := math.Exp(eps)
			if wp, wq := e/(e+float64(k-1)), 1/(e+float64(k-1)); math.Abs(p-wp) > 1e-15 || math.Abs(q-wq) > 1e-15 {
				t.Errorf("k=%d eps=%v: p, q = %v, %v; want %v, %v", k, eps, p, q, wp, wq)
			}
		}
	}
	for _, k := range []int{0, 1} {
		if p, q := RRProbabilities(k, 0.5); p != 1 || q != 0 {
			t.Errorf("k=%d: p, q = %v, %v; want 1, 0", k, p, q)
		}
	}
	// RR's claim: exactly eps from two cells on, 0 on one cell.
	for _, c := range []struct {
		rows, cols int
		want       float64
	}{{1, 1, 0}, {1, 2, 0.8}, {3, 3, 0.8}} {
		g := mustGrid(t, c.rows, c.cols)
		if cl := (RR{}).Claim(g, g, 0.8); cl.Lo != c.want || cl.Hi != c.want {
			t.Errorf("%v: claim [%v, %v], want [%v, %v]", g, cl.Lo, cl.Hi, c.want, c.want)
		}
	}
}
