package mechanism

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"privic/kernels"
	"privic/kernels/lp"
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
			// The initial master holds the constant channel, and L(0) = 0
			// certifies it: one round.
			if st.Rounds != 1 {
				t.Errorf("%s point mass at %d: %d rounds, want 1", s, at, st.Rounds)
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
	// Each output's pricing bound is the minimum of w.v, w = c[.,y] - u,
	// over the pricing polygon, whose vertices are known: L(u) = sum u +
	// sum_y of those minima. An output gives a column when its minimum is
	// below -colTol |w|_1, and the column is a minimiser. The duals come
	// one after the other, each solve warm from the last, as in a run:
	// among them u = c[.,0] (w = 0 for output 0, right after a u whose
	// optimum for it is (1, 1), which stays optimal) and duals whose
	// minimum for output 0 is just above or below the threshold.
	g := mustGrid(t, 1, 2)
	prior := []float64{0.3, 0.7}
	cost, scale := geoCosts(g, g, prior)
	for _, s := range sparseSolvers(t) {
		for _, eps := range []float64{0.4, 1, 2.5} {
			cg := newTestColGen(t, s, g, prior, eps, nil, 2)
			c0 := []float64{cost[0] * scale, cost[2] * scale}
			// w = 100 (-1, e^eps - delta) has its minimum -100 e^-eps delta
			// at (1, e^-eps); delta puts it at f colTol |w|_1.
			near := func(f float64) []float64 {
				l1 := 100 * (1 + math.Exp(eps))
				delta := f * colTol * l1 / (100 * math.Exp(-eps))
				return []float64{c0[0] + 100, c0[1] - 100*(math.Exp(eps)-delta)}
			}
			for _, u := range [][]float64{{3, 1}, {-1, 5}, {5, 5}, c0, {1.5, 1.5}, near(0.5), near(3), {0, 0}} {
				lower, fresh, err := cg.priceAll(u)
				if err != nil {
					cg.free()
					t.Fatal(err)
				}
				want := u[0] + u[1]
				var improving [][]float64
				var mins []float64
				for y := 0; y < 2; y++ {
					w := []float64{cost[0*2+y]*scale - u[0], cost[1*2+y]*scale - u[1]}
					m := twoCellPricingMin(w, eps)
					want += m
					if m < -colTol*(math.Abs(w[0])+math.Abs(w[1])) {
						improving = append(improving, w)
						mins = append(mins, m)
					}
				}
				name := fmt.Sprintf("%s eps %v u %v", s, eps, u)
				if math.Abs(lower-want) > 1e-8 {
					t.Errorf("%s: bound %.12g, want %.12g", name, lower, want)
				}
				if len(fresh) != len(improving) {
					t.Errorf("%s: %d improving columns %v, want %d", name, len(fresh), fresh, len(improving))
					continue
				}
				for i, v := range fresh {
					if got := improving[i][0]*v[0] + improving[i][1]*v[1]; math.Abs(got-mins[i]) > 1e-8*math.Max(1, -mins[i]) {
						t.Errorf("%s: column %v has reduced cost %v, want the minimum %v", name, v, got, mins[i])
					}
				}
			}
			cg.free()
		}
	}
}

