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
	"privic/harness/kinds/internal/paper"
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
	// radius) in cells: 2 gives the reference code's 5 x 5 block, rows 4-8
	// and columns 1-5 around the Paris preset's A = (6, 3).
	Radius int `toml:"radius"`
	// RadiusM, when > 0, gives the half-width in metres instead, so that
	// the island covers the same ground at any resolution: the block is
	// the cells whose centres lie within RadiusM of A's centre along each
	// axis (rows by the cells' height, columns by their width). 1000 on
	// the Paris preset (cells of 475 x 484 m) is the 5 x 5 block.
	RadiusM float64 `toml:"radius_m"`
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
	if !(ip.RadiusM >= 0) || math.IsInf(ip.RadiusM, 0) {
		return fmt.Errorf("params.%s.radius_m = %v: must be a finite number of metres >= 0 (0: use radius)", key, ip.RadiusM)
	}
	return harness.IntIn(key+".radius", ip.Radius, 0, 1000)
}

// ValidateOn checks what the island needs of ds: a cell size for
// radius_m.
func (ip Params) ValidateOn(key string, ds *datasets.Dataset) error {
	if ip.RadiusM > 0 && ds.CellM == 0 {
		return fmt.Errorf("params.%s.radius_m: dataset %q has no cell size in metres; give radius in cells (or cell_m in its declaration)", key, ds.Name)
	}
	if rr, rc := ip.halfWidths(ds); rr > 100000 || rc > 100000 {
		return fmt.Errorf("params.%s.radius_m = %v: %d x %d cells is too large a block", key, ip.RadiusM, 2*rr+1, 2*rc+1)
	}
	return nil
}

// halfWidths are the block's half-widths in rows and in columns on ds.
func (ip Params) halfWidths(ds *datasets.Dataset) (rows, cols int) {
	if ip.RadiusM <= 0 || ds.CellM == 0 {
		return ip.Radius, ip.Radius
	}
	// A centre exactly radius_m away is inside: allow for rounding.
	rows = int(math.Floor(ip.RadiusM/ds.CellHeightM + 1e-9))
	cols = int(math.Floor(ip.RadiusM/ds.CellWidthM + 1e-9))
	return rows, cols
}

// Describe says in words what the island is on ds, for sections; on the
// paper's datasets it says which of the paper's islands the mode is.
func (ip Params) Describe(ds *datasets.Dataset) string {
	setWords, moveWords := "reference code, mode \"set\"", "paper's text, mode \"move\""
	if !paper.Has(ds.Name) {
		setWords, moveWords = "mode \"set\"", "mode \"move\""
	}
	rr, rc := ip.halfWidths(ds)
	block := fmt.Sprintf("the %dx%d block around A", 2*rr+1, 2*rc+1)
	if ip.RadiusM > 0 {
		block = fmt.Sprintf("the %dx%d block of cells within %s m of A", 2*rr+1, 2*rc+1, harness.FormatSig(ip.RadiusM, 4))
	}
	if ip.Mode == datasets.SetMass {
		return fmt.Sprintf("%s zeroed, A given mass %s and the rest rescaled (%s)",
			block, harness.FormatSig(ip.AMass, 4), setWords)
	}
	return fmt.Sprintf("%s zeroed and its mass moved onto A (%s)", block, moveWords)
}

// Options are the datasets.IslandOptions of the island around the cell
// a (an index of ds's grid).
func (ip Params) Options(ds *datasets.Dataset, a int) datasets.IslandOptions {
	g := ds.Grid
	r, c := g.Cell(a)
	rr, rc := ip.halfWidths(ds)
	b := datasets.Block{Row0: max(0, r-rr), Row1: min(g.Rows-1, r+rr), Col0: max(0, c-rc), Col1: min(g.Cols-1, c+rc)}
	opt := datasets.IslandOptions{Row: r, Col: c, Block: &b, Mode: ip.Mode}
	if ip.Mode == datasets.SetMass {
		opt.Mass = ip.AMass
	}
	return opt
}

// DefaultCity is the dataset the island kinds run on by default: the
// first preset with a place A (the paper's Paris).
func DefaultCity() string {
	for _, c := range datasets.Cities() {
		if _, ok := c.Place("A"); ok {
			return c.Name
		}
	}
	return datasets.CityNames()[0]
}

// Places are the [params] keys that place the island: the dataset, its
// row policy, the island and the locations A and B.
type Places struct {
	param.Catalog
	City   string             `toml:"city"`
	Rows   datasets.RowPolicy `toml:"rows"`
	Island Params             `toml:"island"`
	// A and B are the vulnerable and strong locations: a place of the
	// dataset or [row, col]; left out, its places A and B.
	A param.Loc `toml:"a"`
	B param.Loc `toml:"b"`
	// DesertRadiusM is the radius in metres of the neighbourhood whose
	// prior mass decides whether a reported cell is deserted (Deserted):
	// the same ground at every resolution.
	DesertRadiusM float64 `toml:"deserted_radius_m"`
}

