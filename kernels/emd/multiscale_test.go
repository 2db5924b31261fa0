package emd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// farCase draws one of the test problems of the coarse-to-fine solver on
// an r x c grid: kind 0 random masses against random masses, 1 hotspots
// against their blurred copy (the mass hardly moves), 2 uniform against
// hotspots (PRIVIC's cycle 0), 3 hotspots against their reflection through
// the grid's centre plus a little everywhere (mass crosses the grid).
func farCase(rng *rand.Rand, kind, r, c int) (x, y, p, q []float64) {
	x, y = gridPoints(r, c)
	k := len(x)
	switch kind {
	case 0:
		return x, y, randDist(rng, k, true, false), randDist(rng, k, rng.IntN(2) == 0, rng.IntN(3) == 0)
	case 1:
		return hotspots(rng, r, c)
	}
	_, _, h, _ := hotspots(rng, r, c)
	q = make([]float64, k)
	for i := range q {
		if kind == 2 {
			q[i] = 1
		} else {
			q[i] = h[k-1-i] + 0.01/float64(k)
		}
	}
	normalise(q)
	return x, y, h, q
}

var farKinds = []string{"random", "hotspot", "uniform", "reflected"}

// TestMultiscaleMatchesDense: on random, hotspot, uniform and reflected
// problems on several levels (the default coarsest bound, and one of 256
// arcs for more levels), the coarse-to-fine solver's distance equals the
// dense solver's to 1e-9 relative and its certificate holds on every arc;
// the far problems (uniform, reflected) are solved on every level, the
// near one (hotspot, default bound: its coarsest optimum moves the mass
// less than a spacing) on the coarsest and the finest.
func TestMultiscaleMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for trial := range 12 {
		kind := trial % 4
		r, c := 16+rng.IntN(12), 16+rng.IntN(12)
		x, y, p, q := farCase(rng, kind, r, c)
		if trial%3 == 1 { // the rules hold in any unit of length
			for k := range x {
				x[k], y[k] = 3.5*x[k], 3.5*y[k]
			}
		}
		sp, dn := Solver{path: pathSparse, Duals: true}, Solver{path: pathDense}
		if trial >= 4 {
			sp.coarse = 256
		}
		got, err := sp.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatalf("trial %d: sparse: %v", trial, err)
		}
		want, err := dn.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatalf("trial %d: dense: %v", trial, err)
		}
		what := fmt.Sprintf("trial %d (%s, %dx%d)", trial, farKinds[kind], r, c)
		if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost {
			t.Fatalf("%s: sparse %.17g, dense %.17g", what, got.Cost, want.Cost)
		}
		if err := certificate(p, q, euclidCost(x, y, x, y), got); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		levels := len(sp.levels) + 1
		switch {
		case levels < 2 || trial >= 4 && levels < 3:
			t.Errorf("%s: %d levels", what, levels)
		case kind == 1 && trial < 4 && got.Levels != 2:
			t.Errorf("%s: %d of %d levels solved, want the coarsest and the finest", what, got.Levels, levels)
		case kind >= 2 && got.Levels != levels:
			t.Errorf("%s: %d of %d levels solved, want every level", what, got.Levels, levels)
		}
		if got.Sweeps < got.Levels {
			t.Errorf("%s: %d sweeps over all arcs on %d levels: a level was not proved optimal", what, got.Sweeps, got.Levels)
		}
	}
}

