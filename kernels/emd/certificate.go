package emd

import "math"

// The certificate (Result.U, Result.V, Result.Flows with Solver.Duals).
//
// The simplex's potentials give u_i = -pi[i] for each supply and
// v_j = pi[n+j] for each demand, with u_i + v_j <= c_ij on every arc up to
// the pricing tolerance and equality on the basis. Entries without mass are
// not in the solved problem; they get the c-transform, the largest
// potential that keeps their arcs feasible.
//
// The point forms solve the problem left after cancelling shared mass.
// Their certificate is one function f on the points, U = f and V = -f:
// f = u_i at supplies, f = -v_j at demands, and at every other point
// f(x) = min_j (d(x, d_j) - v_j) (see certifyCommon for nodes that carry
// only rounding residue). At an optimum f is 1-Lipschitz (the
// Kantorovich-Rubinstein duality: v_j' - v_j <= d(d_j, d_j') follows from
// the triangle inequality and dual feasibility on the arcs into d_j'), so
// U[x] + V[y] = f(x) - f(y) <= d(x, y) for every pair, the shared mass
// stays put at zero cost with U[x] + V[x] = 0, and the dual objective
// sum (a - b') f equals the reduced problem's. A solver that stopped early
// leaves f steeper than 1 somewhere, which the check of all pairs finds.

// generalDuals sets res.U and res.V for Solve and SolveMatrix after the
// simplex solved the non-zero masses (s.supIx, s.demIx).
func (s *Solver) generalDuals(res *Result, a, b []float64, cost func(i, j int) float64) error {
	n := len(s.sup)
	U, V := make([]float64, len(a)), make([]float64, len(b))
	for r, i := range s.supIx {
		U[i] = -s.net.pi[r]
	}
	for c, j := range s.demIx {
		V[j] = s.net.pi[n+c]
	}
	// Rows without mass against the columns with mass, then columns
	// without mass against all rows: every arc ends up feasible.
	for i, v := range a {
		if v > 0 {
			continue
		}
		u := math.Inf(1)
		for _, j := range s.demIx {
			c, err := checkCost(cost, i, j)
			if err != nil {
				return err
			}
			u = min(u, c-V[j])
		}
		U[i] = u
	}
	for j, v := range b {
		if v > 0 {
			continue
		}
		w := math.Inf(1)
		for i, u := range U {
			c, err := checkCost(cost, i, j)
			if err != nil {
				return err
			}
			w = min(w, c-u)
		}
		V[j] = w
	}
	res.U, res.V = U, V
	return nil
}

// certifyCommon sets res.U, res.V and res.Flows for the transport of a onto
// scale*b on the points (x, y), after split and a solve of the reduced
// problem (s.supIx, s.demIx, s.dx, s.dy and the basis in s.net).
//
// f = -pi at every node the basis joins to another by a real arc (its
// potential is tight on an arc). A node alone under the root carries only
// rounding residue that the plan leaves in place, and its potential is
// arbitrary; it, like every point outside the reduced problem, gets
// f(x) = min_j (d(x, d_j) - v_j) over the joined demands.
func (s *Solver) certifyCommon(res *Result, x, y, a, b []float64, scale float64) {
	n, m := len(s.sup), len(s.dem)
	solved := n > 0 && m > 0 // else only rounding residue was left: f = 0
	f := make([]float64, len(a))
	if solved {
		net := &s.net
		root := n + m
		joined := make([]bool, root)
		for v, u := range net.parent[:root] {
			if u != root {
				joined[v], joined[u] = true, true
			}
		}
		known := make([]bool, len(a))
		for r, p := range s.supIx {
			if joined[r] {
				f[p], known[p] = -net.pi[r], true
			}
		}
		var dj []int32 // the joined demands
		for c, p := range s.demIx {
			if joined[n+c] {
				f[p], known[p] = -net.pi[n+c], true
				dj = append(dj, int32(c))
			}
		}
		w := make([]float64, m)
		for c := range w {
			w[c] = -net.pi[n+c]
		}
		s.ctree.build(s.dx, s.dy, dj)
		s.ctree.setWeights(w)
		for p := range f {
			if !known[p] {
				s.h.reset(1, math.Inf(1))
				s.ctree.search(x[p], y[p], &s.h)
				f[p] = s.h.key[0]
			}
		}
	}
	res.U, res.V = f, make([]float64, len(f))
	for p, v := range f {
		res.V[p] = -v
		if a[p] > 0 && b[p] > 0 {
			res.Flows = append(res.Flows, Flow{From: p, To: p, Mass: min(a[p], b[p]*scale)})
		}
	}
	if solved {
		for node := range n + m {
			if i, j, real := s.net.arcOf(node); real && s.net.flow[node] > 0 {
				res.Flows = append(res.Flows, Flow{From: s.supIx[i], To: s.demIx[j], Mass: s.net.flow[node]})
			}
		}
	}
}

