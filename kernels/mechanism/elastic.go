package mechanism

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"privic/kernels"
)

// Elastic is the elastic mechanism of K. Chatzikokolakis, C. Palamidessi
// and M. Stronati, "Constructing elastic distinguishability metrics for
// location privacy", PETS 2015: the exponential mechanism over an elastic
// distinguishability metric d_ℓ built from a mass function, here the prior
// (see ElasticMetric). It is named "elastic-metric" so as not to be taken
// for the elastic experiment.
//
// Geo-indistinguishability bounds the log-ratio of reporting probabilities
// by eps times the Euclidean distance everywhere, so a user in a deserted
// area gets the same noise radius as one in a crowd, and the reports
// around an isolated place betray it. An elastic metric stretches space
// where there is much mass and shrinks it where there is little, so that
// every location is indistinguishable from enough mass: the noise adapts
// to density at a constant level of privacy.
//
// The channel is C[x,z] = e^{-(eps/2) d_ℓ(x,z)} / Z(x) over the cells of
// the grid. The factor 1/2 covers the row normalisation, as in the
// exponential mechanism of McSherry and Talwar: for all x, x', z,
// C[x,z] <= e^{eps d_ℓ(x,x')} C[x',z] (eps d_ℓ-privacy, the property the
// construction is about), since both the exponent and Z move by at most
// (eps/2) d_ℓ(x,x') by the triangle inequality.
type Elastic struct {
	// Floor is added to every cell's mass, as a fraction of the mean mass
	// per cell (0 means DefaultElasticFloor). Without it an empty cell
	// would be at distance 0 from everything up to its nearest massive
	// cell, and d_ℓ only a pseudometric.
	Floor float64
	// Coverage c scales the requirement on the mass of balls: a ball of
	// radius ℓ must hold c times the mean mass per cell times the number of
	// lattice cells within distance ℓ, about c π ℓ² M / n (0 means 1); see
	// Metric.
	Coverage float64
}

// DefaultElasticFloor is Elastic.Floor when 0: one hundredth of the mean
// mass per cell, small enough that deserted areas stay cheap to cross and
// large enough to keep distinct cells apart.
const DefaultElasticFloor = 0.01

func (m Elastic) params() (floor, coverage float64) {
	floor, coverage = m.Floor, m.Coverage
	if floor == 0 {
		floor = DefaultElasticFloor
	}
	if coverage == 0 {
		coverage = 1
	}
	return floor, coverage
}

// Info implements Mechanism.
func (Elastic) Info() Info {
	return Info{
		Name: "elastic-metric", Param: "eps", Min: 1e-3, Max: 20, PriorDependent: true, SameGrid: true,
		Reference: "Chatzikokolakis, Palamidessi, Stronati, PETS 2015 (exponential mechanism over the elastic metric, mass = prior)",
	}
}

// Claim implements Mechanism. The channel is eps d_ℓ-private, so its
// Euclidean tight epsilon is at most eps times the largest ratio
// d_ℓ(x,x')/d(x,x'). Every elastic distance is below req^{-1}(M), the
// radius of a lattice disc of n/c cells (a ball holding all the mass
// reaches every cell), and distinct cells are at least 1 apart, which
// bounds the ratio whatever the prior.
func (m Elastic) Claim(in, out kernels.Grid, eps float64) Claim {
	_, c := m.params()
	n := float64(in.Len())
	return Claim{Lo: 0, Hi: eps * newDiscRadius(n/c).radius(n/c),
		Note: "eps d_l-private; d_l at most the radius of a disc of n/c cells"}
}

// Channel implements Mechanism; out must equal in.
func (m Elastic) Channel(in, out kernels.Grid, prior []float64, eps float64) (*kernels.Channel, error) {
	info := m.Info()
	if err := checkArgs(info, in, out, eps); err != nil {
		return nil, err
	}
	d, err := m.Metric(in, prior)
	if err != nil {
		return nil, err
	}
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, err
	}
	n := in.Len()
	for x := 0; x < n; x++ {
		row := ch.Row(x)
		s := 0.0
		for z := range row {
			// d(x,x) = 0, so the largest term is 1 and Z(x) >= 1.
			row[z] = math.Exp(-eps / 2 * d[x*n+z])
			s += row[z]
		}
		for z := range row {
			row[z] /= s
		}
	}
	return ch, nil
}

// Metric returns the elastic metric of the mechanism on g for prior (n*n,
// row-major): ElasticMetric with mass prior(x) + Floor/n and the
// requirement that a ball of radius ℓ hold c M/n times the number of
// lattice points at distance below ℓ from the origin (interpolated
// linearly between the lattice's distances). A uniform mass then gives
// back the Euclidean distance exactly away from the grid's edges (the
// cells strictly closer to x than z are the lattice points inside a disc
// of radius d(x,z)), so eps keeps its geo-indistinguishability meaning
// there; denser areas are stretched, sparser ones shrunk, and cells near
// an edge, which see less mass around them, are brought closer.
func (m Elastic) Metric(g kernels.Grid, prior []float64) ([]float64, error) {
	info := m.Info()
	if !(m.Floor >= 0) || math.IsInf(m.Floor, 0) || !(m.Coverage >= 0) || math.IsInf(m.Coverage, 0) {
		return nil, fmt.Errorf("%s: Floor = %v, Coverage = %v: must be finite and >= 0 (0 means the default)", info.Name, m.Floor, m.Coverage)
	}
	floor, c := m.params()
	if err := checkPrior(info.Name, g, prior); err != nil {
		return nil, err
	}
	n := g.Len()
	mass := make([]float64, n)
	total := 0.0
	for x, p := range prior {
		mass[x] = p + floor/float64(n)
		total += mass[x]
	}
	unit := c * total / float64(n) // the mass the requirement asks per lattice cell
	disc := newDiscRadius(total / unit)
	return ElasticMetric(g, mass, func(mu float64) float64 { return disc.radius(mu / unit) }), nil
}