// TestColGenCheapestOutput: h is the least cost of r over the outputs,
// at the first of the outputs that reach it.
func TestColGenCheapestOutput(t *testing.T) {
	cg := &colGen{nIn: 2, nOut: 4, costY: []float64{3, 1, 2, 0.5, 2, 0.5, 1, 2}}
	for _, c := range []struct {
		r     []float64
		y     int
		value float64
	}{
		{[]float64{1, 1}, 1, 2.5},   // outputs 1 and 2 tie: the first
		{[]float64{1, 0}, 3, 1},     // output 3 only
		{[]float64{0, 1}, 1, 0.5},   // 1 and 2 tie again
		{[]float64{1, 4}, 1, 4},     // 1 and 2 tie again
		{[]float64{0, 0}, 0, 0},     // all tie
		{[]float64{4, 0.1}, 3, 4.2}, // 3 only
	} {
		y, v := cg.h(c.r)
		if y != c.y || math.Abs(v-c.value) > 1e-15 {
			t.Errorf("h(%v) = %d, %v; want %d, %v", c.r, y, v, c.y, c.value)
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

// rowRecorder is an lp.Model that records the rows added to it.
type rowRecorder struct {
	lp.Model
	lo, up, val []float64
	start, idx  []int32
}

func (r *rowRecorder) AddRows(lo, up []float64, start, idx []int32, val []float64) error {
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

// freeCounter is a model that counts the calls to its Free (whether Free
// releases the solver's model is package lp's contract, checked there).
type freeCounter struct {
	lp.Model
	frees int
}

func (m *freeCounter) Free() {
	m.frees++
	m.Model.Free()
}

func TestColGenFreeReleasesEveryModel(t *testing.T) {
	// Freeing a decomposition frees the master and every output's pricing
	// model once each (the solvers' memory is not Go's: a model not freed
	// leaks).
	g := mustGrid(t, 2, 2)
	for _, s := range sparseSolvers(t) {
		for _, workers := range []int{1, 3} {
			cg := newTestColGen(t, s, g, uniformPrior(4), 1, nil, workers)
			// The workers are idle until priced: their models may be
			// wrapped.
			master := &freeCounter{Model: cg.master}
			cg.master = master
			models := []*freeCounter{master}
			for _, p := range cg.pricers {
				m := &freeCounter{Model: p.model}
				p.model = m
				models = append(models, m)
			}
			cg.free()
			for i, m := range models {
				if m.frees != 1 {
					t.Errorf("%s, %d workers, model %d: freed %d times, want once", s, workers, i, m.frees)
				}
			}
		}
	}
}

func TestColGenColumnIsSmallestConeMajorant(t *testing.T) {
	// A pricing solution v enters the master as r[x] = max_z v[z]
	// e^{-epsCol d(x,z)} scaled to a largest entry of 1 (epsCol below the
	// pricing cone's eps); a v with no positive finite top has no column.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 2, 3)
	n := g.Len()
	cost, _ := geoCosts(g, g, uniformPrior(n))
	k := newGeoPairs(g, 1.5, nil)
	epsCol := 1.2
	cg, err := newColGen(s, n, n, cost, k, epsCol, nil, k.bumps(), cgOptions{gap: 1e-7, alpha: 0.7, workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cg.free()
	for _, v := range [][]float64{
		{0.2, 0.9, 0.1, 0.4, 0.05, 0.7},
		{1e-3, 0, 0, 0, 0, 0},
		{0, 0, 3, -1e-12, 0, 2},
		{0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
	} {
		want := make([]float64, n)
		top := 0.0
		for x := range want {
			for z, vz := range v {
				want[x] = math.Max(want[x], vz*math.Exp(-epsCol*kernels.Dist(g, x, g, z)))
			}
			top = math.Max(top, want[x])
		}
		got := cg.column(v)
		for x := range want {
			if math.Abs(got[x]-want[x]/top) > 1e-15 {
				t.Fatalf("column(%v) = %v, want %v / %v", v, got, want, top)
			}
		}
	}
	for _, v := range [][]float64{{0, 0, 0, 0, 0, 0}, {0, -1e-12, 0, 0, 0, 0}, {0, 0, math.Inf(1), 0, 0, 0}, {0, math.NaN(), 0, 0, 0, 0}} {
		if r := cg.column(v); r != nil {
			t.Errorf("column(%v) = %v, want nil", v, r)
		}
	}
}

// colRecorder is an lp.Model that records the columns deleted from it.
type colRecorder struct {
	lp.Model
	deleted [][]int32
}

func (r *colRecorder) DelCols(idx []int32) error {
	r.deleted = append(r.deleted, slices.Clone(idx))
	return nil
}

func TestColGenPurgeDeletesOldNonbasicColumns(t *testing.T) {
	// A column leaves the master when the master holds more than purgeMin
	// columns per row, it has been unused (lambda = 0) for purgeAge rounds
	// and its reduced cost h - u.r is clearly positive (above 1e-9 (1 +
	// |h|)); a used column's age restarts at 0. A deleted column is
	// forgotten (pricing may bring it back); the rest keep their order.
	type col struct {
		lambda float64
		age    int
		h, r0  float64 // u = (1, 0), r = (r0, 1): reduced cost h - r0
	}
	cols := []col{
		{0.3, 25, 1, 0},        // used: age restarts
		{0, 19, 1, 0},          // old, rc 1: deleted
		{0, 18, 1, 0},          // not yet old
		{0, 19, 0.5, 0.5},      // rc 0: kept
		{0, 19, 0, -1e-9},      // rc exactly 1e-9 (1 + |h|): kept
		{0, 19, 1, 1 - 3e-9},   // rc 3e-9 > 2e-9: deleted
		{0, 19, 1, 1 - 1.5e-9}, // rc 1.5e-9 < 2e-9: kept
		{0, 40, 3, 1},          // rc 2: deleted
		{0, 19, 0.2, 1},        // rc < 0: kept
		{1e-300, 19, 1, 0},     // used, however little
	}
	wantDel := []int32{1, 5, 7}
	wantAge := []int{0, 19, 20, 20, 20, 20, 0}
	setup := func(cols []col) (*colGen, *colRecorder, []float64) {
		rec := &colRecorder{}
		cg := &colGen{nIn: 2, master: rec, seen: map[uint64]bool{}}
		lambda := make([]float64, len(cols))
		for j, c := range cols {
			cg.pool = append(cg.pool, []float64{c.r0, 1})
			cg.poolY = append(cg.poolY, j)
			cg.poolH = append(cg.poolH, c.h)
			cg.poolKey = append(cg.poolKey, uint64(100+j))
			cg.poolAge = append(cg.poolAge, c.age)
			cg.seen[uint64(100+j)] = true
			lambda[j] = c.lambda
		}
		return cg, rec, lambda
	}
	cg, rec, lambda := setup(cols)
	if err := cg.purge(lambda, []float64{1, 0}); err != nil {
		t.Fatal(err)
	}
	if len(rec.deleted) != 1 || !slices.Equal(rec.deleted[0], wantDel) {
		t.Fatalf("deleted %v, want one call deleting %v", rec.deleted, wantDel)
	}
	var kept []int
	for j := range cols {
		if !slices.Contains(wantDel, int32(j)) {
			kept = append(kept, j)
		}
	}
	if !slices.Equal(cg.poolAge, wantAge) {
		t.Errorf("ages %v, want %v", cg.poolAge, wantAge)
	}
	for i, j := range kept {
		if cg.poolY[i] != j || cg.poolH[i] != cols[j].h || cg.poolKey[i] != uint64(100+j) || cg.pool[i][0] != cols[j].r0 {
			t.Errorf("pool entry %d is (%d, %v, %d, %v), want column %d", i, cg.poolY[i], cg.poolH[i], cg.poolKey[i], cg.pool[i], j)
		}
	}
	if len(cg.pool) != len(kept) || len(cg.poolY) != len(kept) || len(cg.poolH) != len(kept) || len(cg.poolKey) != len(kept) || len(cg.poolAge) != len(kept) {
		t.Errorf("pool of %d, %d, %d, %d, %d entries, want %d", len(cg.pool), len(cg.poolY), len(cg.poolH), len(cg.poolKey), len(cg.poolAge), len(kept))
	}
	for j := range cols {
		if cg.seen[uint64(100+j)] == slices.Contains(wantDel, int32(j)) {
			t.Errorf("column %d: seen = %v", j, cg.seen[uint64(100+j)])
		}
	}
	// Up to purgeMin columns per row nothing leaves, however old; one
	// more and the old ones do.
	old := col{0, 30, 1, 0}
	for _, size := range []int{purgeMin * 2, purgeMin*2 + 1} {
		cs := slices.Repeat([]col{old}, size)
		cg, rec, lambda := setup(cs)
		if err := cg.purge(lambda, []float64{1, 0}); err != nil {
			t.Fatal(err)
		}
		want := 0
		if size > purgeMin*2 {
			want = size
		}
		if n := len(cg.pool); size-n != want || (want == 0) != (len(rec.deleted) == 0) {
			t.Errorf("%d old columns on 2 rows: %d deleted in %d calls, want %d", size, size-n, len(rec.deleted), want)
		}
		if want == 0 && !slices.Equal(cg.poolAge, slices.Repeat([]int{31}, size)) {
			t.Errorf("%d columns kept with ages %v, want 31", size, cg.poolAge)
		}
	}
}

func TestColGenPricingPastDeadlineIsTimeLimit(t *testing.T) {
	// Pricing after the deadline fails with ErrTimeLimit, naming the
	// output, whichever worker prices it.
	s := sparseSolvers(t)[0]
	g := mustGrid(t, 1, 3)
	for _, workers := range []int{1, 2} {
		cg := newTestColGen(t, s, g, uniformPrior(3), 1, nil, workers)
		cg.opt.deadline = time.Now().Add(-time.Second)
		_, fresh, err := cg.priceAll([]float64{5, 5, 5})
		cg.free()
		if !errors.Is(err, ErrTimeLimit) || !strings.Contains(err.Error(), "pricing output 0") || fresh != nil {
			t.Errorf("%d workers: columns %v, error %v; want ErrTimeLimit at output 0", workers, fresh, err)
		}
	}
}

func TestColGenCountsPricingIterations(t *testing.T) {
	// Each output's iteration count is its model's, over every pricing
	// round (the solvers count them from the model's creation).
	for _, s := range sparseSolvers(t) {
		g := mustGrid(t, 2, 3)
		cg := newTestColGen(t, s, g, gowallaLike(g), 1, nil, 2)
		total := 0
		for _, u := range [][]float64{{4, 5, 6, 4, 5, 6}, {1, 9, 1, 9, 1, 9}, {7, 0, 7, 0, 7, 0}} {
			if _, _, err := cg.priceAll(u); err != nil {
				t.Fatal(err)
			}
		}
		// The workers are idle between rounds: their models may be read.
		for y, p := range cg.pricers {
			if got, want := p.iters, p.model.Iterations(); got != want {
				t.Errorf("%s output %d: %d iterations counted, the model made %d", s, y, got, want)
			}
			total += p.iters
		}
		cg.free()
		if total == 0 {
			t.Errorf("%s: no pricing iterations at all", s)
		}
	}
}

// cgRound is one line of a decomposition's round log.
type cgRound struct {
	round, columns, fresh, rows, iters int
	upper, lower, best, alpha          float64
	upperS, lowerS, bestS, gapS        string
}

// solveLogged solves with s, parsing its round log.
func solveLogged(t *testing.T, s *OptimalSolver, eps float64) (LPStats, []cgRound) {
	t.Helper()
	var rounds []cgRound
	s.Log = func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		var r cgRound
		if _, err := fmt.Sscanf(line, "round %d: columns %d upper %s lower %s best %s gap %s alpha %g new %d pricing rows %d iterations %d,",
			&r.round, &r.columns, &r.upperS, &r.lowerS, &r.bestS, &r.gapS, &r.alpha, &r.fresh, &r.rows, &r.iters); err != nil {
			t.Fatalf("round log %q: %v", line, err)
		}
		for _, f := range []struct {
			s string
			v *float64
		}{{r.upperS, &r.upper}, {r.lowerS, &r.lower}, {r.bestS, &r.best}} {
			if _, err := fmt.Sscan(f.s, f.v); err != nil {
				t.Fatalf("round log %q: %v", line, err)
			}
		}
		rounds = append(rounds, r)
	}
	_, st, err := s.Solve(eps)
	if err != nil {
		t.Fatal(err)
	}
	return st, rounds
}

func TestDecomposeRoundsFollowTheirRules(t *testing.T) {
	// The round log shows the rules of the decomposition at work:
	//   - the best bound is the running maximum of the rounds' bounds,
	//     starting from L(0) = 0 on a cold solve and from nothing on a
	//     warm one;
	//   - the smoothing weight starts at 0.7 and falls by 0.3 (to 0) after
	//     each round without a new column; only a new column restores it;
	//   - the run stops at the first round whose master value is within
	//     half the gap of the best bound.
	for _, s := range sparseSolvers(t) {
		g := mustGrid(t, 4, 5)
		prior := gowallaLike(g)
		solver, err := Optimal{Solver: s, Method: MethodDecompose}.NewSolver(g, g, prior)
		if err != nil {
			t.Fatal(err)
		}
		for i, eps := range []float64{0.6, 0.65, 2} {
			name := fmt.Sprintf("%s eps %v", s, eps)
			st, rounds := solveLogged(t, solver, eps)
			if len(rounds) != st.Rounds || len(rounds) < 2 {
				t.Fatalf("%s: %d rounds logged, %d reported", name, len(rounds), st.Rounds)
			}
			// The log is in the master's scaled costs: its last upper bound
			// is the channel's distortion before the repair (which moves it
			// by about repairSlack), its best bound the certified one.
			_, scale := geoCosts(g, g, prior)
			last := rounds[len(rounds)-1]
			if d := math.Abs(last.upper/scale-st.Primal) / st.Primal; d > 1e-9 {
				t.Errorf("%s: last upper bound %v / scale %v, distortion %v", name, last.upper, scale, st.Primal)
			}
			if d := math.Abs(last.best/scale-st.Dual) / st.Dual; d > 1e-11 {
				t.Errorf("%s: last best bound %v / scale %v, certified bound %v", name, last.best, scale, st.Dual)
			}
			if last.rows != st.PricingRows || last.iters <= 0 || last.iters > st.Iterations {
				t.Errorf("%s: last round logs %d pricing rows, %d iterations; solve reports %d rows, %d iterations with the master's", name, last.rows, last.iters, st.PricingRows, st.Iterations)
			}
			best := math.Inf(-1)
			if i == 0 {
				best = 0
			}
			alpha := 0.7
			for j, r := range rounds {
				if r.round != j+1 {
					t.Errorf("%s: round %d logged as %d", name, j+1, r.round)
				}
				if r.lower > best {
					best = r.lower
				}
				if want := strconv.FormatFloat(best, 'g', 12, 64); r.bestS != want {
					t.Errorf("%s round %d: best bound %s, want %s (bound %s)", name, r.round, r.bestS, want, r.lowerS)
				}
				if gap, err := strconv.ParseFloat(r.gapS, 64); err != nil || math.Abs(gap-(r.upper-r.best)/r.upper) > 5e-3*math.Abs(gap)+1e-15 {
					t.Errorf("%s round %d: gap %s, want (upper - best) / upper from %s, %s", name, r.round, r.gapS, r.upperS, r.bestS)
				}
				// The pricing models only grow, and count their iterations.
				if j > 0 && (r.rows < rounds[j-1].rows || r.iters < rounds[j-1].iters) {
					t.Errorf("%s round %d: %d pricing rows, %d iterations after %d, %d", name, r.round, r.rows, r.iters, rounds[j-1].rows, rounds[j-1].iters)
				}
				if math.Abs(r.alpha-alpha) > 0.006 {
					t.Errorf("%s round %d: alpha %v, want %.2f", name, r.round, r.alpha, alpha)
				}
				stop := r.upper-r.best <= DefaultGap/2*r.upper
				if last := j == len(rounds)-1; stop != last {
					t.Errorf("%s round %d of %d: upper %s, best %s: stop rule %v", name, r.round, len(rounds), r.upperS, r.bestS, stop)
				}
				// After a round without a new column the weight must fall;
				// after one with, it is restored unless they were all known.
				next := math.Max(0, alpha-0.3)
				if j+1 < len(rounds) && r.fresh > 0 && math.Abs(rounds[j+1].alpha-0.7) < 0.006 {
					next = 0.7
				}
				alpha = next
			}
		}
	}
}

// scriptedMaster is a master LP whose solutions are given: the same
// lambda every round and the duals us[round].
type scriptedMaster struct {
	lp.Model
	lambda []float64
	us     [][]float64
	round  int
}

func (m *scriptedMaster) Solve(bool, float64) error { return nil }
func (m *scriptedMaster) AddCols(_, _, _ []float64, _, _ []int32, _ []float64) error {
	return nil
}
func (m *scriptedMaster) DelCols([]int32) error { return nil }
func (m *scriptedMaster) Iterations() int       { return 0 }
func (m *scriptedMaster) Solution(x, y []float64) {
	copy(x, m.lambda)
	copy(y, m.us[m.round])
	m.round++
}

// objectiveRecorder is a pricing LP that records its objectives and
// answers v = 0 with zero duals, so that its bound is sum_x min(0, w_x).
type objectiveRecorder struct {
	lp.Model
	objs [][]float64
}

func (r *objectiveRecorder) SetObj(c []float64)        { r.objs = append(r.objs, slices.Clone(c)) }
func (r *objectiveRecorder) Solve(bool, float64) error { return nil }
func (r *objectiveRecorder) Solution(x, y []float64)   {}
func (r *objectiveRecorder) Iterations() int           { return 0 }

// runScripted runs a decomposition of one output on two cells with costs
// c = (2, 5) and a scripted master (lambda = 1 on a column of cost 100,
// duals from the script) and pricing LP; it returns the points the
// pricing LP was asked about and run's error.
func runScripted(t *testing.T, duals [][]float64, accept float64) (*colGen, [][]float64, error) {
	t.Helper()
	g := mustGrid(t, 1, 2)
	master := &scriptedMaster{lambda: []float64{1}, us: duals}
	rec := &objectiveRecorder{}
	cg := &colGen{nIn: 2, nOut: 1, costY: []float64{2, 5}, scale: 1, k: newGeoPairs(g, 1, spannerEdges(g, 1)),
		master: master, seen: map[uint64]bool{},
		pool: [][]float64{{1, 1}}, poolY: []int{0}, poolH: []float64{100}, poolKey: []uint64{1}, poolAge: []int{0},
		pricers: []*pricer{{y: 0, model: rec, has: make([]bool, 4)}},
		opt:     cgOptions{gap: 1e-12, accept: accept, alpha: 0.7}}
	cw := &cgWorker{tasks: make(chan cgTask), done: make(chan []cgResult)}
	cg.workers = []*cgWorker{cw}
	go func() {
		for task := range cw.tasks {
			res := make([]cgResult, len(task.ps))
			for i, p := range task.ps {
				res[i] = cg.price(nil, p, task.u)
			}
			cw.done <- res
		}
	}()
	_, err := cg.run()
	close(cw.tasks)
	var us [][]float64
	for _, w := range rec.objs {
		us = append(us, []float64{2 - w[0], 5 - w[1]})
	}
	return cg, us, err
}

func TestColGenPricesAtTheSmoothedDuals(t *testing.T) {
	// Round r prices at us = alpha c + (1 - alpha) u, between the stability
	// centre c (the duals of the best bound so far, 0 with its bound L(0) =
	// 0 at first; a tie does not move it) and the master's duals u, with
	// alpha = max(0, 1 - (k+1) 0.3) after k rounds without a new column,
	// and at u itself once alpha reaches 0. The scripted pricing LP answers
	// v = 0 with zero duals, so that L(us) = sum us + sum_x min(0, c_x -
	// us_x), and never finds a column: at alpha = 0 the run ends, accepting
	// the master if upper - best <= accept upper.
	cost := []float64{2, 5}
	duals := [][]float64{{1, -1}, {10, 4}, {-2, 6}, {4, 4.5}}
	cg, got, err := runScripted(t, duals, 1e-3)
	if err == nil || !strings.Contains(err.Error(), "no new column at the master's duals but gap 0.935 above 0.001") {
		t.Errorf("run: %v, want a stall at the master's duals", err)
	}
	center, best := []float64{0, 0}, 0.0
	var want [][]float64
	for r, u := range duals {
		alpha := math.Max(0, 1-float64(r+1)*(1-0.7))
		us := u
		if alpha > 0 {
			us = []float64{alpha*center[0] + (1-alpha)*u[0], alpha*center[1] + (1-alpha)*u[1]}
		}
		want = append(want, us)
		if l := us[0] + us[1] + math.Min(0, cost[0]-us[0]) + math.Min(0, cost[1]-us[1]); l > best {
			center, best = us, l
		}
	}
	if len(got) != len(want) {
		t.Fatalf("priced at %v, want %v", got, want)
	}
	for r := range got {
		if math.Abs(got[r][0]-want[r][0]) > 1e-12 || math.Abs(got[r][1]-want[r][1]) > 1e-12 {
			t.Errorf("round %d: priced at %v, want %v", r+1, got[r], want[r])
		}
	}
	if cg.st.lower != best || best != 6.5 {
		t.Errorf("best bound %v, want %v = 6.5", cg.st.lower, best)
	}
	// upper - best = 100 - 6.5 = 0.935 upper exactly: accepted.
	if _, _, err := runScripted(t, duals, 0.935); err != nil {
		t.Errorf("accept 0.935: %v", err)
	}
}

func TestSolverKeepsThePairsPricingNeeded(t *testing.T) {
	// With all pairs constrained, the pricing models start from the
	// 8-neighbour pairs and add the violated ones; a solver keeps those,
	// per output, for its next solve to start with. A spanner's
	// pricing models hold all their rows from the start: nothing to keep.
	for _, s := range sparseSolvers(t) {
		g := mustGrid(t, 4, 5)
		n := g.Len()
		solver, err := Optimal{Solver: s, Method: MethodDecompose}.NewSolver(g, g, gowallaLike(g))
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := solver.Solve(0.6)
		if err != nil {
			t.Fatal(err)
		}
		kept := 0
		if len(solver.extra) != n {
			t.Fatalf("%s: pairs kept for %d outputs, want %d", s, len(solver.extra), n)
		}
		for y, rs := range solver.extra {
			for _, r := range rs {
				ar, ac := g.Cell(int(r.a))
				br, bc := g.Cell(int(r.b))
				if max(abs(ar-br), abs(ac-bc)) <= 1 || r.d != kernels.Dist(g, int(r.a), g, int(r.b)) {
					t.Errorf("%s output %d: kept pair %v is a neighbour pair or not at its distance", s, y, r)
				}
			}
			kept += len(rs)
		}
		if initial := 2 * len(spannerEdges(g, 1)) * n; kept == 0 || kept != st.PricingRows-initial {
			t.Errorf("%s: %d pairs kept, %d pricing rows of which %d initial", s, kept, st.PricingRows, initial)
		}
		span, err := Optimal{Solver: s, Method: MethodDecompose, Spanner: 1}.NewSolver(g, g, gowallaLike(g))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := span.Solve(0.6); err != nil {
			t.Fatal(err)
		}
		for y, rs := range span.extra {
			if len(rs) > 0 {
				t.Errorf("%s spanner: output %d keeps pairs %v", s, y, rs)
			}
		}
	}
}

// failingModel is a pricing model whose next solves fail with err after
// making iters iterations, then behave as the model it wraps.
type failingModel struct {
	lp.Model
	fails int
	err   error
	iters int // per failed solve
	done  int
	freed bool
}

func (m *failingModel) Solve(dual bool, seconds float64) error {
	if m.fails > 0 {
		m.fails--
		m.done += m.iters
		return m.err
	}
	return m.Model.Solve(dual, seconds)
}

func (m *failingModel) Iterations() int { return m.Model.Iterations() + m.done }

func (m *failingModel) Free() {
	m.freed = true
	m.Model.Free()
}

func TestColGenRebuildsAFailedPricingModel(t *testing.T) {
	// A pricing solve that fails other than on time is retried once on a
	// fresh model with the same rows, which then prices as a model that
	// never failed; the failed solve's iterations still count. A time
	// limit is reported with the output, and not retried.
	g := mustGrid(t, 2, 3)
	u := []float64{4, 9, 1, 7, 0, 6}
	for _, s := range sparseSolvers(t) {
		for _, workers := range []int{1, 2} {
			name := fmt.Sprintf("%s, %d workers", s, workers)
			ref := newTestColGen(t, s, g, gowallaLike(g), 1, nil, workers)
			wantLower, wantFresh, err := ref.priceAll(u)
			ref.free()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, c := range []struct {
				err    error
				reason string // "" if priced after a rebuild
			}{
				{errors.New("numerical trouble"), ""},
				{fmt.Errorf("stopped: %w", ErrTimeLimit), "pricing output 4: stopped: "},
			} {
				cg := newTestColGen(t, s, g, gowallaLike(g), 1, nil, workers)
				p := cg.pricers[4]
				rows := [][]int32{slices.Clone(p.a), slices.Clone(p.b)}
				ks := slices.Clone(p.k)
				// As if the model had made 5 iterations in earlier rounds.
				bad := &failingModel{Model: p.model, fails: 1, err: c.err, iters: 7, done: 5}
				p.model = bad
				lower, fresh, err := cg.priceAll(u)
				rebuilt := p.model != lp.Model(bad)
				iters, modelIters := p.iters, p.model.Iterations()
				sameRows := slices.Equal(rows[0], p.a[:min(len(p.a), len(rows[0]))]) && slices.Equal(rows[1], p.b[:min(len(p.b), len(rows[1]))]) && slices.Equal(ks, p.k[:min(len(p.k), len(ks))])
				cg.free()
				if c.reason != "" {
					if err == nil || !strings.Contains(err.Error(), c.reason) || !errors.Is(err, ErrTimeLimit) || rebuilt {
						t.Errorf("%s, a failure %v: rebuilt %v, error %v; want no rebuild and ErrTimeLimit saying %q", name, c.err, rebuilt, err, c.reason)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: a failure %v not retried: %v", name, c.err, err)
				}
				if !rebuilt || !bad.freed {
					t.Errorf("%s: model rebuilt %v, failed model freed %v; want both", name, rebuilt, bad.freed)
				}
				if !sameRows {
					t.Errorf("%s: rebuilt model's rows %v %v %v do not start with the failed one's %v %v", name, p.a, p.b, p.k, rows, ks)
				}
				if iters != modelIters+7 {
					t.Errorf("%s: %d iterations counted, want the rebuilt model's %d + the failed solve's 7", name, iters, modelIters)
				}
				if lower != wantLower || !slices.EqualFunc(fresh, wantFresh, slices.Equal[[]float64]) {
					t.Errorf("%s: after a rebuild, bound %v and columns %v; a model that never failed gives %v and %v", name, lower, fresh, wantLower, wantFresh)
				}
			}
		}
	}
}
