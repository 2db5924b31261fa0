package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"privic/kernels"
)

// newAxis lays out exactly the distinct intervals, relative to the input
// coordinate, of the report cells' nearest-cell intervals (a unit interval
// per interior offset, a half-line per input coordinate at either end, or
// the whole line for a single report coordinate), and every (input,
// report) pair names its own interval.
func TestNewAxisLayout(t *testing.T) {
	for _, c := range [][4]int{{0, 4, 0, 4}, {2, 3, -1, 6}, {0, 5, 1, 2}, {-2, 3, 0, 1}, {0, 1, 0, 3}, {1, 2, 4, 1}} {
		in0, nIn, out0, nOut := c[0], c[1], c[2], c[3]
		a := newAxis(in0, nIn, out0, nOut)
		distinct := map[[2]float64]bool{}
		for i := range nIn {
			for j := range nOut {
				lo, hi := cellInterval(out0+j, out0, out0+nOut-1)
				x := float64(in0 + i)
				iv := [2]float64{lo - x, hi - x}
				distinct[iv] = true
				id := a.ids[i*nOut+j]
				if got := [2]float64{a.lo[id], a.hi[id]}; got != iv {
					t.Errorf("%v: input %d report %d: interval %d = %v, want %v", c, i, j, id, got, iv)
				}
			}
		}
		if len(a.lo) != len(distinct) || len(a.hi) != len(distinct) {
			t.Errorf("%v: %d intervals, want the %d distinct ones", c, len(a.lo), len(distinct))
		}
		if nOut == 1 && (a.high != -1 || a.low != 0) {
			t.Errorf("%v: one report coordinate: low %d high %d, want 0 and -1", c, a.low, a.high)
		}
		if want := max(nOut-2, 0); a.interior != want {
			t.Errorf("%v: %d interior report coordinates, want %d", c, a.interior, want)
		}
	}
}

