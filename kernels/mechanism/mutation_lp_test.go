package mechanism

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"privic/kernels"
)

// geoCosts is the optimal mechanism's cost c[x*nOut+y] = prior(x) d(x,y),
// and the scale that makes the cheapest constant channel cost nIn,
// computed here from their definitions.
func geoCosts(in, out kernels.Grid, prior []float64) (cost []float64, scale float64) {
	nIn, nOut := in.Len(), out.Len()
	cost = make([]float64, nIn*nOut)
	cheapest := math.Inf(1)
	for y := 0; y < nOut; y++ {
		s := 0.0
		for x := 0; x < nIn; x++ {
			cost[x*nOut+y] = prior[x] * math.Hypot(float64(x/in.Cols-y/out.Cols), float64(x%in.Cols-y%out.Cols))
			s += cost[x*nOut+y]
		}
		cheapest = math.Min(cheapest, s)
	}
	return cost, float64(nIn) / cheapest
}

// newTestColGen sets up a decomposition of the all-pairs LP on g -> g
// with its initial columns, as OptimalSolver does, with the pricing rows
// extra and the given number of workers. The caller frees it before
// making the next: GLPK's models share one environment per thread, which
// freeing a decomposition discards.
func newTestColGen(t *testing.T, solver string, g kernels.Grid, prior []float64, eps float64, extra [][]pairRow, workers int) *colGen {
	t.Helper()
	cost, _ := geoCosts(g, g, prior)
	k := newGeoPairs(g, eps, nil)
	cg, err := newColGen(solver, g.Len(), g.Len(), cost, k, eps, extra, k.bumps(), cgOptions{gap: 1e-7, accept: 1e-6, alpha: 0.7, workers: workers})
	if err != nil {
		t.Fatalf("%s: %v", solver, err)
	}
	return cg
}

func TestColGenScalesCheapestConstantChannelToNIn(t *testing.T) {
	// The master's costs are the LP's times one factor, chosen so that the
	// cheapest constant channel costs |In|: whatever the prior's spread,
	// the solvers' absolute tolerances then meet costs of order 1.
	for _, s := range sparseSolvers(t) {
		for _, c := range []struct {
			rows, cols int
			prior      []float64
		}{
			{1, 2, []float64{0.3, 0.7}},
			{2, 3, []float64{1e-7, 0.2, 0.3, 0.1, 0.4 - 2e-7, 1e-7}},
			{2, 2, []float64{1 - 3e-9, 1e-9, 1e-9, 1e-9}},
		} {
			g := mustGrid(t, c.rows, c.cols)
			cost, want := geoCosts(g, g, c.prior)
			cg := newTestColGen(t, s, g, c.prior, 1, nil, 1)
			cg.free()
			if math.Abs(cg.scale-want) > 1e-12*want {
				t.Errorf("%s %v: scale %v, want %v", s, g, cg.scale, want)
			}
			n := g.Len()
			for x := 0; x < n; x++ {
				for y := 0; y < n; y++ {
					if got, w := cg.costY[y*n+x], cost[x*n+y]*want; math.Abs(got-w) > 1e-12*math.Max(w, 1) {
						t.Fatalf("%s %v: scaled cost of (%d, %d) %v, want %v", s, g, x, y, got, w)
					}
				}
			}
		}
	}
}

func TestDecomposePointMassPrior(t *testing.T) {
	// With all the prior on one cell every constant channel to that cell
	// costs 0 (so nothing can be scaled to cost |In|), and the optimum is
	// 0: the decomposition must return such a channel, not fail.
	g := mustGrid(t, 2, 3)
	for _, s := range sparseSolvers(t) {
		for _, at := range []int{0, 4} {
			prior := make([]float64, g.Len())
			prior[at] = 1
			ch, st, err := Optimal{Solver: s, Method: MethodDecompose}.Solve(g, g, prior, 0.7)
			if err != nil {
				t.Fatalf("%s point mass at %d: %v", s, at, err)
			}
			checkStochastic(t, s, ch, 1e-12)
			checkGeoInd(t, s, ch, 0.7, 0, 1e-12)
			if d := distortion(prior, ch); d != 0 || st.Primal != 0 {
				t.Errorf("%s point mass at %d: distortion %v (reported %v), want 0", s, at, d, st.Primal)
			}
		}
	}
}

// twoCellPricingMin is min w.v over v in [0,1]^2 with v0 <= e^eps v1 and
// v1 <= e^eps v0: the least of w on the polygon's vertices (0,0), (1,1),
// (1,e^-eps) and (e^-eps,1).
func twoCellPricingMin(w []float64, eps float64) float64 {
	k := math.Exp(-eps)
	return min(0, w[0]+w[1], w[0]+k*w[1], k*w[0]+w[1])
}