// TestMultiscalePoints: SolvePoints with mass that travels far (a cluster
// against points spread over a ring ten times wider, and the ring shifted
// by its width) equals the dense solver and certifies its optimum.
func TestMultiscalePoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	for trial := range 4 {
		n, m := 300+rng.IntN(200), 300+rng.IntN(200)
		ax, ay := make([]float64, n), make([]float64, n)
		for i := range ax {
			ax[i], ay[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		bx, by := make([]float64, m), make([]float64, m)
		for j := range bx {
			a := 2 * math.Pi * rng.Float64()
			bx[j], by[j] = 10*math.Cos(a)+rng.NormFloat64(), 10*math.Sin(a)+rng.NormFloat64()
			if trial%2 == 1 {
				ax[j%n], ay[j%n] = bx[j]+20, by[j]
			}
		}
		a, b := randDist(rng, n, trial > 1, false), randDist(rng, m, false, trial > 1)
		sp, dn := Solver{path: pathSparse, Duals: true, coarse: 1024}, Solver{path: pathDense}
		got, err := sp.SolvePoints(ax, ay, a, bx, by, b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := dn.SolvePoints(ax, ay, a, bx, by, b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost || got.Levels < 2 || got.Levels != len(sp.levels)+1 {
			t.Fatalf("trial %d: sparse %.17g on %d levels, dense %.17g", trial, got.Cost, got.Levels, want.Cost)
		}
		if err := certificate(a, b, euclidCost(ax, ay, bx, by), got); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// TestMultiscaleBasisInvariants: with a tiny coarsest level (many levels
// on small problems), the basis and its Euler tour are checked before
// every pricing on every level (checkBasis), and the result equals the
// dense solver's.
func TestMultiscaleBasisInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	for trial := range 16 {
		kind := trial % 4
		r, c := 5+rng.IntN(8), 5+rng.IntN(8)
		x, y, p, q := farCase(rng, kind, r, c)
		var checks []*checked
		s := Solver{path: pathSparse, coarse: 4 + rng.IntN(30)}
		s.wrap = func(pr pricer, sup, dem []float64) pricer {
			c := &checked{pricer: pr, sup: sup, dem: dem}
			checks = append(checks, c)
			return c
		}
		got, err := s.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for l, ck := range checks {
			if ck.err != nil {
				t.Fatalf("trial %d (%s %dx%d), level %d of %d, %d pricings: %v", trial, farKinds[kind], r, c, l, got.Levels, ck.calls, ck.err)
			}
		}
		if len(checks) != got.Levels || got.Levels < 2 && kind > 1 {
			t.Fatalf("trial %d: %d levels checked, %d solved", trial, len(checks), got.Levels)
		}
		want, err := (&Solver{path: pathDense}).SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost {
			t.Fatalf("trial %d: %.17g, dense %.17g", trial, got.Cost, want.Cost)
		}
	}
}

// TestCoarsen checks the levels against their definition: each node of a
// level is a cell of side h holding finer nodes (all of them within the
// cell, whose corner lies on the lattice of side h from the points' lower
// left corner), with the net mass of the cell on its side, at the
// mass-weighted centroid of that side's finer nodes; the totals of the
// two sides agree, cells with no net mass have no node, the cells double
// from level to level, and the levels shrink to the coarsest bound.
func TestCoarsen(t *testing.T) {
	rng := rand.New(rand.NewPCG(87, 88))
	for trial := range 20 {
		kind := trial % 4
		x, y, p, q := farCase(rng, kind, 6+rng.IntN(20), 6+rng.IntN(20))
		for k := range x { // away from the origin
			x[k], y[k] = x[k]+13.7, y[k]-5.3
		}
		s := Solver{coarse: 8 + rng.IntN(200)}
		if !s.split(p, q, 1) {
			continue
		}
		s.coords(x, y)
		x0 := min(slices.Min(s.sx), slices.Min(s.dx))
		y0 := min(slices.Min(s.sy), slices.Min(s.dy))
		lv := s.coarsen()
		sx, sy, sm, dx, dy, dm := s.sx, s.sy, s.sup, s.dx, s.dy, s.dem
		for k := range lv {
			L := &lv[k]
			what := fmt.Sprintf("trial %d level %d", trial, k)
			nc := len(L.node)
			type acc struct{ s, d, sx, sy, dx, dy float64 }
			cells := make([]acc, nc)
			cellKey := make([][2]float64, nc)
			seen := make([]bool, nc)
			in := func(c int32, px, py float64) {
				// (A centroid of points on a cell's side may round to
				// just outside it.)
				key := [2]float64{math.Floor((px-x0)/L.h + 1e-9), math.Floor((py-y0)/L.h + 1e-9)}
				if !seen[c] {
					seen[c], cellKey[c] = true, key
				} else if cellKey[c] != key {
					t.Fatalf("%s: cell %d holds points of cells %v and %v (side %v)", what, c, cellKey[c], key, L.h)
				}
			}
			for i, c := range L.sUp {
				in(c, sx[i], sy[i])
				a := &cells[c]
				a.s, a.sx, a.sy = a.s+sm[i], a.sx+sm[i]*sx[i], a.sy+sm[i]*sy[i]
			}
			for j, c := range L.dUp {
				in(c, dx[j], dy[j])
				a := &cells[c]
				a.d, a.dx, a.dy = a.d+dm[j], a.dx+dm[j]*dx[j], a.dy+dm[j]*dy[j]
			}
			keys := map[[2]float64]bool{}
			for c := range nc {
				if !seen[c] || keys[cellKey[c]] {
					t.Fatalf("%s: cell %d empty or a repeat of %v", what, c, cellKey[c])
				}
				keys[cellKey[c]] = true
				a, x := cells[c], L.node[c]
				if cx := (a.sx + a.dx) / (a.s + a.d); math.Abs(L.cx[c]-cx) > 1e-9 || math.Abs(L.cy[c]-(a.sy+a.dy)/(a.s+a.d)) > 1e-9 {
					t.Fatalf("%s: cell %d centred at (%v, %v), its points' centroid (%v, %v)", what, c, L.cx[c], L.cy[c], cx, (a.sy+a.dy)/(a.s+a.d))
				}
				tol := 1e-12 * (a.s + a.d)
				if x >= 0 && x < int32(len(L.sm)) && !(L.sm[x] > 0) || x >= int32(len(L.sm)) && !(L.dm[int(x)-len(L.sm)] > 0) {
					t.Fatalf("%s: cell %d's node %d has no mass", what, c, x)
				}
				switch {
				case x < 0:
					if math.Abs(a.s-a.d) > tol {
						t.Fatalf("%s: cell %d with net mass %v has no node", what, c, a.s-a.d)
					}
				case int(x) < len(L.sm):
					if math.Abs(L.sm[x]-(a.s-a.d)) > tol || math.Abs(L.sx[x]-a.sx/a.s) > 1e-9 || math.Abs(L.sy[x]-a.sy/a.s) > 1e-9 {
						t.Fatalf("%s: supply %d of cell %d: mass %v at (%v, %v), want %v at (%v, %v)", what, x, c, L.sm[x], L.sx[x], L.sy[x], a.s-a.d, a.sx/a.s, a.sy/a.s)
					}
				default:
					j := int(x) - len(L.sm)
					if math.Abs(L.dm[j]-(a.d-a.s)) > tol || math.Abs(L.dx[j]-a.dx/a.d) > 1e-9 || math.Abs(L.dy[j]-a.dy/a.d) > 1e-9 {
						t.Fatalf("%s: demand %d of cell %d: mass %v, want %v", what, j, c, L.dm[j], a.d-a.s)
					}
				}
				for _, i := range L.sKids.of(c) {
					if L.sUp[i] != int32(c) {
						t.Fatalf("%s: supply %d listed in cell %d, is in %d", what, i, c, L.sUp[i])
					}
				}
				for _, j := range L.dKids.of(c) {
					if L.dUp[j] != int32(c) {
						t.Fatalf("%s: demand %d listed in cell %d, is in %d", what, j, c, L.dUp[j])
					}
				}
			}
			if len(L.sKids.item) != len(sm) || len(L.dKids.item) != len(dm) {
				t.Fatalf("%s: %d and %d members listed, %d and %d nodes", what, len(L.sKids.item), len(L.dKids.item), len(sm), len(dm))
			}
			if ts, td := sum(L.sm), sum(L.dm); math.Abs(ts-td) > 1e-14*ts {
				t.Fatalf("%s: totals %v and %v", what, ts, td)
			}
			if k > 0 && L.h != 2*lv[k-1].h {
				t.Fatalf("%s: cells of side %v above cells of %v", what, L.h, lv[k-1].h)
			}
			sx, sy, sm, dx, dy, dm = L.sx, L.sy, L.sm, L.dx, L.dy, L.dm
		}
		if len(sm)*len(dm) > s.coarse && len(sm)*len(dm) > 1 {
			t.Fatalf("trial %d: the coarsest level has %d x %d nodes, bound %d", trial, len(sm), len(dm), s.coarse)
		}
	}
}

// TestMultiscaleDeterministic: the same far problem gives the same bits
// and pivots from a fresh solver, from one that solved another problem
// before (its work space and cell map reused), and from solvers running
// in parallel goroutines, as jobs do at any -j.
func TestMultiscaleDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(89, 90))
	x, y, p, q := farCase(rng, 3, 22, 25)
	x2, y2, p2, q2 := farCase(rng, 2, 19, 17)
	fresh, used := Solver{path: pathSparse}, Solver{path: pathSparse}
	want, err := fresh.SolveCommon(x, y, p, q)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := used.SolveCommon(x2, y2, p2, q2); err != nil {
		t.Fatal(err)
	}
	got := make([]Result, 4)
	got[0], err = used.SolveCommon(x, y, p, q)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for k := 1; k < len(got); k++ {
		wg.Go(func() {
			s := Solver{path: pathSparse}
			got[k], _ = s.SolveCommon(x, y, p, q)
		})
	}
	wg.Wait()
	for k, g := range got {
		if g.Cost != want.Cost || g.Pivots != want.Pivots || g.Levels != want.Levels || want.Levels < 2 {
			t.Fatalf("run %d: %v (%d pivots, %d levels), first %v (%d pivots, %d levels)", k, g.Cost, g.Pivots, g.Levels, want.Cost, want.Pivots, want.Levels)
		}
	}
}

// TestSeeds: a finer level's start from a coarse basis and potentials
// (random here): the arcs from the finer supplies of one end's cell to the
// finer demands of the other's, for every basic arc, and as keys each
// node's cell's potential, that of its node or, for a cell whose masses
// cancel, -min_J (d(centroid, J) - pi_J) over the coarse demands J (brute
// force).
func TestSeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	cancelled := 0
	for trial := range 40 {
		// Supplies and demands on the lattice; in some 2 x 2 blocks of
		// it a supply and a demand of the same mass, which cancel.
		var s Solver
		s.coarse = 4
		k := 3 + rng.IntN(6)
		for a := range k {
			for b := range k {
				ax, ay := float64(2*a), float64(2*b)
				w := 1 + rng.Float64()
				if rng.IntN(2) == 0 {
					s.sx, s.sy, s.sup = append(s.sx, ax), append(s.sy, ay), append(s.sup, w)
					s.dx, s.dy, s.dem = append(s.dx, ax+1), append(s.dy, ay+1), append(s.dem, w)
					continue
				}
				s.sx, s.sy, s.sup = append(s.sx, ax), append(s.sy, ay+1), append(s.sup, w)
				s.dx, s.dy, s.dem = append(s.dx, ax+1), append(s.dy, ay), append(s.dem, 1+rng.Float64())
			}
		}
		lv := s.coarsen()
		if len(lv) == 0 {
			continue
		}
		L := &lv[0]
		nc, mc := len(L.sm), len(L.dm)
		for c, x := range L.node {
			sup, dem := 0.0, 0.0
			for _, i := range L.sKids.of(c) {
				sup += s.sup[i]
			}
			for _, j := range L.dKids.of(c) {
				dem += s.dem[j]
			}
			net := sup - dem
			switch {
			case x < 0 && net != 0, x >= 0 && net == 0:
				t.Fatalf("trial %d: cell %d of net mass %v has node %d", trial, c, net, x)
			case x >= 0 && int(x) < nc && !(L.sm[x] > 0), int(x) >= nc && !(L.dm[int(x)-nc] > 0):
				t.Fatalf("trial %d: node %d of cell %d has no mass", trial, x, c)
			}
		}
		s.basis = s.basis[:0]
		for range 1 + rng.IntN(nc+mc) {
			s.basis = append(s.basis, arcPair{int32(rng.IntN(nc)), int32(rng.IntN(mc))})
		}
		s.coarsePi = make([]float64, nc+mc)
		for k := range s.coarsePi {
			s.coarsePi[k] = 10 * rng.NormFloat64()
		}
		n, m := len(s.sup), len(s.dem)
		seeds, ku, kv := s.seeds(L, n, m)
		var want []arcPair
		cellOf := map[int32]int{}
		for c, x := range L.node {
			if x >= 0 {
				cellOf[x] = c
			}
		}
		for _, b := range s.basis {
			ci, cj := cellOf[b.i], cellOf[int32(nc)+b.j]
			for i, c := range L.sUp {
				for j, d := range L.dUp {
					if int(c) == ci && int(d) == cj {
						want = append(want, arcPair{int32(i), int32(j)})
					}
				}
			}
		}
		order := func(a, b arcPair) int { return cmpFloat(float64(a.i)*1e6+float64(a.j), float64(b.i)*1e6+float64(b.j)) }
		slices.SortFunc(want, order)
		got := slices.Clone(seeds)
		slices.SortFunc(got, order)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: seeds %v, want %v", trial, got, want)
		}
		pot := func(c int32) float64 {
			if x := L.node[c]; x >= 0 {
				return s.coarsePi[x]
			}
			cancelled++
			f := math.Inf(1)
			for J := range mc {
				f = min(f, math.Hypot(L.cx[c]-L.dx[J], L.cy[c]-L.dy[J])-s.coarsePi[nc+J])
			}
			return -f
		}
		for i, c := range L.sUp {
			if want := pot(c); math.Abs(ku[i]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("trial %d: supply %d key %v, want %v", trial, i, ku[i], want)
			}
		}
		for j, c := range L.dUp {
			if want := pot(c); math.Abs(kv[j]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("trial %d: demand %d key %v, want %v", trial, j, kv[j], want)
			}
		}
	}
	if cancelled == 0 {
		t.Fatal("no cell's masses cancelled: the c-transform went untested")
	}
}

