package datasets

import (
	"fmt"
	"math"
	"strings"

	"privic/kernels/enum"
)

// Box is a latitude/longitude bounding box in degrees. Bounds are
// inclusive, as in the filter that cut the published subsets.
type Box struct {
	LatMin, LatMax float64
	LonMin, LonMax float64
}

// Contains reports whether (lat, lon) lies in b, bounds included.
func (b Box) Contains(lat, lon float64) bool {
	return lat >= b.LatMin && lat <= b.LatMax && lon >= b.LonMin && lon <= b.LonMax
}

// Validate checks that b is a non-empty box of valid coordinates.
func (b Box) Validate() error {
	for _, v := range []float64{b.LatMin, b.LatMax, b.LonMin, b.LonMax} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("box %v: bounds must be finite", b)
		}
	}
	if b.LatMin < -90 || b.LatMax > 90 || b.LonMin < -180 || b.LonMax > 180 {
		return fmt.Errorf("box %v: latitude must lie in [-90, 90] and longitude in [-180, 180]", b)
	}
	if b.LatMin > b.LatMax || b.LonMin > b.LonMax {
		return fmt.Errorf("box %v: minimum above maximum", b)
	}
	return nil
}

// String formats b as "lat [min, max], lon [min, max]".
func (b Box) String() string {
	return fmt.Sprintf("lat [%s, %s], lon [%s, %s]",
		fmtDeg(b.LatMin), fmtDeg(b.LatMax), fmtDeg(b.LonMin), fmtDeg(b.LonMax))
}

// Rule says which cell boundaries are closed when a coordinate is matched
// against the descending edges e[0] > e[1] > ... of a city's grid.
type Rule int

const (
	// UpperClosed matches band i when e[i+1] < v <= e[i] (the Paris
	// subset). Every value matches at most one band.
	UpperClosed Rule = iota
	// BothClosed matches band i when e[i+1] <= v <= e[i] (the San
	// Francisco subset). A value lying exactly on an interior edge matches
	// the two bands that share it; the reference code then wrote the point
	// once per matching cell, and Discretizer.Cells replays that.
	BothClosed
)

// ruleNames name the rules by their inequalities, by value (read-only).
var ruleNames = enum.New[Rule]("Rule", "rule", "edge[i+1] < v <= edge[i]", "edge[i+1] <= v <= edge[i]", "edge[i+1] <= v < edge[i]")

// String names the rule by its inequality.
func (r Rule) String() string { return ruleNames.String(r) }

// City is a discretisation preset: the bounding box of the subset, the
// arange steps of its cell edges and its boundary rule. Edges start at the
// box minimum and stop before the box maximum (NumPy arange semantics).
type City struct {
	// Name is the lookup key ("paris", "sf") and the prefix of the data
	// files (<name>_checkins.csv, <name>_grid_cells.csv).
	Name string
	// Title is the human-readable name used in figures.
	Title   string
	Box     Box
	LatStep float64 // degrees between latitude edges (rows)
	LonStep float64 // degrees between longitude edges (columns)
	Rule    Rule
	// Places are named cells of the grid that experiments refer to.
	Places []Place
}

// Place is a named cell of a city's grid, in the grid's own indexing (row
// 0 is the northern band, column 0 the eastern band).
type Place struct {
	Name     string
	Row, Col int
	// About says what the place is for.
	About string
}

// Place returns the place called name.
func (c City) Place(name string) (Place, bool) {
	for _, p := range c.Places {
		if p.Name == name {
			return p, true
		}
	}
	return Place{}, false
}

// Cities returns the presets, in a fixed order. The boxes, steps and
// rules are those the published city subsets were cut and gridded with; a
// fresh slice is returned so callers cannot alter the presets.
func Cities() []City {
	return []City{
		{
			Name:    "paris",
			Title:   "Paris",
			Box:     Box{LatMin: 48.8286, LatMax: 48.8798, LonMin: 2.2855, LonMax: 2.3909},
			LatStep: 0.00427,
			LonStep: 0.0066,
			Rule:    UpperClosed,
			// The paper's elastic and adversarial experiments (Sec. III-A,
			// VI) on the 11 x 15 grid. A (index 93) spans lat
			// 48.8457-48.8500, lon 2.3581-2.3647: the south-east of the
			// box. The paper, drawing column 0 on the left, calls it
			// south-western.
			Places: []Place{
				{Name: "A", Row: 6, Col: 3, About: "the vulnerable location, in a sparse area that the island prior isolates"},
				{Name: "B", Row: 3, Col: 7, About: "the strong location, in the crowded centre"},
			},
		},
		{
			Name:    "sf",
			Title:   "San Francisco",
			Box:     Box{LatMin: 37.7228, LatMax: 37.7946, LonMin: -122.5153, LonMax: -122.3789},
			LatStep: 0.0044875,
			LonStep: 0.005683,
			Rule:    BothClosed,
		},
	}
}

// CityNames returns the names Lookup knows.
func CityNames() []string {
	var names []string
	for _, c := range Cities() {
		names = append(names, c.Name)
	}
	return names
}

// Lookup returns the preset called name. Names are exact ("paris", not
// "Paris"), so that one city has one spelling in job keys, tables and
// file names.
func Lookup(name string) (City, error) {
	for _, c := range Cities() {
		if c.Name == name {
			return c, nil
		}
	}
	return City{}, fmt.Errorf("unknown city %q: known cities are %s (names are exact)", name, strings.Join(CityNames(), ", "))
}

// describe fills in what the preset says of its dataset d: its title,
// the frame of its grid, the cell size and the named places.
func (c City) describe(d *Dataset) error {
	f, err := presetFrame(c)
	if err != nil {
		return err
	}
	d.Title, d.Frame, d.Preset = c.Title, f, true
	d.CellHeightM, d.CellWidthM = f.CellSize()
	d.CellM = CellM(d.CellHeightM, d.CellWidthM)
	d.Places = append([]Place(nil), c.Places...)
	return nil
}

// Validate checks the box, the steps and the rule.
func (c City) Validate() error {
	if err := c.Box.Validate(); err != nil {
		return fmt.Errorf("city %q: %w", c.Name, err)
	}
	if !(c.LatStep > 0) || !(c.LonStep > 0) || math.IsInf(c.LatStep, 0) || math.IsInf(c.LonStep, 0) {
		return fmt.Errorf("city %q: steps must be finite and > 0 (lat %v, lon %v)", c.Name, c.LatStep, c.LonStep)
	}
	if c.Rule != UpperClosed && c.Rule != BothClosed {
		return fmt.Errorf("city %q: unknown boundary rule %d", c.Name, int(c.Rule))
	}
	return nil
}

func fmtDeg(v float64) string { return fmt.Sprintf("%g", v) }
