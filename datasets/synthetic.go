package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"privic/kernels"
)

// Hotspot is one Gaussian component of a synthetic city, in cell units:
// row 0 and column 0 are the centres of the first cells.
type Hotspot struct {
	Row    float64 `toml:"row" json:"row"` // centre; must lie on the grid (within half a cell of it)
	Col    float64 `toml:"col" json:"col"`
	Sigma  float64 `toml:"sigma" json:"sigma"`   // standard deviation, > 0
	Weight float64 `toml:"weight" json:"weight"` // relative weight, > 0
}

// SyntheticOptions configures Synthetic.
type SyntheticOptions struct {
	Name string `toml:"name"` // default "synthetic"
	Rows int    `toml:"rows"`
	Cols int    `toml:"cols"`
	N    int    `toml:"n"` // check-ins to draw
	// Hotspots is the number of hotspots drawn at random when Spots is
	// empty: centres uniform over the grid, spreads Sigma*U(0.5, 1.5),
	// weights Exp(1) (so the mixture weights are Dirichlet(1, ..., 1)).
	Hotspots int `toml:"hotspots"`
	// Sigma is the typical spread of random hotspots in cells; 0 means
	// max(Rows, Cols)/10, at least 0.5.
	Sigma float64 `toml:"sigma"`
	// Background is the fraction of check-ins spread uniformly over the
	// grid, in [0, 1].
	Background float64 `toml:"background"`
	// Spots, when not empty, are used instead of random hotspots.
	Spots []Hotspot `toml:"spots"`
}

// maxSyntheticN bounds the number of synthetic check-ins (int counts and a
// run time of seconds, not hours).
const maxSyntheticN = 1 << 31

// Synthetic draws a synthetic city: a mixture of Gaussian hotspots plus a
// uniform background on a Rows x Cols grid, N check-ins drawn independently
// from MixturePrior. The result depends only on rng's state and opt.
func Synthetic(rng *rand.Rand, opt SyntheticOptions) (*Dataset, error) {
	if rng == nil {
		return nil, fmt.Errorf("synthetic: nil random source")
	}
	g, err := kernels.NewGrid(opt.Rows, opt.Cols)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	if opt.N <= 0 || opt.N > maxSyntheticN {
		return nil, fmt.Errorf("synthetic: n = %d: want 1 to %d check-ins", opt.N, maxSyntheticN)
	}
	spots := opt.Spots
	if len(spots) == 0 && opt.Background < 1 {
		if opt.Hotspots <= 0 {
			return nil, fmt.Errorf("synthetic: hotspots = %d: want > 0, explicit spots, or background = 1", opt.Hotspots)
		}
		sigma := opt.Sigma
		if sigma == 0 {
			sigma = max(0.5, float64(max(opt.Rows, opt.Cols))/10)
		}
		if !(sigma > 0) || math.IsInf(sigma, 0) {
			return nil, fmt.Errorf("synthetic: sigma = %v: want a finite value > 0", opt.Sigma)
		}
		for range opt.Hotspots {
			spots = append(spots, Hotspot{
				Row:    rng.Float64() * float64(opt.Rows-1),
				Col:    rng.Float64() * float64(opt.Cols-1),
				Sigma:  sigma * (0.5 + rng.Float64()),
				Weight: rng.ExpFloat64(),
			})
		}
	}
	p, err := MixturePrior(g, spots, opt.Background)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	cdf := make([]float64, len(p))
	acc := 0.0
	for i, v := range p {
		acc += v
		cdf[i] = acc
	}
	// Rounding can make u equal acc; such a draw goes to the last cell
	// with mass, as if u were a hair smaller.
	last := len(p) - 1
	for last > 0 && p[last] == 0 {
		last--
	}
	counts := make([]int, len(p))
	for range opt.N {
		u := rng.Float64() * acc
		// cell i owns [cdf[i-1], cdf[i]): the first cdf above u
		i := sort.Search(len(cdf), func(j int) bool { return cdf[j] > u })
		counts[min(i, last)]++
	}
	name := opt.Name
	if name == "" {
		name = "synthetic"
	}
	return &Dataset{
		Name:   name,
		Grid:   g,
		Counts: counts,
		N:      opt.N,
		Source: fmt.Sprintf("synthetic %v grid, n = %d, %d hotspots, background %v", g, opt.N, len(spots), opt.Background),
	}, nil
}

// MixturePrior is the distribution Synthetic draws from: background/|X| on
// every cell plus (1 - background) times the weighted mixture of the
// hotspots. Each hotspot is an isotropic Gaussian integrated over the
// cells (a cell spans +-0.5 around its centre on each axis) and truncated
// to the grid, so every hotspot puts all of its weight on the grid.
func MixturePrior(g kernels.Grid, spots []Hotspot, background float64) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if !(background >= 0 && background <= 1) {
		return nil, fmt.Errorf("background = %v: want a fraction in [0, 1]", background)
	}
	if background < 1 && len(spots) == 0 {
		return nil, fmt.Errorf("background = %v < 1 needs at least one hotspot", background)
	}
	wsum := 0.0
	for k, s := range spots {
		switch {
		case !(s.Sigma > 0) || math.IsInf(s.Sigma, 0):
			return nil, fmt.Errorf("spot %d: sigma = %v: want a finite value > 0", k, s.Sigma)
		case !(s.Weight > 0) || math.IsInf(s.Weight, 0):
			return nil, fmt.Errorf("spot %d: weight = %v: want a finite value > 0", k, s.Weight)
		case !(s.Row >= -0.5 && s.Row <= float64(g.Rows)-0.5 && s.Col >= -0.5 && s.Col <= float64(g.Cols)-0.5):
			return nil, fmt.Errorf("spot %d: centre (%v, %v) is off the %v grid", k, s.Row, s.Col, g)
		}
		wsum += s.Weight
	}
	p := make([]float64, g.Len())
	bg := background / float64(g.Len())
	for i := range p {
		p[i] = bg
	}
	if background == 1 {
		return p, nil
	}
	for k, s := range spots {
		rw, err := axisMass(g.Rows, s.Row, s.Sigma)
		if err != nil {
			return nil, fmt.Errorf("spot %d: %w", k, err)
		}
		cw, err := axisMass(g.Cols, s.Col, s.Sigma)
		if err != nil {
			return nil, fmt.Errorf("spot %d: %w", k, err)
		}
		w := (1 - background) * s.Weight / wsum
		for r, a := range rw {
			row := p[r*g.Cols : (r+1)*g.Cols]
			for c, b := range cw {
				row[c] += w * a * b
			}
		}
	}
	return p, nil
}

// axisMass is the normal(mu, sigma) mass of each of n unit cells centred
// on 0..n-1, renormalised to sum to 1 over them.
func axisMass(n int, mu, sigma float64) ([]float64, error) {
	m := make([]float64, n)
	sum := 0.0
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-(x-mu)/(sigma*math.Sqrt2)) }
	for i := range m {
		m[i] = phi(float64(i)+0.5) - phi(float64(i)-0.5)
		sum += m[i]
	}
	if !(sum > 0) {
		return nil, fmt.Errorf("no mass on the grid (centre %v, sigma %v)", mu, sigma)
	}
	for i := range m {
		m[i] /= sum
	}
	return m, nil
}