// DefaultPlaces are the places of the island kinds by default: the
// default dataset, the reference code's island, A and B its places,
// deserted cells by the prior mass within DefaultDesertRadiusM.
func DefaultPlaces() Places {
	return Places{City: DefaultCity(), Rows: datasets.HeaderQuirk, Island: Default(), DesertRadiusM: DefaultDesertRadiusM}
}

// Validate checks the dataset, the island and A and B (filling in the
// dataset's places A and B where the spec leaves them out).
func (p *Places) Validate() error {
	if err := p.Check("city", p.City); err != nil {
		return err
	}
	if err := p.Island.Validate("island"); err != nil {
		return err
	}
	if r := p.DesertRadiusM; !(r > 0 && r <= 1e5) {
		return fmt.Errorf("params.deserted_radius_m = %v: must be a number of metres in (0, 100000]", r)
	}
	ds, err := p.Dataset(p.City, p.Rows)
	if err != nil {
		return fmt.Errorf("params.city: %w", err)
	}
	return ResolveOn(ds, p.Island, &p.A, &p.B)
}

// DatasetTitles implements harness.DatasetTitler: the island's dataset.
func (p *Places) DatasetTitles() []string { return []string{p.Title(p.City)} }

// SizeLimits implements harness.SizeLimited for the kinds that measure
// BA channels on the island (elastic, adversarial): above SVDMaxCells
// cells the exact smallest singular value (a dense SVD) is left out for
// its certified bounds.
func (p *Places) SizeLimits() []string {
	ds, err := p.Dataset(p.City, p.Rows)
	if err != nil || ds.Grid.Len() <= SVDMaxCells {
		return nil
	}
	return []string{fmt.Sprintf("%s (%d x %d cells): %s", p.City, ds.Grid.Rows, ds.Grid.Cols, SkipReason(ds.Grid.Len()))}
}

// ResolveOn checks the island (key "island") on ds and resolves the
// locations A and B (keys "a" and "b") on it, filling in the dataset's
// places A and B where the spec leaves them out.
func ResolveOn(ds *datasets.Dataset, ip Params, a, b *param.Loc) error {
	if err := ip.ValidateOn("island", ds); err != nil {
		return err
	}
	if err := a.Resolve("a", ds, "A"); err != nil {
		return err
	}
	return b.Resolve("b", ds, "B")
}

// Setup is a dataset with its island prior and the locations A and B.
type Setup struct {
	DS    *datasets.Dataset
	Prior []float64 // the island prior
	Block []bool    // the zeroed block (A excluded)
	A, B  int       // indices of A and B
}

// Setup loads the dataset and builds the island prior around A.
func (p *Places) Setup() (*Setup, error) {
	ds, err := p.Dataset(p.City, p.Rows)
	if err != nil {
		return nil, err
	}
	return p.Island.Setup(ds, p.A.Cell, p.B.Cell)
}

// Setup builds the island prior of ds around the cell a; b is the strong
// location (nil: none, B is then A).
func (ip Params) Setup(ds *datasets.Dataset, a, b param.Cell) (*Setup, error) {
	ai, err := a.Index(ds.Grid, "a")
	if err != nil {
		return nil, err
	}
	bi := ai
	if b != nil {
		if bi, err = b.Index(ds.Grid, "b"); err != nil {
			return nil, err
		}
	}
	opt := ip.Options(ds, ai)
	prior, err := datasets.Island(ds.Grid, ds.Prior(), opt)
	if err != nil {
		return nil, fmt.Errorf("island prior of %s: %w", ds.Name, err)
	}
	if err := massCheck("island prior", prior); err != nil {
		return nil, err
	}
	return &Setup{DS: ds, Prior: prior, Block: block(ds.Grid, ai, *opt.Block), A: ai, B: bi}, nil
}

// Markers are A and B on g, in g's local (display) coordinates (only
// those that fall on g).
func (p *Places) Markers(g kernels.Grid) []plots.Marker {
	var ms []plots.Marker
	for _, m := range []struct {
		label string
		cell  param.Cell
	}{{"A", p.A.Cell}, {"B", p.B.Cell}} {
		if i := g.IndexOf(m.cell[0], m.cell[1]); i >= 0 {
			r, c := g.Cell(i)
			ms = append(ms, plots.Marker{Row: r, Col: c, Label: m.label})
		}
	}
	return ms
}

// block marks the cells of the rectangle bl (local rows and columns), a
// itself excluded.
func block(g kernels.Grid, a int, bl datasets.Block) []bool {
	b := make([]bool, g.Len())
	for i := range b {
		r, c := g.Cell(i)
		if i != a && r >= bl.Row0 && r <= bl.Row1 && c >= bl.Col0 && c <= bl.Col1 {
			b[i] = true
		}
	}
	return b
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
