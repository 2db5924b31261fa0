package mechanism

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"privic/kernels"
)

// opPrior is a random prior with a deserted corner (also a vector with
// zeros to multiply operators with).
func opPrior(rng *rand.Rand, g kernels.Grid) []float64 {
	p := make([]float64, g.Len())
	for i := range p {
		if r, c := g.Cell(i); r >= g.Rows/3 || c >= g.Cols/3 {
			p[i] = rng.ExpFloat64()
		}
	}
	normalise(p)
	return p
}

// checkProducts compares op's products C v and C^T u with those of the
// dense channel ch (denseApply, denseApplyT), to relative tolerance tol.
func checkProducts(t *testing.T, name string, op kernels.ChannelOp, ch *kernels.Channel, v, u []float64, tol float64) {
	t.Helper()
	in, out := op.Grids()
	got, gotT := make([]float64, in.Len()), make([]float64, out.Len())
	if err := op.Apply(got, v); err != nil {
		t.Fatal(err)
	}
	if err := op.ApplyT(gotT, u); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		what      string
		got, want []float64
	}{{"C v", got, denseApply(ch, v)}, {"C^T u", gotT, denseApplyT(ch, u)}} {
		for i, w := range p.want {
			if !relClose(p.got[i], w, tol) {
				t.Fatalf("%s: (%s)[%d] = %v, dense %v", name, p.what, i, p.got[i], w)
			}
		}
	}
}

// denseApply is C v from the matrix.
func denseApply(ch *kernels.Channel, v []float64) []float64 {
	out := make([]float64, ch.In.Len())
	for x := range out {
		for y, c := range ch.Row(x) {
			out[x] += c * v[y]
		}
	}
	return out
}

// denseApplyT is C^T u from the matrix.
func denseApplyT(ch *kernels.Channel, u []float64) []float64 {
	out := make([]float64, ch.Out.Len())
	for x, w := range u {
		for y, c := range ch.Row(x) {
			out[y] += w * c
		}
	}
	return out
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))+1e-300
}

// The planar operator's table holds the dense quadrature's entries bit for
// bit (for the base grid, a widened one, one report row, two report
// columns, both point models), and its products, draws, tight epsilon,
// distortion and mutual information are those of the dense channel.
func TestPlanarOpMatchesDenseChannel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := mustGrid(t, 5, 7)
	outs := []kernels.Grid{base, base.Widen(2), {Rows: 1, Cols: 4, Row0: 2, Col0: 1}, {Rows: 6, Cols: 2, Row0: -1, Col0: 3}}
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, out := range outs {
			for _, eps := range []float64{0.3, 1.7} {
				m := PlanarLaplace{Point: pm}
				ch, err := m.Channel(base, out, nil, eps)
				if err != nil {
					t.Fatal(err)
				}
				op, err := m.NewOp(base, out, eps)
				if err != nil {
					t.Fatal(err)
				}
				d, err := op.Dense()
				if err != nil {
					t.Fatal(err)
				}
				name := pm.String() + " " + out.String()
				for i := range ch.P {
					if d.P[i] != ch.P[i] {
						t.Fatalf("%s eps %v: entry %d = %v, dense quadrature %v", name, eps, i, d.P[i], ch.P[i])
					}
				}
				u := opPrior(rng, base)
				checkProducts(t, name, op, ch, opPrior(rng, out), u, 1e-13)
				eo, err := op.TightEpsilon()
				if err != nil {
					t.Fatal(err)
				}
				if ed := bruteTightEps(ch); !relClose(eo, ed, 1e-12) {
					t.Errorf("%s: tight eps %v, brute force %v", name, eo, ed)
				}
				do, _ := op.AvgDistortion(u)
				dd, _ := kernels.AvgDistortion(u, ch)
				mo, _ := op.MutualInformation(u)
				md, _ := kernels.MutualInformation(u, ch)
				if !relClose(do, dd, 1e-12) || !relClose(mo, md, 1e-10) {
					t.Errorf("%s: distortion %v vs %v, MI %v vs %v", name, do, dd, mo, md)
				}
				// The same draws as the dense channel from the same source.
				for _, k := range []int{3, 500} {
					a, b := make([]int, out.Len()), make([]int, out.Len())
					if err := op.Sample(rand.New(rand.NewPCG(5, uint64(k))), 7, k, a); err != nil {
						t.Fatal(err)
					}
					if err := ch.Sample(rand.New(rand.NewPCG(5, uint64(k))), 7, k, b); err != nil {
						t.Fatal(err)
					}
					for y := range a {
						if a[y] != b[y] {
							t.Fatalf("%s: %d draws differ at %d: %d vs %d", name, k, y, a[y], b[y])
						}
					}
				}
			}
		}
	}
}

