// Package island holds what the kinds built around the paper's island
// share: the island prior that isolates the vulnerable location A (Sec.
// III-A: the cells around A are emptied, so that A sits alone in a
// desert), the set-up of a city with its locations A and B, the
// statistics of where a mechanism sends the reports of one location, and
// the heat-map helpers that draw them.
package island

import (
	"fmt"
	"math"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
	"privic/plots"
)

// Params is a [params.island] table: how the island around A is made.
type Params struct {
	// Mode "set" is the reference code's island: zero the block around A,
	// give A the mass a_mass and rescale the rest to sum to 1 - a_mass.
	// Mode "move" is the paper's text: zero the block and move its mass
	// onto A.
	Mode datasets.IslandMode `toml:"mode"`
	// AMass is A's mass in "set" mode (reference code: 0.01).
	AMass float64 `toml:"a_mass"`
	// Radius is the half-width of the zeroed square block (Chebyshev
	// radius): 2 gives the reference code's 5 x 5 block, rows 4-8 and
	// columns 1-5 around the Paris preset's A = (6, 3).
	Radius int `toml:"radius"`
}

// Default is the reference code's island.
func Default() Params {
	return Params{Mode: datasets.SetMass, AMass: 0.01, Radius: 2}
}

// Validate checks params.<key>.
func (ip Params) Validate(key string) error {
	if ip.Mode != datasets.SetMass && ip.Mode != datasets.MoveMass {
		return fmt.Errorf("params.%s.mode: allowed values are \"set\", \"move\"", key)
	}
	if ip.Mode == datasets.SetMass && !(ip.AMass > 0 && ip.AMass < 1) {
		return fmt.Errorf("params.%s.a_mass = %v: must lie in (0, 1)", key, ip.AMass)
	}
	return harness.IntIn(key+".radius", ip.Radius, 0, 1000)
}

// Describe says in words what the island is, for sections.
func (ip Params) Describe() string {
	side := 2*ip.Radius + 1
	if ip.Mode == datasets.SetMass {
		return fmt.Sprintf("the %dx%d block around A zeroed, A given mass %s and the rest rescaled (reference code, mode \"set\")",
			side, side, harness.FormatSig(ip.AMass, 4))
	}
	return fmt.Sprintf("the %dx%d block around A zeroed and its mass moved onto A (paper's text, mode \"move\")", side, side)
}

// Options are the datasets.IslandOptions of the island around the cell
// (row, col).
func (ip Params) Options(row, col int) datasets.IslandOptions {
	opt := datasets.IslandOptions{Row: row, Col: col, Radius: ip.Radius, Mode: ip.Mode}
	if ip.Mode == datasets.SetMass {
		opt.Mass = ip.AMass
	}
	return opt
}

// Places are the [params] keys that place the island: the city, its row
// policy, the island and the locations A and B.
type Places struct {
	City   string             `toml:"city"`
	Rows   datasets.RowPolicy `toml:"rows"`
	Island Params             `toml:"island"`
	// A and B are the vulnerable and strong locations [row, col]; left
	// out, they are the city's places A and B.
	A param.Cell `toml:"a"`
	B param.Cell `toml:"b"`
}

// Validate checks the city, the island and A and B (filling in the
// city's places where the spec leaves them out).
func (p *Places) Validate() error {
	if err := param.City("city", p.City); err != nil {
		return err
	}
	if err := p.Island.Validate("island"); err != nil {
		return err
	}
	if err := p.A.Resolve("a", p.City, "A", p.Rows); err != nil {
		return err
	}
	return p.B.Resolve("b", p.City, "B", p.Rows)
}

// Setup is a city with its island prior and the locations A and B.
type Setup struct {
	DS    *datasets.Dataset
	Prior []float64 // the island prior
	Block []bool    // the zeroed block (A excluded)
	A, B  int       // indices of A and B
}

// Setup loads the city and builds the island prior around A.
func (p *Places) Setup() (*Setup, error) {
	ds, err := datasets.Load(p.City, datasets.LoadOptions{Rows: p.Rows})
	if err != nil {
		return nil, err
	}
	a, err := p.A.Index(ds.Grid, "a")
	if err != nil {
		return nil, err
	}
	b, err := p.B.Index(ds.Grid, "b")
	if err != nil {
		return nil, err
	}
	prior, err := datasets.Island(ds.Grid, ds.Prior(), p.Island.Options(p.A[0], p.A[1]))
	if err != nil {
		return nil, fmt.Errorf("island prior of %s: %w", ds.Name, err)
	}
	if err := massCheck("island prior", prior); err != nil {
		return nil, err
	}
	return &Setup{DS: ds, Prior: prior, Block: block(ds.Grid, a, p.Island.Radius), A: a, B: b}, nil
}

// Markers are A and B on g, in g's local (display) coordinates (only
// those that fall on g).
func (p *Places) Markers(g kernels.Grid) []plots.Marker {
	var ms []plots.Marker
	for _, m := range []struct {
		label string
		cell  param.Cell
	}{{"A", p.A}, {"B", p.B}} {
		if i := g.IndexOf(m.cell[0], m.cell[1]); i >= 0 {
			r, c := g.Cell(i)
			ms = append(ms, plots.Marker{Row: r, Col: c, Label: m.label})
		}
	}
	return ms
}

// block marks the cells within Chebyshev distance radius of a, a itself
// excluded.
func block(g kernels.Grid, a, radius int) []bool {
	ar, ac := g.Cell(a)
	b := make([]bool, g.Len())
	for i := range b {
		r, c := g.Cell(i)
		if i != a && max(abs(r-ar), abs(c-ac)) <= radius {
			b[i] = true
		}
	}
	return b
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// massCheck verifies a prior sums to 1 (defence against a transform bug
// silently skewing every downstream number).
func massCheck(name string, p []float64) error {
	s := 0.0
	for _, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: entry %v is not a probability", name, v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-9 {
		return fmt.Errorf("%s sums to %v, want 1", name, s)
	}
	return nil
}
