package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"privic/kernels"
	"privic/kernels/enum"
)

// PointModel says where the true location lies inside its input cell.
type PointModel int

const (
	// UniformInCell: the true point is uniform over the input cell (a unit
	// square centred on the cell), the natural model of a user known only up
	// to the cell. This is the default.
	UniformInCell PointModel = iota
	// CellCentre: the true point is the centre of the input cell.
	CellCentre
)

// pointModelNames name the point models, by value (read-only).
var pointModelNames = enum.New[PointModel]("PointModel", "point model", "uniform", "centre")

// String names the point model ("uniform" or "centre").
func (p PointModel) String() string { return pointModelNames.String(p) }

// PlanarLaplace is the continuous planar Laplace mechanism of
// geo-indistinguishability followed by remapping to the nearest cell of the
// output grid, which is what deployed geo-indistinguishability code does:
// perturb the true point with noise of density eps^2/(2 pi) e^{-eps |z|}
// (in cell units), then snap the noisy point to the nearest output cell.
// Points outside the output grid snap to its border, so a border cell's
// region extends to infinity (half-strips on the sides, quadrants at the
// corners); an interior cell's region is its unit square.
//
// Reference: M. E. Andrés, N. E. Bordenabe, K. Chatzikokolakis,
// C. Palamidessi, "Geo-indistinguishability: differential privacy for
// location-based systems", ACM CCS 2013.
//
// Channel computes the exact cell-to-cell channel by quadrature, not by
// sampling. The probability of a rectangle R (possibly unbounded) is written
// in polar coordinates around the true point,
//
//	P = 1/(2 pi) ∫ dθ ∫_{t_in(θ)}^{t_out(θ)} eps^2 t e^{-eps t} w(t cos θ, t sin θ) dt,
//
// where the radial integral has a closed form (incomplete gamma functions
// of integer order, see gammaDiffs) and the angular integral is done by
// adaptive Gauss-Legendre quadrature (10 against 20 points, bisection)
// between the angles of R's corners and of the axes, where the integrand
// is analytic. For CellCentre the weight w is 1; for UniformInCell it is
// the overlap area of the input cell shifted by the noise with R, a product
// of two piecewise-linear functions, so R is split into at most 3x3 pieces
// on which w is bilinear. Every entry is computed directly (never as a
// difference of cumulative probabilities), so small entries keep their
// relative accuracy: RelTol (default 1e-12), except where rounding in the
// bilinear weight (a small difference of terms as large as the squared
// distance) sets a floor of about 1e-13 times the terms. Entries are
// memoised up to the symmetries of the square. The regions partition the
// plane, so every row sums to 1; the tests check this to 1e-11, compare
// entries with independent Cartesian (2-fold) and 4-fold Gauss quadratures
// to 1e-11 and 1e-9, and with Monte Carlo simulation of perturb-and-snap.
// Entries below about 1e-300 underflow to 0. Cost: about 0.1 s for the
// SF grid (384 x 384 entries) with uniform points, 0.05 s with centres.
type PlanarLaplace struct {
	// Point is where the true location lies in its cell.
	Point PointModel
	// RelTol is the quadrature's relative tolerance per entry; 0 means 1e-12.
	RelTol float64
}

// Info implements Mechanism.
func (m PlanarLaplace) Info() Info {
	name := "planar-laplace"
	if m.Point == CellCentre {
		name = "planar-laplace-centre"
	}
	return Info{
		Name: name, Param: "eps", Min: 1e-3, Max: 200,
		Reference: "Andrés, Bordenabe, Chatzikokolakis, Palamidessi, CCS 2013",
	}
}

// Claim implements Mechanism. The continuous mechanism is eps-geo-
// indistinguishable and snapping is post-processing; with the true point at
// the centre this bounds cell ratios by e^{eps d(x,x')} directly, and with
// uniform points the translation coupling p' = p + (x' - x) gives the same
// bound. The grid's tight epsilon is below eps (measured, not claimed).
func (PlanarLaplace) Claim(in, out kernels.Grid, eps float64) Claim {
	return Claim{Lo: 0, Hi: eps, Note: "post-processing of eps-geo-ind noise"}
}

