package datasets

import (
	"fmt"
	"math"

	"privic/kernels"
	"privic/kernels/enum"
)

// Dataset is a set of check-ins counted per cell of a grid. Datasets
// handed out by a Catalog are shared: treat them as read-only.
type Dataset struct {
	Name string
	// Title names the dataset in figures and prose ("San Francisco").
	Title  string
	Grid   kernels.Grid // domain: 11x15 Paris, 16x24 SF for the paper's data
	Counts []int        // per-cell check-in counts, row-major over Grid
	N      int          // sum of Counts
	// Source says where the counts come from (file and options, or the
	// synthetic generator's settings), for manifests and reports.
	Source string
	// CellM is the size of a cell in metres (CellM of its height and
	// width), 0 when unknown; CellHeightM and CellWidthM are its sides.
	// Distances in cells times CellM are metres.
	CellM, CellHeightM, CellWidthM float64
	// Frame places the grid on the map (nil for counts and synthetic
	// data): grid cell (r, c) in Grid's absolute indexing is the frame's
	// cell (r, c).
	Frame *Frame
	// Places are the dataset's named cells (the Paris preset's A and B),
	// in the grid's absolute indexing, by name.
	Places []Place
	// Read says what loading read, kept and dropped.
	Read ReadStats
	// Preset says that the dataset is one of the paper's (Cities).
	Preset bool
}

// Occupancy counts the cells with at least one check-in and finds the
// densest cell (the first of the densest, row-major).
func (d *Dataset) Occupancy() (occupied, densest int) {
	for i, c := range d.Counts {
		if c > 0 {
			occupied++
		}
		if c > d.Counts[densest] {
			densest = i
		}
	}
	return occupied, densest
}

// ReadStats counts what loading a dataset read.
type ReadStats struct {
	Rows      int // data rows (lines of a points or counts file) read
	Malformed int // SNAP lines skipped as malformed
	Checkins  int // check-ins read (the sum of the rows' weights, rounded when fractional)
	Kept      int // check-ins counted in a cell (N)
	Dropped   int // check-ins outside the region or every cell (rounded when fractional)

	// Points files only: the rows inside the region, and the weights
	// read, kept and dropped (a row without a weight column weighs 1).
	// Weighted says the file has a weight column, Fractional that some
	// weight is not a whole number.
	RowsKept                          int
	Weight, WeightKept, WeightDropped float64
	Weighted, Fractional              bool
	// Apportioned says that the counts are the kept weight apportioned
	// to N whole check-ins (fractional weights, or a declared number of
	// check-ins), and Rounding is the total variation distance between
	// the weights' shares of the cells and the counts' (0 when exact).
	Apportioned bool
	Rounding    float64
}

// Place returns the place called name.
func (d *Dataset) Place(name string) (Place, bool) {
	for _, p := range d.Places {
		if p.Name == name {
			return p, true
		}
	}
	return Place{}, false
}

// Prior is the empirical distribution Counts/N.
func (d *Dataset) Prior() []float64 {
	p := make([]float64, len(d.Counts))
	if d.N == 0 {
		return p
	}
	n := float64(d.N)
	for i, c := range d.Counts {
		p[i] = float64(c) / n
	}
	return p
}

// Validate checks that the grid, the counts and N agree.
func (d *Dataset) Validate() error {
	if err := d.Grid.Validate(); err != nil {
		return fmt.Errorf("dataset %q: %w", d.Name, err)
	}
	if len(d.Counts) != d.Grid.Len() {
		return fmt.Errorf("dataset %q: %d counts for a %v grid of %d cells", d.Name, len(d.Counts), d.Grid, d.Grid.Len())
	}
	sum := 0
	for i, c := range d.Counts {
		if c < 0 {
			r, col := d.Grid.Abs(i)
			return fmt.Errorf("dataset %q: cell (%d,%d) has count %d < 0", d.Name, r, col, c)
		}
		sum += c
	}
	if sum != d.N {
		return fmt.Errorf("dataset %q: counts sum to %d, N = %d", d.Name, sum, d.N)
	}
	if d.N == 0 {
		return fmt.Errorf("dataset %q: no check-ins", d.Name)
	}
	return nil
}

