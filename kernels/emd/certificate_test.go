package emd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"privic/kernels/internal/lptest"
)

// certTol is the tolerance of the certificate checks, relative to the
// largest cost C: dual feasibility and complementary slackness hold to
// certTol*C, the objectives agree to certTol*C per unit of mass. The
// simplex stops with every reduced cost >= -1e-12*C (pricingTol); the
// potentials are sums of at most a few hundred costs along tree paths in
// these tests, which adds rounding of order 1e-14*C. certTol leaves a
// margin of 10 over the first and stays well below the reduced costs of
// the improvements the near-tie tests plant (>= 1e-10*C), so a solver that
// stops early with those left is caught.
const certTol = 1e-11

// mustCertify stops the test, naming what was solved, unless the solve
// succeeded (err == nil) and res carries a valid optimality certificate
// for a, b and cost.
func mustCertify(t *testing.T, what string, a, b []float64, cost func(i, j int) float64, res Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := certificate(a, b, cost, res); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// certificate checks res (from a Solver with Duals) as a proof that
// res.Cost is the optimal cost of moving a onto b at cost(i, j) per unit
// (lptest.Certificate, tolerance certTol).
func certificate(a, b []float64, cost func(i, j int) float64, res Result) error {
	flows := make([]lptest.Flow, len(res.Flows))
	for k, f := range res.Flows {
		flows[k] = lptest.Flow{From: f.From, To: f.To, Mass: f.Mass}
	}
	return lptest.Certificate(a, b, cost, res.Cost, flows, res.U, res.V, certTol)
}

// euclidCost prices arc i -> j from the coordinates, as the checks want.
func euclidCost(ax, ay, bx, by []float64) func(i, j int) float64 {
	return func(i, j int) float64 { return math.Hypot(ax[i]-bx[j], ay[i]-by[j]) }
}

// TestCertificateGeneral: Solve and SolveMatrix with Duals certify their
// optimum on random cost matrices (negative and tied entries, zero masses
// on either side), and the cost matches the LP oracle.
func TestCertificateGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	s := Solver{Duals: true}
	for trial := range 120 {
		n, m := 1+rng.IntN(7), 1+rng.IntN(7)
		a, b := randDist(rng, n, trial%2 == 0, trial%3 == 0), randDist(rng, m, trial%4 < 2, false)
		cost := make([]float64, n*m)
		for k := range cost {
			if trial%3 == 1 {
				cost[k] = float64(rng.IntN(3) - 1) // many ties
			} else {
				cost[k] = rng.NormFloat64()
			}
		}
		f := func(i, j int) float64 { return cost[i*m+j] }
		var res Result
		var err error
		if trial%2 == 0 {
			res, err = s.SolveMatrix(a, b, cost)
		} else {
			res, err = s.Solve(a, b, f)
		}
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if err := certificate(a, b, f, res); err != nil {
			t.Fatalf("trial %d (%dx%d): %v", trial, n, m, err)
		}
		if want := lpTransport(t, a, b, cost); math.Abs(res.Cost-want) > 1e-9 {
			t.Fatalf("trial %d: cost %v, LP %v", trial, res.Cost, want)
		}
	}
}

// TestCertificatePoints: the point forms with Duals certify their optimum
// for the full problem (shared mass included) on every pair of points, on
// lattices with coinciding and repeated points and zero masses.
func TestCertificatePoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for trial := range 150 {
		s := Solver{Duals: true, path: []int{pathDense, pathSparse}[trial%2]}
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		ax, ay := randPoints(rng, n, trial%3 > 0)
		bx, by := randPoints(rng, m, trial%3 > 0)
		a, b := randDist(rng, n, trial%2 == 0, trial%5 == 0), randDist(rng, m, trial%4 == 0, false)
		res, err := s.SolvePoints(ax, ay, a, bx, by, b)
		mustCertify(t, fmt.Sprintf("trial %d SolvePoints (%dx%d)", trial, n, m), a, b, euclidCost(ax, ay, bx, by), res, err)
		// The same masses on one list of points (a's then b's).
		x, y := append(append([]float64(nil), ax...), bx...), append(append([]float64(nil), ay...), by...)
		pa, pb := make([]float64, n+m), make([]float64, n+m)
		copy(pa, a)
		copy(pb[n:], b)
		com, err := s.SolveCommon(x, y, pa, pb)
		mustCertify(t, fmt.Sprintf("trial %d SolveCommon", trial), pa, pb, euclidCost(x, y, x, y), com, err)
		if math.Abs(com.Cost-res.Cost) > 1e-12 {
			t.Fatalf("trial %d: SolveCommon %v, SolvePoints %v", trial, com.Cost, res.Cost)
		}
	}
}