// splitPoints turns SolvePoints' certificate on the merged points into one
// on the caller's entries: entry k of a (or len(a)+k of b) lies at merged
// point at[k]. Potentials are those of the point; each merged flow is
// shared out among the entries with mass at its two ends in order (a
// north-west corner rule per point), the last entry at a point absorbing
// the rounding residue.
func splitPoints(res Result, at []int, a, b []float64, scale float64) Result {
	na, K := len(a), len(res.U)
	out := Result{Cost: res.Cost, Pivots: res.Pivots, Sweeps: res.Sweeps, Levels: res.Levels}
	out.U, out.V = make([]float64, na), make([]float64, len(b))
	for i := range a {
		out.U[i] = res.U[at[i]]
	}
	for j := range b {
		out.V[j] = res.V[at[na+j]]
	}
	// Entries with mass at each point, in CSR form, with cursors.
	type side struct {
		start, ent, cur []int
		rest            []float64
	}
	group := func(v []float64, off int, sc float64) side {
		sd := side{start: make([]int, K+1), cur: make([]int, K), rest: make([]float64, len(v))}
		for k, m := range v {
			if m > 0 {
				sd.start[at[off+k]+1]++
			}
		}
		for p := range K {
			sd.start[p+1] += sd.start[p]
		}
		copy(sd.cur, sd.start[:K])
		sd.ent = make([]int, sd.start[K])
		for k, m := range v {
			if m > 0 {
				p := at[off+k]
				sd.ent[sd.cur[p]] = k
				sd.cur[p]++
				sd.rest[k] = m * sc
			}
		}
		copy(sd.cur, sd.start[:K])
		return sd
	}
	sa, sb := group(a, 0, 1), group(b, na, scale)
	// take returns the current entry at point p and how much of mass it
	// may take: all of it if it is the point's last entry (which absorbs
	// the rounding residue, even once used up), else at most its rest.
	// charge books q to entry k and moves on when it is used up.
	take := func(sd *side, p int, mass float64) (int, float64) {
		last := sd.start[p+1] - 1
		if c := min(sd.cur[p], last); c < last {
			k := sd.ent[c]
			return k, min(mass, sd.rest[k])
		}
		return sd.ent[last], mass
	}
	charge := func(sd *side, p, k int, q float64) {
		if sd.rest[k] -= q; sd.rest[k] <= 0 {
			sd.cur[p]++
		}
	}
	for _, f := range res.Flows {
		// q > 0: an entry that is not its point's last is used up (and
		// left behind) as soon as its rest reaches 0.
		for mass := f.Mass; mass > 0; {
			i, qa := take(&sa, f.From, mass)
			j, qb := take(&sb, f.To, mass)
			q := min(qa, qb)
			out.Flows = append(out.Flows, Flow{From: i, To: j, Mass: q})
			mass -= q
			charge(&sa, f.From, i, q)
			charge(&sb, f.To, j, q)
		}
	}
	return out
}