// TestFirstCells: the first level's cells are squares of side 2^e of
// about four points' share of the bounding box (s.spacing is half that),
// and a problem of exactly the coarsest bound's arcs is not coarsened.
func TestFirstCells(t *testing.T) {
	// A full 12 x 10 integer grid, supplies and demands alternating: 2.
	// 40 points along a line 39 long: 2 (the line's length per point).
	// 6 points in a 100 x 100 box: 2^ceil(log2(2 sqrt(10^4/6))) = 128.
	// (The points lie away from the origin, so that the bounding box's
	// corner matters.)
	line := func(k int, o float64) (x, y []float64) {
		for i := range k {
			x, y = append(x, float64(2*i)+o+100.5), append(y, -37.25)
		}
		return x, y
	}
	var cases []struct {
		sx, sy, dx, dy []float64
		h              float64
	}
	var g [4][]float64
	for i := range 12 {
		for j := range 10 {
			k := 2 * ((i + j) % 2)
			g[k], g[k+1] = append(g[k], float64(i)-40), append(g[k+1], float64(j)+300)
		}
	}
	cases = append(cases, struct {
		sx, sy, dx, dy []float64
		h              float64
	}{g[0], g[1], g[2], g[3], 2})
	lx, ly := line(20, 0)
	mx, my := line(20, 1)
	cases = append(cases, struct {
		sx, sy, dx, dy []float64
		h              float64
	}{lx, ly, mx, my, 2})
	cases = append(cases, struct {
		sx, sy, dx, dy []float64
		h              float64
	}{[]float64{7, 107, 57}, []float64{9, 109, 29}, []float64{107, 7, 77}, []float64{9, 109, 99}, 128})
	rng := rand.New(rand.NewPCG(105, 106))
	for k, c := range cases {
		s := Solver{coarse: 1}
		s.sx, s.sy, s.dx, s.dy = c.sx, c.sy, c.dx, c.dy
		s.sup, s.dem = randDist(rng, len(c.sx), false, false), randDist(rng, len(c.dx), false, false)
		lv := s.coarsen()
		// (In one cell of 128 all six points' masses cancel: no level.)
		if len(lv) == 0 && k < 2 || len(lv) > 0 && lv[0].h != c.h || s.spacing != c.h/2 {
			t.Fatalf("case %d: %d levels, spacing %v; want first cells of side %v", k, len(lv), s.spacing, c.h)
		}
		s.coarse = len(s.sup) * len(s.dem)
		if lv := s.coarsen(); len(lv) != 0 {
			t.Fatalf("case %d: %d x %d nodes at a bound of %d arcs: %d levels", k, len(s.sup), len(s.dem), s.coarse, len(lv))
		}
	}
}