// TestCertificateGrid: SolveCommon and SolveOn with Duals on grids where
// many cells cancel exactly (equal masses) or are empty on both sides, so
// that their potentials come from the c-transform.
func TestCertificateGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	x, y, pts := gridPointSet(t, 6, 7)
	cost := euclidCost(x, y, x, y)
	for trial := range 40 {
		p, q := randDist(rng, len(x), true, false), randDist(rng, len(x), true, trial%2 == 0)
		for k := range q {
			if rng.IntN(3) == 0 {
				q[k] = p[k] // cancels exactly (zero net) unless rescaled
			}
		}
		normalise(q)
		for _, path := range []int{pathDense, pathSparse} {
			s := Solver{Duals: true, path: path}
			res, err := s.SolveCommon(x, y, p, q)
			mustCertify(t, fmt.Sprintf("trial %d path %d", trial, path), p, q, cost, res, err)
		}
		s := Solver{Duals: true}
		on, err := s.SolveOn(pts, p, q)
		mustCertify(t, fmt.Sprintf("trial %d SolveOn", trial), p, q, cost, on, err)
	}
}

// TestCertificateCatches: the checks reject certificates with one thing
// wrong, so that the tests above can fail.
func TestCertificateCatches(t *testing.T) {
	x, y := gridPoints(3, 3)
	cost := euclidCost(x, y, x, y)
	p := []float64{0.3, 0, 0.1, 0, 0.2, 0, 0.1, 0, 0.3}
	q := []float64{0, 0.2, 0.1, 0.2, 0, 0.2, 0.1, 0.2, 0}
	s := Solver{Duals: true}
	res, err := s.SolveCommon(x, y, p, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := certificate(p, q, cost, res); err != nil {
		t.Fatalf("valid certificate rejected: %v", err)
	}
	clone := func() Result {
		r := res
		r.U, r.V = append([]float64(nil), res.U...), append([]float64(nil), res.V...)
		r.Flows = append([]Flow(nil), res.Flows...)
		return r
	}
	for name, bad := range map[string]func(r *Result){
		"cost":        func(r *Result) { r.Cost *= 1 + 1e-9 },
		"potential":   func(r *Result) { r.U[4] += 1e-9 },
		"slack":       func(r *Result) { r.V[1] -= 1e-9 },
		"flow":        func(r *Result) { r.Flows[0].Mass *= 1 + 1e-9 },
		"short":       func(r *Result) { r.U = r.U[1:] },
		"range":       func(r *Result) { r.Flows[0].To = 9 },
		"destination": func(r *Result) { r.Flows[len(r.Flows)-1].To = (r.Flows[len(r.Flows)-1].To + 1) % 9 },
	} {
		r := clone()
		bad(&r)
		if certificate(p, q, cost, r) == nil {
			t.Errorf("%s: a broken certificate passed", name)
		}
	}
}

// TestNearTies: costs with many exact ties, split by perturbations of
// about 1e-9 of the largest cost. The optimum is decided by those
// perturbations alone, so a solver that accepts reduced costs down to
// -1e-9*C as optimal stops early: the brute-force assignment (general
// costs) and the certificate (both) catch it.
func TestNearTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	var s Solver
	s.Duals = true
	for trial := range 200 {
		n := 3 + trial%5
		cost := make([]float64, n*n)
		for k := range cost {
			cost[k] = float64(rng.IntN(3)) + 2e-9*rng.Float64()
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		res, err := s.SolveMatrix(ones, ones, cost)
		if err != nil {
			t.Fatal(err)
		}
		if best := bestAssignment(cost, n); math.Abs(res.Cost-best) > 1e-13 {
			t.Fatalf("trial %d (n=%d): cost %.17g, best assignment %.17g", trial, n, res.Cost, best)
		}
		if err := certificate(ones, ones, func(i, j int) float64 { return cost[i*n+j] }, res); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
	// Lattice points moved by up to 1e-9: distances tie up to that.
	for trial := range 100 {
		s.path = []int{pathDense, pathSparse}[trial%2]
		k := 5 + trial%20
		x, y := randPoints(rng, 2*k, true)
		for i := range x {
			x[i] += 1e-9 * rng.Float64()
			y[i] += 1e-9 * rng.Float64()
		}
		a, b := make([]float64, 2*k), make([]float64, 2*k)
		for i := range k {
			a[i], b[k+i] = float64(1+rng.IntN(2)), float64(1+rng.IntN(2))
		}
		normalise(a)
		normalise(b)
		res, err := s.SolveCommon(x, y, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := certificate(a, b, euclidCost(x, y, x, y), res); err != nil {
			t.Fatalf("lattice trial %d (path %d): %v", trial, s.path, err)
		}
	}
}

// bestAssignment is the least cost of a permutation of an n x n cost
// matrix, by enumeration.
func bestAssignment(cost []float64, n int) float64 {
	best := math.Inf(1)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var rec func(k int, acc float64)
	rec = func(k int, acc float64) {
		if k == n {
			best = min(best, acc)
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k+1, acc+cost[k*n+perm[k]])
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0, 0)
	return best
}

// TestCertificateResidue: two distributions equal but for rounding leave
// mass on one side only after the cancellation (nothing to transport),
// found by search; a Solver that solved another problem before must
// certify 0 with potentials of its own, not the previous basis's.
func TestCertificateResidue(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	x, y := gridPoints(2, 3)
	var s Solver
	found := [2]bool{}
	for trial := 0; trial < 20000 && !(found[0] && found[1]); trial++ {
		p := randDist(rng, len(x), false, false)
		q := slices.Clone(p)
		for k := range q {
			switch rng.IntN(3) {
			case 0:
				q[k] = math.Nextafter(q[k], 0)
			case 1:
				q[k] = math.Nextafter(q[k], 1)
			}
		}
		scale, err := checkPair(p, q)
		if err != nil {
			t.Fatal(err)
		}
		if s.split(p, q, scale) {
			continue
		}
		side := 0 // supplies left
		if len(s.dem) > 0 {
			side = 1
		}
		if len(s.sup)+len(s.dem) == 0 || found[side] {
			continue
		}
		found[side] = true
		// A previous solve leaves a basis behind.
		s = Solver{Duals: true}
		a, b := randDist(rng, len(x), false, false), randDist(rng, len(x), false, false)
		if _, err := s.SolveCommon(x, y, a, b); err != nil {
			t.Fatal(err)
		}
		res, err := s.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatal(err)
		}
		if res.Cost != 0 {
			t.Fatalf("residue on side %d: cost %v", side, res.Cost)
		}
		if err := certificate(p, q, euclidCost(x, y, x, y), res); err != nil {
			t.Fatalf("residue on side %d: %v", side, err)
		}
		for k := range res.U {
			if res.U[k] != 0 || res.V[k] != 0 {
				t.Fatalf("residue on side %d: potentials %v, %v; want zeros", side, res.U, res.V)
			}
		}
	}
	if !found[0] || !found[1] {
		t.Fatalf("no residue case found: %v", found)
	}
}

// TestCertificateRescaled: totals that differ within MassTol; the plan
// and the potentials refer to b rescaled onto a's total.
func TestCertificateRescaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	for trial := range 40 {
		n, m := 1+rng.IntN(8), 1+rng.IntN(8)
		ax, ay := randPoints(rng, n, true)
		bx, by := randPoints(rng, m, true)
		a, b := randDist(rng, n, trial%2 == 0, false), randDist(rng, m, true, false)
		f := 1 + 3e-7*float64(1+trial%3)
		if trial%2 == 0 {
			f = 1 / f
		}
		for j := range b {
			b[j] *= f
		}
		s := Solver{Duals: true, path: []int{pathDense, pathSparse}[trial%2]}
		res, err := s.SolvePoints(ax, ay, a, bx, by, b)
		cost := euclidCost(ax, ay, bx, by)
		mustCertify(t, fmt.Sprintf("trial %d SolvePoints", trial), a, b, cost, res, err)
		gen, err := s.Solve(a, b, cost)
		mustCertify(t, fmt.Sprintf("trial %d Solve", trial), a, b, cost, gen, err)
	}
}

// TestCertificateDuplicates: SolvePoints with several entries at one
// point, some of them without mass and in any order (first, between,
// last), on both sides: each merged flow is shared out among the entries
// with mass.
func TestCertificateDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(79, 80))
	for trial := range 60 {
		side := func(k int) (x, y, w []float64) {
			for range k {
				px, py := float64(rng.IntN(3)), float64(rng.IntN(2))
				for range 1 + rng.IntN(3) {
					v := rng.Float64()
					if rng.IntN(3) == 0 {
						v = 0
					}
					x, y, w = append(x, px), append(y, py), append(w, v)
				}
			}
			if slices.Max(w) == 0 {
				w[0] = 1
			}
			normalise(w)
			return x, y, w
		}
		ax, ay, a := side(1 + rng.IntN(4))
		bx, by, b := side(1 + rng.IntN(4))
		s := Solver{Duals: true}
		res, err := s.SolvePoints(ax, ay, a, bx, by, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := certificate(a, b, euclidCost(ax, ay, bx, by), res); err != nil {
			t.Fatalf("trial %d: %v\na at %v %v: %v\nb at %v %v: %v", trial, err, ax, ay, a, bx, by, b)
		}
	}
}