// Above planarTightEpsMax operations the planar operator refuses its
// tight epsilon with ErrIntractable, and Measure records it as skipped.
func TestPlanarOpRefusesLargeTightEps(t *testing.T) {
	g := mustGrid(t, 40, 45) // 1,800 cells: 3.1e9 pairs x reports
	op, err := PlanarLaplace{Point: CellCentre}.NewOp(g, g.Widen(1), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.TightEpsilon(); !errors.Is(err, ErrIntractable) {
		t.Fatalf("tight eps on %v: %v, want ErrIntractable", g, err)
	}
	met, skipped, err := Measure(uniformPrior(g.Len()), op, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(met.TightEps) || !math.IsNaN(met.BayesError) || len(skipped) != 2 {
		t.Errorf("metrics %+v, skipped %q", met, skipped)
	}
	if !(met.AvgDistortion > 0 && met.MutualInformation > 0) {
		t.Errorf("metrics %+v", met)
	}
}

// The operators of BA, LAP and RR are the dense channels: products (both
// ways), target values and identification agree.
func TestOperatorsMatchChannels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := mustGrid(t, 8, 9)
	prior := opPrior(rng, g)
	for _, tc := range []struct {
		m     Operator
		out   kernels.Grid
		param float64
	}{
		{BA{}, g, 0.7}, {LAP{}, g.Widen(2), 0.9}, {RR{}, g, 1.5}, {PlanarLaplace{}, g, 1.2}, {PlanarLaplace{}, g.Widen(1), 0.6},
	} {
		name := tc.m.Info().Name
		ch, err := tc.m.Channel(g, tc.out, prior, tc.param)
		if err != nil {
			t.Fatal(err)
		}
		op, err := tc.m.Op(g, tc.out, prior, tc.param)
		if err != nil {
			t.Fatal(err)
		}
		checkProducts(t, name, op, ch, opPrior(rng, tc.out), opPrior(rng, g), 1e-12)
		for _, tg := range []Target{TargetEps, TargetDistortion, TargetMI} {
			vo, err := TargetValue(tg, prior, op)
			if err != nil {
				t.Fatal(err)
			}
			vd, err := TargetValue(tg, prior, ch)
			if err != nil {
				t.Fatal(err)
			}
			if !relClose(vo, vd, 1e-9) {
				t.Errorf("%s %v: operator %v, dense %v", name, tg, vo, vd)
			}
		}
		a := g.Index(5, 6)
		po, mo, err := Identification(prior, op, a)
		if err != nil {
			t.Fatal(err)
		}
		pd, md, err := Identification(prior, ch, a)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(po, pd, 1e-9) || !relClose(mo, md, 1e-9) {
			t.Errorf("%s: identification %v/%v, dense %v/%v", name, po, mo, pd, md)
		}
	}
}

// Calibration on operators finds the dense calibration's parameter, on a
// grid where the kernels use the structured forms (1,056 cells).
func TestCalibrateOperators(t *testing.T) {
	g := mustGrid(t, 32, 33)
	prior := opPrior(rand.New(rand.NewPCG(5, 6)), g)
	for _, tc := range []struct {
		m    Mechanism
		out  kernels.Grid
		t    Target
		goal float64
	}{{BA{}, g, TargetEps, 1.3}, {LAP{}, g.Widen(2), TargetDistortion, 2}, {RR{}, g, TargetMI, 0.8}} {
		opt := CalibrateOptions{RelTol: 1e-8, Method: Illinois}
		d, err := Calibrate(context.Background(), tc.m, g, tc.out, prior, tc.t, tc.goal, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Operators = true
		o, err := Calibrate(context.Background(), tc.m, g, tc.out, prior, tc.t, tc.goal, opt)
		if err != nil {
			t.Fatal(err)
		}
		if o.Op == nil || o.Channel != nil || d.Channel == nil {
			t.Fatalf("%s: channels %v/%v", tc.m.Info().Name, o.Op, d.Channel)
		}
		if !relClose(o.Param, d.Param, 1e-6) {
			t.Errorf("%s %v: operator parameter %v, dense %v", tc.m.Info().Name, tc.t, o.Param, d.Param)
		}
	}
	if _, err := Calibrate(context.Background(), Optimal{}, g, g, prior, TargetEps, 1, CalibrateOptions{Operators: true}); err == nil {
		t.Error("calibrating the LP mechanism on operators did not fail")
	}
}

// PlanarOp's columns are those of the dense channel, and its products with
// sparse vectors (which skip the report rows where v is zero) too.
func TestPlanarOpColumns(t *testing.T) {
	g := mustGrid(t, 6, 5)
	for _, out := range []kernels.Grid{g, g.Widen(2), {Rows: 1, Cols: 7, Row0: 2, Col0: -1}} {
		m := PlanarLaplace{Point: CellCentre}
		op, err := m.NewOp(g, out, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := m.Channel(g, out, nil, 0.8)
		col := make([]float64, g.Len())
		viaApply := make([]float64, g.Len())
		e := make([]float64, out.Len())
		for y := range out.Len() {
			op.Column(col, y)
			e[y] = 1
			if err := op.Apply(viaApply, e); err != nil {
				t.Fatal(err)
			}
			e[y] = 0
			for x := range col {
				if want := ch.P[x*out.Len()+y]; col[x] != want || viaApply[x] != want {
					t.Fatalf("%v: C[%d,%d] column %v, apply %v, dense %v", out, x, y, col[x], viaApply[x], want)
				}
			}
		}
	}
}