// TestNearTransport: random masses against themselves shifted by one
// point spacing along x (the coarsest optimum moves the mass less than a
// spacing) are solved on the coarsest and the finest level only, shifted
// by six spacings on every level; the same in another unit of length.
// Both equal the dense solver.
func TestNearTransport(t *testing.T) {
	rng := rand.New(rand.NewPCG(107, 108))
	r, c := 30, 30
	for _, shift := range []int{1, 6} {
		for _, unit := range []float64{1, 3.5} {
			x, y := gridPoints(r, c)
			p := randDist(rng, len(x), false, false)
			q := make([]float64, len(p))
			for i := shift; i < r; i++ {
				for j := range c {
					q[i*c+j] = p[(i-shift)*c+j]
				}
			}
			normalise(q)
			for k := range x {
				x[k], y[k] = unit*x[k], unit*y[k]
			}
			s := Solver{path: pathSparse, coarse: 64}
			got, err := s.SolveCommon(x, y, p, q)
			if err != nil {
				t.Fatal(err)
			}
			levels := len(s.levels) + 1
			if want := map[int]int{1: 2, 6: levels}[shift]; got.Levels != want || levels < 4 {
				t.Errorf("shift %d, unit %v: %d of %d levels solved, want %d", shift, unit, got.Levels, levels, want)
			}
			want, err := (&Solver{path: pathDense}).SolveCommon(x, y, p, q)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost {
				t.Errorf("shift %d, unit %v: %.17g, dense %.17g", shift, unit, got.Cost, want.Cost)
			}
		}
	}
}