// Channel implements Mechanism; the prior is ignored.
func (m PlanarLaplace) Channel(in, out kernels.Grid, _ []float64, eps float64) (*kernels.Channel, error) {
	pi, err := m.integrator(in, out, eps)
	if err != nil {
		return nil, err
	}
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, err
	}
	rowLo, rowHi := out.Row0, out.Row0+out.Rows-1
	colLo, colHi := out.Col0, out.Col0+out.Cols-1
	for x := 0; x < in.Len(); x++ {
		xr, xc := in.Abs(x)
		row := ch.Row(x)
		for y := range row {
			yr, yc := out.Abs(y)
			a1, b1 := cellInterval(yr, rowLo, rowHi)
			a2, b2 := cellInterval(yc, colLo, colHi)
			v, err := pi.region(a1-float64(xr), b1-float64(xr), a2-float64(xc), b2-float64(xc))
			if err != nil {
				return nil, fmt.Errorf("%s: eps=%v: entry (%d,%d): %w", m.Info().Name, eps, x, y, err)
			}
			row[y] = v
		}
	}
	return ch, nil
}

// cellInterval is the nearest-cell interval of coordinate v on the line of
// cells lo..hi: [v-1/2, v+1/2], unbounded beyond the first and last cell.
func cellInterval(v, lo, hi int) (a, b float64) {
	a, b = float64(v)-0.5, float64(v)+0.5
	if v == lo {
		a = math.Inf(-1)
	}
	if v == hi {
		b = math.Inf(1)
	}
	return a, b
}

// planarIntegrator computes region probabilities for one eps, memoised on
// the region relative to the true cell up to the 8 symmetries of the square
// (the noise is isotropic and the cell symmetric).
type planarIntegrator struct {
	eps     float64
	q       *adaptive
	uniform bool
	memo    map[[4]float64]float64
	short   gaussRule // gammaDiffs near the origin
	evals   int       // angular integrand evaluations (the tests check the cost)
}

// region returns P(report region [a1,b1] x [a2,b2]) where coordinates are
// relative to the true cell's centre.
func (p *planarIntegrator) region(a1, b1, a2, b2 float64) (float64, error) {
	key := canonicalRect(a1, b1, a2, b2)
	if v, ok := p.memo[key]; ok {
		return v, nil
	}
	var v float64
	if !p.uniform {
		r, err := p.rect(key[0], key[1], key[2], key[3], [4]float64{1, 0, 0, 0})
		if err != nil {
			return 0, err
		}
		v = r
	} else {
		for _, s1 := range overlapSegments(key[0], key[1]) {
			for _, s2 := range overlapSegments(key[2], key[3]) {
				// w = (α1 + β1 z1)(α2 + β2 z2).
				c := [4]float64{s1.alpha * s2.alpha, s1.beta * s2.alpha, s1.alpha * s2.beta, s1.beta * s2.beta}
				r, err := p.rect(s1.lo, s1.hi, s2.lo, s2.hi, c)
				if err != nil {
					return 0, err
				}
				v += r
			}
		}
	}
	p.memo[key] = v
	return v, nil
}

// canonicalRect maps a rectangle to a representative of its orbit under
// reflections of either axis and exchange of the axes.
func canonicalRect(a1, b1, a2, b2 float64) [4]float64 {
	best := [4]float64{a1, b1, a2, b2}
	less := func(u, v [4]float64) bool {
		for i := range u {
			if u[i] != v[i] {
				return u[i] < v[i]
			}
		}
		return false
	}
	for _, f1 := range []bool{false, true} {
		for _, f2 := range []bool{false, true} {
			x1, y1, x2, y2 := a1, b1, a2, b2
			if f1 {
				x1, y1 = -b1, -a1
			}
			if f2 {
				x2, y2 = -b2, -a2
			}
			for _, c := range [][4]float64{{x1, y1, x2, y2}, {x2, y2, x1, y1}} {
				if less(c, best) {
					best = c
				}
			}
		}
	}
	return best
}