// NewOp's table holds no waste: every pair of a row and a column interval
// is the pair of some channel entry, and positive (eps moderate, nothing
// underflows).
func TestPlanarOpTableEntriesAllUsed(t *testing.T) {
	in := kernels.Grid{Rows: 3, Cols: 4, Row0: 1, Col0: -2}
	for _, out := range []kernels.Grid{in, in.Widen(1), {Rows: 5, Cols: 2, Row0: 0, Col0: -1}, {Rows: 2, Cols: 1, Row0: 2, Col0: 0}} {
		op, err := PlanarLaplace{}.NewOp(in, out, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		used := map[int]bool{}
		for x := range in.Len() {
			i, ic := in.Cell(x)
			for y := range out.Len() {
				j, jc := out.Cell(y)
				used[int(op.ridOf[i*out.Rows+j])*op.nCid+int(op.cidOf[ic*out.Cols+jc])] = true
			}
		}
		if len(used) != len(op.v) {
			t.Errorf("%v: the entries use %d of %d table entries", out, len(used), len(op.v))
		}
		for k, v := range op.v {
			if !used[k] || !(v > 0) {
				t.Errorf("%v: table entry %d = %v, used by an entry: %v", out, k, v, used[k])
			}
		}
	}
}

// RelTol must lie in [0, 1) (0 meaning the default); the refusal names it.
func TestPlanarLaplaceRelTolRange(t *testing.T) {
	g := mustGrid(t, 2, 3)
	for _, tol := range []float64{1, 1.5, -1e-3, math.NaN()} {
		_, err := PlanarLaplace{RelTol: tol}.Channel(g, g, nil, 1)
		if err == nil || !strings.Contains(err.Error(), "RelTol") || !strings.Contains(err.Error(), "must be in (0, 1)") {
			t.Errorf("RelTol %v: error %v, want a refusal naming RelTol", tol, err)
		}
	}
	for _, tol := range []float64{0, 1e-9, 0.999} {
		if _, err := (PlanarLaplace{RelTol: tol}).NewOp(g, g, 1); err != nil {
			t.Errorf("RelTol %v: %v", tol, err)
		}
	}
}

// One report column (and one report row, and a single report cell) with
// input grids several columns wide: the operator is the dense channel,
// entries bit for bit and products to rounding.
func TestPlanarOpSingleReportColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	in := mustGrid(t, 4, 5)
	for _, out := range []kernels.Grid{{Rows: 3, Cols: 1, Row0: 1, Col0: 2}, {Rows: 1, Cols: 1, Row0: 0, Col0: 0}, {Rows: 1, Cols: 6, Row0: 5, Col0: -1}} {
		for _, pm := range []PointModel{UniformInCell, CellCentre} {
			m := PlanarLaplace{Point: pm}
			ch, err := m.Channel(in, out, nil, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			op, err := m.NewOp(in, out, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			d, err := op.Dense()
			if err != nil {
				t.Fatal(err)
			}
			for i := range ch.P {
				if d.P[i] != ch.P[i] {
					t.Fatalf("%v %v: entry %d = %v, dense %v", pm, out, i, d.P[i], ch.P[i])
				}
			}
			v := make([]float64, out.Len())
			for y := range v {
				v[y] = rng.ExpFloat64()
			}
			checkProducts(t, pm.String()+" "+out.String(), op, ch, v, opPrior(rng, in), 1e-13)
		}
	}
}

// Sample takes input cells 0 to |In|-1 and refuses the others by name.
func TestPlanarOpSampleInputRange(t *testing.T) {
	in := mustGrid(t, 2, 3)
	op, err := PlanarLaplace{}.NewOp(in, in, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, in.Len())
	for _, x := range []int{0, in.Len() - 1} {
		if err := op.Sample(rand.New(rand.NewPCG(1, 1)), x, 10, out); err != nil {
			t.Errorf("sample from input %d: %v", x, err)
		}
	}
	for _, x := range []int{-1, in.Len()} {
		err := op.Sample(rand.New(rand.NewPCG(1, 1)), x, 10, out)
		if err == nil || !strings.Contains(err.Error(), "want 0 to 5") {
			t.Errorf("sample from input %d: %v, want a refusal naming the range 0 to 5", x, err)
		}
	}
}

// The refusal of a too large tight epsilon says how big the brute force
// would be: |In|^2 |Out| / 2 pairs of inputs and reports.
func TestPlanarOpTightEpsRefusalSize(t *testing.T) {
	g := mustGrid(t, 40, 45)
	op := &PlanarOp{In: g, Out: g.Widen(1), Eps: 1} // the size is checked before the table is read
	m, n := 40.0*45, 42.0*47
	_, err := op.TightEpsilon()
	if want := fmt.Sprintf("%.3g pairs", m*m*n/2); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tight eps on %v: %v, want a refusal over %s", g, err, want)
	}
}

// PlanarOp's distortion and mutual information against sums written out
// here over the dense channel's entries (Euclidean distances from the
// cells' absolute positions; zero entries contribute nothing to the
// information), with strong noise (eps = 200) so that far entries
// underflow to exactly 0.
func TestPlanarOpMetricsBruteForce(t *testing.T) {
	in := mustGrid(t, 3, 4)
	out := in.Widen(3)
	prior := opPrior(rand.New(rand.NewPCG(3, 3)), in)
	prior[0] = 0.05 // the deserted corner gets a little mass, the rest keeps its zeros
	normalise(prior)
	for _, eps := range []float64{0.8, 200} {
		m := PlanarLaplace{}
		ch, err := m.Channel(in, out, nil, eps)
		if err != nil {
			t.Fatal(err)
		}
		op, err := m.NewOp(in, out, eps)
		if err != nil {
			t.Fatal(err)
		}
		zeros := 0
		q := make([]float64, out.Len())
		for x, px := range prior {
			for y, c := range ch.Row(x) {
				q[y] += px * c
			}
		}
		wantD, wantMI := 0.0, 0.0
		for x, px := range prior {
			xr, xc := in.Abs(x)
			for y, c := range ch.Row(x) {
				yr, yc := out.Abs(y)
				wantD += px * c * math.Hypot(float64(xr-yr), float64(xc-yc))
				if c == 0 {
					zeros++
					continue
				}
				wantMI += px * c * math.Log(c/q[y])
			}
		}
		if eps == 200 && zeros == 0 {
			t.Fatalf("eps %v: no entry underflows", eps)
		}
		d, err := op.AvgDistortion(prior)
		if err != nil {
			t.Fatal(err)
		}
		mi, err := op.MutualInformation(prior)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(d-wantD) <= 1e-12*wantD) || !(math.Abs(mi-wantMI) <= 1e-10*wantMI) {
			t.Errorf("eps %v: distortion %v, MI %v; brute force %v, %v", eps, d, mi, wantD, wantMI)
		}
	}
}