// TestCertificatePotentials pins the point forms' potentials: f = -pi at
// every node the basis joins to another, and at every other point (cells
// that cancel, nodes carrying only rounding residue) the least
// d(x, d_j) + pi[d_j] over the joined demands, by brute force.
func TestCertificatePotentials(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	gx, gy := gridPoints(4, 5)
	alone := 0
	for trial := range 300 {
		x, y := gx, gy
		p := randDist(rng, len(x), true, false)
		q := randDist(rng, len(x), true, false)
		for k := range q {
			if rng.IntN(2) == 0 {
				q[k] = p[k] // cancels, or leaves rounding residue
			}
		}
		normalise(q)
		if trial < 2 {
			// The fuzz seed whose demand at (-7, 0) keeps only 2.8e-17:
			// the greedy runs out of supply first and leaves it alone.
			x, y = []float64{0, 0, -7, 0, -4}, []float64{2, 1, 0, 0, 0}
			c := decodeFuzz([]byte("27002\xc801X\xb100000\xb100000000000\x9400000"))
			p, q = mergedMasses(c, x, y)
		}
		s := Solver{Duals: true, path: []int{pathDense, pathSparse}[trial%2]}
		res, err := s.SolveCommon(x, y, p, q)
		if err != nil {
			t.Fatal(err)
		}
		n, m := len(s.sup), len(s.dem)
		if n == 0 || m == 0 {
			continue
		}
		net := &s.net
		root := n + m
		joined := make([]bool, root)
		for v := range root {
			if u := net.parent[v]; u != root {
				joined[v], joined[u] = true, true
			}
		}
		node := make([]int, len(x))
		for k := range node {
			node[k] = -1
		}
		for r, k := range s.supIx {
			node[k] = r
		}
		for c, k := range s.demIx {
			node[k] = n + c
		}
		for k := range x {
			want := math.Inf(1)
			if v := node[k]; v >= 0 && joined[v] {
				want = -net.pi[v]
			} else {
				if v >= 0 {
					alone++
				}
				for c, d := range s.demIx {
					if joined[n+c] {
						u, w := x[d]-x[k], y[d]-y[k]
						want = min(want, math.Sqrt(u*u+w*w)-net.pi[n+c])
					}
				}
			}
			if res.U[k] != want || res.V[k] != -want {
				t.Fatalf("trial %d point %d (node %d): U %v V %v, want %v", trial, k, node[k], res.U[k], res.V[k], want)
			}
		}
	}
	if alone == 0 {
		t.Fatal("no node carried only rounding residue")
	}
}