// TestNearRule checks the choice between solving every level and going
// straight from the coarsest level to the finest against its definition:
// the finest is solved right after the coarsest exactly when the
// coarsest level's optimum (recomputed here by the dense solver on that
// level's cells) is below one point spacing times the net mass (the
// supplies' total once each point's shared mass cancels). The problems
// move their net mass less or more than a spacing on average: random
// masses against themselves shifted by one and by six spacings, and a
// smooth blob shifted by three spacings (little net mass, moved far),
// each with total mass 1 and 40, in two units of length. Every result
// equals the dense solver's.
func TestNearRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(109, 110))
	r, c := 30, 30
	shiftX := func(p []float64, d int) []float64 {
		q := make([]float64, len(p))
		for i := d; i < r; i++ {
			for j := range c {
				q[i*c+j] = p[(i-d)*c+j]
			}
		}
		normalise(q)
		return q
	}
	blob := make([]float64, r*c)
	for i := range r {
		for j := range c {
			u, v := float64(i)-13.5, float64(j)-14.5
			blob[i*c+j] = math.Exp(-(u*u + v*v) / (2 * 5 * 5))
		}
	}
	normalise(blob)
	type pair struct {
		name string
		p, q []float64
	}
	var pairs []pair
	for _, d := range []int{1, 6} {
		p := randDist(rng, r*c, false, false)
		pairs = append(pairs, pair{fmt.Sprintf("random shifted %d", d), p, shiftX(p, d)})
	}
	pairs = append(pairs, pair{"blob shifted 3", blob, shiftX(blob, 3)})
	direct := 0
	for _, pr := range pairs {
		for _, total := range []float64{1, 40} {
			for _, unit := range []float64{1, 3.5} {
				x, y := gridPoints(r, c)
				for k := range x {
					x[k], y[k] = unit*x[k], unit*y[k]
				}
				p, q := slices.Clone(pr.p), slices.Clone(pr.q)
				for k := range p {
					p[k], q[k] = total*p[k], total*q[k]
				}
				what := fmt.Sprintf("%s, total %v, unit %v", pr.name, total, unit)
				s := Solver{path: pathSparse, coarse: 64}
				got, err := s.SolveCommon(x, y, p, q)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				levels := len(s.levels) + 1
				if levels < 3 {
					t.Fatalf("%s: %d levels", what, levels)
				}
				L := &s.levels[levels-2]
				coarsest, err := (&Solver{path: pathDense}).SolvePoints(L.sx, L.sy, L.sm, L.dx, L.dy, L.dm)
				if err != nil {
					t.Fatalf("%s: coarsest level: %v", what, err)
				}
				bound := s.spacing * sum(s.sup)
				if math.Abs(coarsest.Cost-bound) < 1e-6*bound {
					t.Fatalf("%s: coarsest optimum %v too close to the bound %v to decide", what, coarsest.Cost, bound)
				}
				want := levels
				if coarsest.Cost < bound {
					want, direct = 2, direct+1
				}
				if got.Levels != want {
					t.Errorf("%s: %d of %d levels solved, want %d (coarsest optimum %v, spacing %v times net mass %v)",
						what, got.Levels, levels, want, coarsest.Cost, s.spacing, sum(s.sup))
				}
				dense, err := (&Solver{path: pathDense}).SolveCommon(x, y, p, q)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got.Cost-dense.Cost) > 1e-9*dense.Cost {
					t.Errorf("%s: %.17g, dense %.17g", what, got.Cost, dense.Cost)
				}
			}
		}
	}
	if direct == 0 || direct == 4*len(pairs) {
		t.Fatalf("%d of %d problems went straight to the finest level: the rule went untested", direct, 4*len(pairs))
	}
}