// segment is a piece [lo, hi] of the noise coordinate on which the overlap
// length of the unit cell [-1/2, 1/2] shifted by s with the interval is
// alpha + beta*s.
type segment struct{ lo, hi, alpha, beta float64 }

// overlapSegments splits the line of noise values s for which the shifted
// unit cell meets [a, b] (b - a >= 1, ends may be infinite) into pieces
// with a linear overlap length: rising on [a-1/2, a+1/2], 1 in between,
// falling on [b-1/2, b+1/2].
func overlapSegments(a, b float64) []segment {
	var segs []segment
	if !math.IsInf(a, -1) {
		segs = append(segs, segment{a - 0.5, a + 0.5, 0.5 - a, 1})
	}
	if lo, hi := a+0.5, b-0.5; hi > lo {
		segs = append(segs, segment{lo, hi, 1, 0})
	}
	if !math.IsInf(b, 1) {
		segs = append(segs, segment{b - 0.5, b + 0.5, b + 0.5, -1})
	}
	return segs
}

// rect returns the integral over [x1,x2] x [y1,y2] of the planar Laplace
// density times c[0] + c[1] z1 + c[2] z2 + c[3] z1 z2.
func (p *planarIntegrator) rect(x1, x2, y1, y2 float64, c [4]float64) (float64, error) {
	if !(x2 > x1) || !(y2 > y1) {
		return 0, nil
	}
	// Angular breakpoints: the corners and the axes. Between two of them
	// the entry and exit faces of the ray are fixed, so t_in and t_out are
	// analytic in θ.
	br := []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2, 2 * math.Pi}
	for _, u := range []float64{x1, x2} {
		for _, v := range []float64{y1, y2} {
			// A corner at the true point has no angle of its own:
			// atan2(±0, ±0) is 0 or ±π, axes already listed.
			if math.IsInf(u, 0) || math.IsInf(v, 0) {
				continue
			}
			th := math.Atan2(v, u)
			if th < 0 {
				th += 2 * math.Pi
			}
			br = append(br, th)
		}
	}
	sort.Float64s(br)
	eps := p.eps
	// f returns the angular integrand and its rounding scale (the sum of
	// the magnitudes of its terms: far from the origin the bilinear weight
	// is a small difference of large terms, and gammaDiffs subtracts).
	f := func(th float64) (float64, float64) {
		p.evals++
		cs, sn := math.Cos(th), math.Sin(th)
		tin, tout, ok := slab(x1, x2, cs, 0, math.Inf(1))
		if !ok {
			return 0, 0
		}
		if tin, tout, ok = slab(y1, y2, sn, tin, tout); !ok {
			return 0, 0
		}
		d2, d3, d4, s2, s3, s4 := gammaDiffs(eps*tin, eps*tout, p.short)
		// eps^2 ∫ t^k e^{-eps t} dt = k! eps^(1-k) [Q_{k+1}(ua) - Q_{k+1}(ub)].
		k1 := (c[1]*cs + c[2]*sn) * 2 / eps
		k2 := c[3] * cs * sn * 6 / (eps * eps)
		v := c[0]*d2 + k1*d3 + k2*d4
		scale := math.Abs(c[0])*s2 + math.Abs(k1)*s3 + math.Abs(k2)*s4
		return v / (2 * math.Pi), scale / (2 * math.Pi)
	}
	total := 0.0
	for i := 0; i+1 < len(br); i++ {
		if br[i+1]-br[i] < 1e-15 {
			continue
		}
		// Whether the ray meets the rectangle changes only at breakpoints,
		// so a piece whose middle ray misses is empty.
		if _, scale := f((br[i] + br[i+1]) / 2); scale == 0 {
			continue
		}
		v, err := p.q.integrate(f, br[i], br[i+1])
		if err != nil {
			return 0, err
		}
		total += v
	}
	return total, nil
}