// mergedMasses normalises the fuzz case c's two sides and adds each side's
// masses up per point of (x, y), as SolvePoints merges them.
func mergedMasses(c fuzzCase, x, y []float64) (p, q []float64) {
	p, q = make([]float64, len(x)), make([]float64, len(x))
	at := func(px, py float64) int {
		for k := range x {
			if x[k] == px && y[k] == py {
				return k
			}
		}
		panic("point not listed")
	}
	sa, sb := sum(c.a), sum(c.b)
	for i, v := range c.a {
		p[at(c.ax[i], c.ay[i])] += v / sa
	}
	for j, v := range c.b {
		q[at(c.bx[j], c.by[j])] += v / sb
	}
	return p, q
}

// TestSplitPoints shares merged flows out among the entries at each point
// by hand: entries in order, zero masses skipped, and the last entry at a
// point absorbing rounding residue (flows an ulp above or below the
// entries' total).
func TestSplitPoints(t *testing.T) {
	// Entries: a = [0.5 at point 0, 0 at point 0, 0.25 at point 0,
	// 0.25 at point 1]; b = [0 at point 1, 0.75 at point 1, 0.25 at
	// point 2].
	a := []float64{0.5, 0, 0.25, 0.25}
	b := []float64{0, 0.75, 0.25}
	at := []int{0, 0, 0, 1, 1, 1, 2}
	ulp := math.Nextafter(0.25, 1) - 0.25
	first := 0.6
	res := Result{
		Cost: 7, Pivots: 3, Sweeps: 2,
		U: []float64{1, 2, 3}, V: []float64{-1, -2, -3},
		Flows: []Flow{
			{From: 0, To: 1, Mass: first},      // 0.5 of entry 0, 0.1 of entry 2
			{From: 0, To: 2, Mass: 0.15 + ulp}, // the rest of entry 2, an ulp over
			{From: 1, To: 2, Mass: 0.1},
			{From: 1, To: 1, Mass: 0.15 - ulp}, // an ulp short
		},
	}
	got := splitPoints(res, at, a, b, 1)
	want := []Flow{
		{0, 1, 0.5}, {2, 1, first - 0.5},
		{2, 2, 0.15 + ulp},
		{3, 2, 0.1},
		{3, 1, 0.15 - ulp},
	}
	if !slices.Equal(got.Flows, want) {
		t.Errorf("flows %v, want %v", got.Flows, want)
	}
	if !slices.Equal(got.U, []float64{1, 1, 1, 2}) || !slices.Equal(got.V, []float64{-2, -2, -3}) {
		t.Errorf("potentials %v, %v", got.U, got.V)
	}
	if got.Cost != 7 || got.Pivots != 3 || got.Sweeps != 2 {
		t.Errorf("result %+v lost its cost or counts", got)
	}
	// b rescaled onto a's total: the entries of b count scale times.
	got = splitPoints(Result{U: []float64{0, 0}, V: []float64{0, 0}, Flows: []Flow{{0, 1, 1}}},
		[]int{0, 1, 1}, []float64{1}, []float64{0.25, 0.25}, 2)
	if want := []Flow{{0, 0, 0.5}, {0, 1, 0.5}}; !slices.Equal(got.Flows, want) {
		t.Errorf("rescaled: flows %v, want %v", got.Flows, want)
	}
}