func TestColGenPricingBoundTwoCells(t *testing.T) {
	// Each output's pricing bound is the minimum of (c[.,y] - u).v over the
	// pricing polygon, whose vertices are known: L(u) = sum u + sum_y of
	// those minima; each improving column is a minimiser of its output's
	// reduced cost.
	g := mustGrid(t, 1, 2)
	prior := []float64{0.3, 0.7}
	cost, scale := geoCosts(g, g, prior)
	for _, s := range sparseSolvers(t) {
		for _, eps := range []float64{0.4, 1, 2.5} {
			for _, u := range [][]float64{{3, 1}, {-1, 5}, {1.5, 1.5}, {0, 0}} {
				cg := newTestColGen(t, s, g, prior, eps, nil, 2)
				lower, fresh, err := cg.priceAll(u)
				cg.free()
				if err != nil {
					t.Fatal(err)
				}
				want := u[0] + u[1]
				var improving [][]float64
				var mins []float64
				for y := 0; y < 2; y++ {
					w := []float64{cost[0*2+y]*scale - u[0], cost[1*2+y]*scale - u[1]}
					m := twoCellPricingMin(w, eps)
					want += m
					if m < -1e-6 {
						improving = append(improving, w)
						mins = append(mins, m)
					}
				}
				name := fmt.Sprintf("%s eps %v u %v", s, eps, u)
				if math.Abs(lower-want) > 1e-8 {
					t.Errorf("%s: bound %.12g, want %.12g", name, lower, want)
				}
				if len(fresh) != len(improving) {
					t.Fatalf("%s: %d improving columns, want %d", name, len(fresh), len(improving))
				}
				for i, v := range fresh {
					if got := improving[i][0]*v[0] + improving[i][1]*v[1]; math.Abs(got-mins[i]) > 1e-8 {
						t.Errorf("%s: column %v has reduced cost %v, want the minimum %v", name, v, got, mins[i])
					}
				}
			}
		}
	}
}

func TestColGenReportsPricingBackendFailure(t *testing.T) {
	// A pricing worker that cannot make its solver fails the setup with
	// the reason, whichever worker it is.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 1, 3)
	cost, _ := geoCosts(g, g, uniformPrior(3))
	k := newGeoPairs(g, 1, nil)
	for _, workers := range []int{1, 3} {
		cg, err := newColGen("nosuch", 3, 3, cost, k, 1, nil, k.bumps(), cgOptions{gap: 1e-7, alpha: 0.7, workers: workers, master: s})
		if err == nil {
			cg.free()
			t.Fatalf("%d workers: pricing solver nosuch accepted", workers)
		}
		if !strings.Contains(err.Error(), `unknown LP solver "nosuch"`) {
			t.Errorf("%d workers: error %q does not name the solver", workers, err)
		}
	}
}