// slab intersects the parameter range [tin, tout] of the ray t*(dir) with
// the slab lo <= t*dir <= hi; ok is false when the intersection has no
// length (a ray that only touches a face adds nothing).
func slab(lo, hi, dir, tin, tout float64) (float64, float64, bool) {
	if dir == 0 {
		return tin, tout, lo <= 0 && 0 <= hi
	}
	q1, q2 := lo/dir, hi/dir
	t1, t2 := min(q1, q2), max(q1, q2)
	tin, tout = math.Max(tin, t1), math.Min(tout, t2)
	return tin, tout, tout > tin
}

// gammaQ is the regularised upper incomplete gamma function of integer
// order n: e^{-u} sum_{j<n} u^j / j!, with gammaQ(n, +Inf) = 0.
func gammaQ(n int, u float64) float64 {
	if math.IsInf(u, 1) {
		return 0
	}
	s, term := 1.0, 1.0
	for j := 1; j < n; j++ {
		term *= u / float64(j)
		s += term
	}
	return math.Exp(-u) * s
}

// gammaDiffs returns d_n = Q_n(a) - Q_n(b) for n = 2, 3, 4 (0 <= a <= b,
// b may be +Inf), which is the integral over [a, b] of
// u^(n-1) e^{-u} / (n-1)!, and for each the rounding scale of the formula
// used. With S_n(u) = sum_{j<n} u^j/j! (so Q_n = e^{-u} S_n):
//
//   - b - a >= 1: d_n = e^{-a} S_n(a) - e^{-b} S_n(b), where e^{-b} <=
//     e^{-1} e^{-a} keeps the cancellation mild;
//   - b - a < 1: d_n = e^{-a} [(1 - e^{-δ}) S_n(b) - δ P_n], δ = b - a,
//     P_n = (S_n(b) - S_n(a))/δ written without division, and 1 - e^{-δ}
//     from expm1, so that short intervals keep their accuracy relative to
//     e^{-a} S_n(b);
//   - b <= 1 (rays that stay near the true point, where the last form
//     would subtract nearly equal terms of size 1 to get u^3/6): the
//     integral itself by the Gauss rule g, exact to rounding on such short
//     intervals of an entire function.
//
// Two exponentials serve all three orders except near the origin.
func gammaDiffs(a, b float64, g gaussRule) (d2, d3, d4, s2, s3, s4 float64) {
	if b <= 1 {
		h, m := (b-a)/2, (a+b)/2
		for i, x := range g.x {
			u := m + h*x
			e := g.w[i] * math.Exp(-u)
			d2 += e * u
			d3 += e * u * u
			d4 += e * u * u * u
		}
		d2, d3, d4 = d2*h, d3*h/2, d4*h/6
		return d2, d3, d4, d2, d3, d4
	}
	ea := math.Exp(-a)
	sa2, sa3, sa4 := partialExp(a)
	if math.IsInf(b, 1) {
		d2, d3, d4 = ea*sa2, ea*sa3, ea*sa4
		return d2, d3, d4, d2, d3, d4
	}
	sb2, sb3, sb4 := partialExp(b)
	delta := b - a
	if delta >= 1 {
		eb := math.Exp(-b)
		return ea*sa2 - eb*sb2, ea*sa3 - eb*sb3, ea*sa4 - eb*sb4, ea * sa2, ea * sa3, ea * sa4
	}
	em := -math.Expm1(-delta)
	p2 := 1.0
	p3 := p2 + (a+b)/2
	p4 := p3 + (a*a+a*b+b*b)/6
	d2 = ea * (em*sb2 - delta*p2)
	d3 = ea * (em*sb3 - delta*p3)
	d4 = ea * (em*sb4 - delta*p4)
	return d2, d3, d4, ea * (em*sb2 + delta*p2), ea * (em*sb3 + delta*p3), ea * (em*sb4 + delta*p4)
}