// RowPolicy says which lines of a reference grid-cell file count.
type RowPolicy int

const (
	// HeaderQuirk drops the first line of <city>_grid_cells.csv, as the
	// paper's reference code does by reading the file with a CSV reader
	// that takes the first line for a header: N = 10,078 (Paris) and
	// 123,025 (SF). It is the zero value because it reproduces the paper.
	HeaderQuirk RowPolicy = iota
	// AllRows counts every line: N = 10,079 (Paris) and 123,026 (SF).
	AllRows
)

// rowPolicies are the spec names of the row policies, by value
// (read-only).
var rowPolicies = enum.New[RowPolicy]("RowPolicy", "row policy", "header-quirk", "all-rows")

// String returns the policy's spec name ("header-quirk", "all-rows").
func (p RowPolicy) String() string { return rowPolicies.String(p) }

// ParseRowPolicy parses a policy's spec name.
func ParseRowPolicy(s string) (RowPolicy, error) { return rowPolicies.Parse(s) }

// MarshalText lets specs and manifests spell the policy by name.
func (p RowPolicy) MarshalText() ([]byte, error) { return rowPolicies.Marshal(p) }

// UnmarshalText parses a policy's spec name.
func (p *RowPolicy) UnmarshalText(b []byte) error { return rowPolicies.Unmarshal(b, p) }

// LoadOptions selects how Load builds a data set.
type LoadOptions struct {
	Rows RowPolicy `toml:"rows"`
}

// FromCells counts a sequence of cells (the lines of a grid-cell file, in
// order) under a row policy. The domain is the full rectangle spanned by
// the row and column indices that occur, as in the reference code; the
// grid's Row0 and Col0 are the smallest indices, so Grid.Abs gives back the
// file's own (row, col).
func FromCells(name string, cells []Cell, rows RowPolicy) (*Dataset, error) {
	switch rows {
	case HeaderQuirk:
		if len(cells) > 0 {
			cells = cells[1:]
		}
	case AllRows:
	default:
		return nil, fmt.Errorf("dataset %q: %v", name, rows)
	}
	counts := make(map[Cell]int)
	for _, c := range cells {
		if c.Row < 0 || c.Col < 0 {
			return nil, fmt.Errorf("dataset %q: negative cell (%d,%d)", name, c.Row, c.Col)
		}
		counts[c]++
	}
	return fromCellCounts(name, counts)
}

// fromCellCounts builds the data set over the bounding rectangle of the
// cells with a positive count.
func fromCellCounts(name string, counts map[Cell]int) (*Dataset, error) {
	minR, minC, maxR, maxC := math.MaxInt, math.MaxInt, -1, -1
	n := 0
	for c, k := range counts {
		if k < 0 {
			return nil, fmt.Errorf("dataset %q: cell (%d,%d) has count %d < 0", name, c.Row, c.Col, k)
		}
		if k == 0 {
			continue
		}
		minR, maxR = min(minR, c.Row), max(maxR, c.Row)
		minC, maxC = min(minC, c.Col), max(maxC, c.Col)
		n += k
	}
	if n == 0 {
		return nil, fmt.Errorf("dataset %q: no check-ins", name)
	}
	g := kernels.Grid{Rows: maxR - minR + 1, Cols: maxC - minC + 1, Row0: minR, Col0: minC}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("dataset %q: %w", name, err)
	}
	d := &Dataset{Name: name, Grid: g, Counts: make([]int, g.Len()), N: n}
	for c, k := range counts {
		if k > 0 {
			d.Counts[g.IndexOf(c.Row, c.Col)] = k
		}
	}
	return d, nil
}