func TestColGenStartsPricingWithExtraRows(t *testing.T) {
	// Each output's pricing model starts with K's 8-neighbour rows and the
	// rows extra[y] an earlier solve needed (outputs past len(extra) with
	// none), whichever worker owns it.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 1, 4)
	eps := 0.8
	extra := [][]pairRow{{{0, 2, 2}}, nil, {{3, 0, 3}, {0, 3, 3}}}
	for _, workers := range []int{1, 2} {
		cg := newTestColGen(t, s, g, uniformPrior(4), eps, extra, workers)
		for y, p := range cg.pricers {
			// The 1x4 grid's 8-neighbour pairs, both ways.
			want := [][2]int32{{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}}
			if y < len(extra) {
				for _, r := range extra[y] {
					want = append(want, [2]int32{r.a, r.b})
				}
			}
			var got [][2]int32
			for i := range p.a {
				got = append(got, [2]int32{p.a[i], p.b[i]})
				d := math.Abs(float64(p.a[i] - p.b[i]))
				if math.Abs(p.k[i]-math.Exp(-eps*d)) > 1e-15 {
					t.Errorf("%d workers, output %d: row %v has factor %v, want e^(-%v * %v)", workers, y, got[i], p.k[i], eps, d)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d workers, output %d: rows %v, want %v", workers, y, got, want)
			}
			checkHas(t, fmt.Sprintf("%d workers, output %d", workers, y), p, 4)
		}
		cg.free()
	}
}

// checkHas fails t unless p.has marks exactly p's pairs.
func checkHas(t *testing.T, name string, p *pricer, n int) {
	t.Helper()
	want := make([]bool, n*n)
	for i := range p.a {
		want[int(p.a[i])*n+int(p.b[i])] = true
	}
	if !slices.Equal(p.has, want) {
		t.Errorf("%s: has %v, want %v", name, p.has, want)
	}
}

// rowRecorder is an lpModel that records the rows added to it.
type rowRecorder struct {
	lpModel
	lo, up, val []float64
	start, idx  []int32
}

func (r *rowRecorder) addRows(lo, up []float64, start, idx []int32, val []float64) error {
	r.lo, r.up, r.start, r.idx, r.val = lo, up, start, idx, val
	return nil
}

func TestAddPricingRowsWritesPairRows(t *testing.T) {
	// Pair (a, b) becomes the row e^{-eps d(a,b)} v[a] - v[b] <= 0, given
	// in compressed form; the pricer records it in a, b, k and has. Given
	// factors (a rebuilt model) are used as they are. The arrays handed to
	// the solver are allocated once each, whatever the number of rows.
	g := mustGrid(t, 3, 3)
	eps := 1.3
	cg := &colGen{nIn: 9, k: newGeoPairs(g, eps, nil)}
	rs := []pairRow{{0, 8, math.Sqrt(8)}, {5, 1, math.Sqrt(2)}, {2, 6, math.Sqrt(8)}, {7, 3, math.Sqrt(2)}}
	for _, ks := range [][]float64{nil, {0.5, 0.25, 0.125, 0.0625}} {
		rec := &rowRecorder{}
		p := &pricer{model: rec, has: make([]bool, 81)}
		if err := cg.addPricingRowsK(p, rs, ks); err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			k := math.Exp(-eps * r.d)
			if ks != nil {
				k = ks[i]
			}
			if !math.IsInf(rec.lo[i], -1) || rec.up[i] != 0 {
				t.Errorf("row %d: bounds [%v, %v], want (-Inf, 0]", i, rec.lo[i], rec.up[i])
			}
			if rec.start[i] != int32(2*i) || rec.start[i+1] != int32(2*i+2) {
				t.Errorf("row %d: starts at %d, ends at %d, want %d, %d", i, rec.start[i], rec.start[i+1], 2*i, 2*i+2)
			}
			if got := [4]float64{float64(rec.idx[2*i]), rec.val[2*i], float64(rec.idx[2*i+1]), rec.val[2*i+1]}; got != [4]float64{float64(r.a), k, float64(r.b), -1} {
				t.Errorf("row %d: entries %v, want %v", i, got, [4]float64{float64(r.a), k, float64(r.b), -1})
			}
			if p.a[i] != r.a || p.b[i] != r.b || p.k[i] != k {
				t.Errorf("row %d: pricer holds (%d, %d, %v), want (%d, %d, %v)", i, p.a[i], p.b[i], p.k[i], r.a, r.b, k)
			}
		}
		if len(rec.lo) != len(rs) || len(rec.start) != len(rs)+1 || len(rec.idx) != 2*len(rs) || len(rec.val) != 2*len(rs) {
			t.Errorf("arrays of lengths %d, %d, %d, %d for %d rows", len(rec.lo), len(rec.start), len(rec.idx), len(rec.val), len(rs))
		}
		checkHas(t, "4 rows", p, 9)
	}
	// All 72 ordered pairs of the 3x3 grid, with room for them in the
	// pricer, so that only the arrays of the rows themselves allocate.
	var all []pairRow
	for a := int32(0); a < 9; a++ {
		for b := int32(0); b < 9; b++ {
			if a != b {
				all = append(all, pairRow{a, b, kernels.Dist(g, int(a), g, int(b))})
			}
		}
	}
	p := &pricer{model: &rowRecorder{}, has: make([]bool, 81), a: make([]int32, 0, 72), b: make([]int32, 0, 72), k: make([]float64, 0, 72)}
	allocs := func(rs []pairRow) float64 {
		return testing.AllocsPerRun(20, func() {
			p.a, p.b, p.k = p.a[:0], p.b[:0], p.k[:0]
			if err := cg.addPricingRows(p, rs); err != nil {
				t.Fatal(err)
			}
		})
	}
	if few, many := allocs(all[:3]), allocs(all); many > 5 || many != few {
		t.Errorf("adding 3 rows allocates %v times, 72 rows %v times: want the same, at most 5 (lo, up, start, idx, val)", few, many)
	}
}

// checkReleased fails t unless the solver model m has been deleted.
func checkReleased(t *testing.T, name string, m lpModel) {
	t.Helper()
	r, ok := m.(interface{ released() bool })
	if !ok {
		t.Fatalf("%s: model %T cannot tell whether it is released", name, m)
	}
	if !r.released() {
		t.Errorf("%s: model not released", name)
	}
}

func TestColGenFreeReleasesEveryModel(t *testing.T) {
	// Freeing a decomposition deletes the master and every output's
	// pricing model (the solvers' memory is not Go's: a model not deleted
	// leaks); freeing a model twice is harmless.
	g := mustGrid(t, 2, 2)
	for _, s := range sparseSolvers(t) {
		for _, workers := range []int{1, 3} {
			cg := newTestColGen(t, s, g, uniformPrior(4), 1, nil, workers)
			models := []lpModel{cg.master}
			for _, p := range cg.pricers {
				models = append(models, p.model)
			}
			cg.free()
			for i, m := range models {
				checkReleased(t, fmt.Sprintf("%s, %d workers, model %d", s, workers, i), m)
			}
		}
		back, err := newLPBackend(s)
		if err != nil {
			t.Fatal(err)
		}
		m, err := back.model()
		if err != nil {
			t.Fatal(err)
		}
		m.free()
		m.free()
		checkReleased(t, s+" model freed twice", m)
		back.close()
	}
}