// partialExp returns S_2, S_3, S_4 of u: 1 + u, + u^2/2, + u^3/6.
func partialExp(u float64) (s2, s3, s4 float64) {
	s2 = 1 + u
	s3 = s2 + u*u/2
	s4 = s3 + u*u*u/6
	return s2, s3, s4
}

// PlanarNoise draws one noise vector of the planar Laplace mechanism with
// parameter eps (cell units): a uniform angle and a radius drawn by the
// inverse of the radial CDF 1 - (1 + eps r) e^{-eps r}, which is
// r = -(W_{-1}((p - 1)/e) + 1)/eps with W_{-1} the lower branch of the
// Lambert W function, as in Andrés et al., CCS 2013.
func PlanarNoise(rng *rand.Rand, eps float64) (d1, d2 float64) {
	th := 2 * math.Pi * rng.Float64()
	r := PlanarRadius(rng.Float64(), eps)
	return r * math.Cos(th), r * math.Sin(th)
}

// PlanarRadius is the inverse radial CDF of the planar Laplace mechanism:
// the radius r with 1 - (1 + eps r) e^{-eps r} = p, for p in [0, 1).
func PlanarRadius(p, eps float64) float64 {
	if p <= 0 {
		return 0
	}
	return -(lambertWm1((p-1)/math.E) + 1) / eps
}

// lambertWm1 is the lower branch W_{-1} of the Lambert W function on
// [-1/e, 0): the solution w <= -1 of w e^w = x. It starts from the series
// at the branch point or the asymptotic form near 0 and polishes with
// Halley's iteration.
func lambertWm1(x float64) float64 {
	w, _ := lambertWm1Iter(x)
	return w
}

// lambertWm1Iter is lambertWm1 and the number of Halley iterations it
// took (the tests bound it: cubic convergence from the starting forms).
func lambertWm1Iter(x float64) (w float64, iters int) {
	if x <= -1/math.E {
		return -1, 0
	}
	if x >= 0 {
		return math.Inf(-1), 0
	}
	if x < -0.25 {
		q := -math.Sqrt(2 * (1 + math.E*x))
		w = -1 + q - q*q/3 + 11*q*q*q/72
	} else {
		l1 := math.Log(-x)
		w = l1 - math.Log(-l1)
	}
	prev := math.Inf(1)
	for iters < 50 {
		iters++
		ew := math.Exp(w)
		f := w*ew - x
		// At the branch point w = -1 the step below is f/(∓Inf) = 0, and
		// the loop stops; with f = 0 too it would be 0/NaN.
		if f == 0 {
			break
		}
		d := ew*(w+1) - (w+2)*f/(2*w+2)
		dw := f / d
		w -= dw
		w = min(w, -1) // stay on the lower branch
		// Stop when converged, or when the steps no longer shrink: they
		// are then rounding noise, which near the branch point (f and
		// its derivative both small) can stay above the tolerance.
		if math.Abs(dw) <= 1e-15*math.Abs(w) || math.Abs(dw) >= prev {
			break
		}
		prev = math.Abs(dw)
	}
	return w, iters
}

// Snap returns the index in out of the cell nearest to the point (r, c)
// given in absolute cell coordinates (a cell's centre is its integer
// position); points outside the grid go to the nearest border cell.
func Snap(out kernels.Grid, r, c float64) int {
	clamp := func(v float64, lo, n int) int {
		i := math.Floor(v+0.5) - float64(lo)
		switch {
		case !(i > 0): // also NaN
			return 0
		case i >= float64(n):
			return n - 1
		}
		return int(i)
	}
	return clamp(r, out.Row0, out.Rows)*out.Cols + clamp(c, out.Col0, out.Cols)
}