// TestKeptBasis: what each level hands to the next finer one is an
// optimal basis of that level and its potentials. The kept arcs form a
// forest carrying a plan of the level's masses (unique on a forest:
// peeled leaf by leaf) whose cost is the level's optimum (the dense
// solver on the level's cells), they have zero reduced cost, and the
// potentials are feasible on every arc of the level with a dual value
// equal to that optimum. Far problems (uniform and reflected), so that
// every level is solved.
func TestKeptBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(111, 112))
	kept := 0
	for trial := range 8 {
		kind := 2 + trial%2
		x, y, p, q := farCase(rng, kind, 12+rng.IntN(8), 12+rng.IntN(8))
		s := Solver{path: pathSparse, coarse: 32}
		calls := 0
		var fail error
		s.wrap = func(pr pricer, sup, dem []float64) pricer {
			calls++
			if calls > 1 && fail == nil {
				// The basis of the level solved last, the one above.
				L := &s.levels[len(s.levels)-calls+1]
				if fail = checkKept(&s, L); fail != nil {
					fail = fmt.Errorf("level %d of %d: %w", len(s.levels)-calls+1, len(s.levels), fail)
				}
				kept++
			}
			return pr
		}
		got, err := s.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if fail != nil {
			t.Fatalf("trial %d (%s): %v", trial, farKinds[kind], fail)
		}
		if got.Levels != len(s.levels)+1 || got.Levels < 3 {
			t.Fatalf("trial %d: %d of %d levels solved", trial, got.Levels, len(s.levels)+1)
		}
	}
	if kept == 0 {
		t.Fatal("no basis was handed down")
	}
}