// discRadius maps a number of cells t to the radius of a lattice disc
// holding them: through the knots (C_k, r_{k+1}), where r_0 = 0 < r_1 <
// ... are the distances from the origin to points of Z^2 and C_k the
// number of points at distance <= r_k, starting at (0, 0), linear in
// between and beyond the last knot. It is increasing and continuous.
type discRadius struct{ counts, radii []float64 }

func newDiscRadius(maxCount float64) discRadius {
	// A disc of radius R holds about π R² points; 2 maxCount leaves room.
	R := int(math.Ceil(math.Sqrt(2*math.Max(maxCount, 1)/math.Pi))) + 2
	var ds []float64
	for i := -R; i <= R; i++ {
		for j := -R; j <= R; j++ {
			if d := math.Hypot(float64(i), float64(j)); d <= float64(R) {
				ds = append(ds, d)
			}
		}
	}
	sort.Float64s(ds)
	dr := discRadius{counts: []float64{0}, radii: []float64{0}}
	for i := 0; i < len(ds); {
		j := i
		for j < len(ds) && ds[j] == ds[i] {
			j++
		}
		// j points are at distance <= ds[i]; the next distance is ds[j].
		if j < len(ds) {
			dr.counts = append(dr.counts, float64(j))
			dr.radii = append(dr.radii, ds[j])
		}
		i = j
	}
	return dr
}

func (dr discRadius) radius(t float64) float64 {
	k := sort.SearchFloat64s(dr.counts, t)
	switch {
	case k == 0:
		return 0
	case k == len(dr.counts):
		k-- // extrapolate along the last segment
	}
	c0, c1 := dr.counts[k-1], dr.counts[k]
	r0, r1 := dr.radii[k-1], dr.radii[k]
	return r0 + (t-c0)/(c1-c0)*(r1-r0)
}

// ElasticMetric builds the elastic distinguishability metric on the cells
// of g for a mass function (mass[x] > 0) and the inverse reqInv of an
// increasing requirement req on the mass of balls. It returns the n*n
// distance matrix.
//
// The requirement is that every ball of the elastic metric hold enough
// mass, m(B_ℓ(x)) >= min(req(ℓ), M) for every cell x and radius ℓ, M being
// the total mass; the smaller the distances, the larger the balls, so the
// metric wanted is the largest one meeting it (the least noise for the
// privacy asked). Following the construction of the PETS 2015 paper, balls
// grow from each cell x in the order of Euclidean distance: a cell z
// should be inside x's elastic ball of radius ℓ as soon as the cells
// strictly closer to x than z already hold req(ℓ), so the distance from x
// to z is bounded by
//
//	w(x,z) = reqInv(m({x' : d_E(x,x') < d_E(x,z)})),
//
// and then every elastic ball of x contains a whole Euclidean ball around
// x holding at least req(ℓ) (or everything). The metric is the largest one
// below these bounds in both directions: the shortest-path metric of the
// complete graph with edge lengths min(w(x,z), w(z,x)) (Floyd-Warshall,
// O(n^3)). Shortening distances only enlarges balls, so it keeps the
// requirement.
//
// Elastic.Metric gives the requirement used by the mechanism.
func ElasticMetric(g kernels.Grid, mass []float64, reqInv func(mass float64) float64) []float64 {
	n := g.Len()
	d := make([]float64, n*n)
	for i := range d {
		d[i] = math.Inf(1)
	}
	order := make([]int, n)
	for x := 0; x < n; x++ {
		for i := range order {
			order[i] = i
		}
		dx := func(z int) float64 { return kernels.Dist(g, x, g, z) }
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(dx(a), dx(b)) })
		inner := 0.0 // mass strictly closer to x than the current ring
		for i := 0; i < n; {
			r := dx(order[i])
			j := i
			ring := 0.0
			for ; j < n && dx(order[j]) == r; j++ {
				z := order[j]
				ring += mass[z]
				w := 0.0
				if z != x {
					w = reqInv(inner)
				}
				d[x*n+z] = math.Min(d[x*n+z], w)
				d[z*n+x] = math.Min(d[z*n+x], w)
			}
			inner += ring
			i = j
		}
	}
	for k := 0; k < n; k++ {
		dk := d[k*n : (k+1)*n]
		for x := 0; x < n; x++ {
			dxk := d[x*n+k]
			dxr := d[x*n : (x+1)*n]
			for z, v := range dk {
				if s := dxk + v; s < dxr[z] {
					dxr[z] = s
				}
			}
		}
	}
	return d
}