// checkKept checks s.basis and s.coarsePi against level L (see
// TestKeptBasis).
func checkKept(s *Solver, L *level) error {
	nc, mc := len(L.sm), len(L.dm)
	pi := s.coarsePi
	if len(pi) != nc+mc {
		return fmt.Errorf("%d potentials for %d nodes", len(pi), nc+mc)
	}
	dist := func(i, j int) float64 { return math.Hypot(L.sx[i]-L.dx[j], L.sy[i]-L.dy[j]) }
	opt, err := (&Solver{path: pathDense}).SolvePoints(L.sx, L.sy, L.sm, L.dx, L.dy, L.dm)
	if err != nil {
		return err
	}
	tol := 1e-9 * (1 + opt.Cost)
	// The plan on the forest: peel leaves, each shipping its residual
	// mass to its only neighbour.
	adj := make([][]int, nc+mc)
	for k, b := range s.basis {
		i, j := int(b.i), int(b.j)
		if rc := dist(i, j) + pi[i] - pi[nc+j]; math.Abs(rc) > tol {
			return fmt.Errorf("kept arc %d -> %d has reduced cost %v", i, j, rc)
		}
		adj[i], adj[nc+j] = append(adj[i], k), append(adj[nc+j], k)
	}
	resid := append(slices.Clone(L.sm), L.dm...)
	used := make([]bool, len(s.basis))
	deg := make([]int, nc+mc)
	var leaves []int
	for v := range adj {
		if deg[v] = len(adj[v]); deg[v] == 1 {
			leaves = append(leaves, v)
		}
	}
	cost, peeled := 0.0, 0
	for len(leaves) > 0 {
		v := leaves[len(leaves)-1]
		leaves = leaves[:len(leaves)-1]
		if deg[v] != 1 {
			continue
		}
		k := slices.IndexFunc(adj[v], func(k int) bool { return !used[k] })
		e := adj[v][k]
		used[e], peeled = true, peeled+1
		b := s.basis[e]
		i, j := int(b.i), int(b.j)
		f, w := resid[v], nc+j
		if v >= nc {
			w = i
		}
		if f < -tol {
			return fmt.Errorf("kept arc %d -> %d carries %v", i, j, f)
		}
		cost += f * dist(i, j)
		resid[v], resid[w] = 0, resid[w]-f
		deg[v]--
		if deg[w]--; deg[w] == 1 {
			leaves = append(leaves, w)
		}
	}
	if peeled != len(s.basis) {
		return fmt.Errorf("the %d kept arcs hold a cycle", len(s.basis))
	}
	for v, r := range resid {
		if math.Abs(r) > tol {
			return fmt.Errorf("the kept arcs leave mass %v at node %d", r, v)
		}
	}
	if math.Abs(cost-opt.Cost) > tol {
		return fmt.Errorf("the kept arcs' plan costs %.17g, the level's optimum %.17g", cost, opt.Cost)
	}
	dual := 0.0
	for i, w := range L.sm {
		dual -= w * pi[i]
		for j := range mc {
			if rc := dist(i, j) + pi[i] - pi[nc+j]; rc < -tol {
				return fmt.Errorf("arc %d -> %d has reduced cost %v under the kept potentials", i, j, rc)
			}
		}
	}
	for j, w := range L.dm {
		dual += w * pi[nc+j]
	}
	if math.Abs(dual-opt.Cost) > tol {
		return fmt.Errorf("the kept potentials' dual value %.17g, the level's optimum %.17g", dual, opt.Cost)
	}
	return nil
}
