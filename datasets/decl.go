package datasets

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"privic/internal/tomlval"
)

// Decl is a dataset as a spec declares it, in a table [datasets.NAME]:
// where its check-ins come from (exactly one of Points, Counts and
// Synthetic), the region and the cells of the grid, and its named
// places. experiments/README.md documents every key and its default.
// The JSON form (for the spec hash) is the declaration as written.
type Decl struct {
	// Title names the dataset in figures and prose (default: its name).
	Title string `toml:"title,omitempty" json:"title,omitempty"`

	// Points is a file of check-in points, read as Format ("csv" or
	// "snap"; by default "csv" when any key of CSV files below is given,
	// else told from the file's first line, PointsFormat.Detect). A CSV
	// file has a header naming the columns unless Header is false; the
	// columns are LatColumn and LonColumn (default "lat" and "lon", or 0
	// and 1 without a header) and an optional WeightColumn; its fields
	// are separated by Delimiter ("," ";" "\t" "|"; default: detected
	// from the first line) and its numbers use Decimal ("." or ",").
	Points       string      `toml:"points,omitempty" json:"points,omitempty"`
	Format       string      `toml:"format,omitempty" json:"format,omitempty"`
	Header       *bool       `toml:"header,omitempty" json:"header,omitempty"`
	LatColumn    *ColumnDecl `toml:"lat_column,omitempty" json:"lat_column,omitempty"`
	LonColumn    *ColumnDecl `toml:"lon_column,omitempty" json:"lon_column,omitempty"`
	WeightColumn *ColumnDecl `toml:"weight_column,omitempty" json:"weight_column,omitempty"`
	Delimiter    string      `toml:"delimiter,omitempty" json:"delimiter,omitempty"`
	Decimal      string      `toml:"decimal,omitempty" json:"decimal,omitempty"`
	// Checkins, when given, is the number N of whole check-ins the kept
	// weight is apportioned to (largest remainders). Without it, whole
	// weights are the counts themselves and fractional weights are
	// apportioned to their total rounded to the nearest integer.
	Checkins *int `toml:"checkins,omitempty" json:"checkins,omitempty"`

	// Counts is a file of per-cell counts ("row,col,count" with that
	// header) on a grid of Grid = [rows, cols] cells.
	Counts string `toml:"counts,omitempty" json:"counts,omitempty"`
	Grid   []int  `toml:"grid,omitempty" json:"grid,omitempty"`

	// Synthetic draws a synthetic city (see Synthetic).
	Synthetic *SyntheticDecl `toml:"synthetic,omitempty" json:"synthetic,omitempty"`

	// BBox is the region [lat_min, lat_max, lon_min, lon_max] of point
	// data (default: the points' extent); points outside are dropped.
	BBox []float64 `toml:"bbox,omitempty" json:"bbox,omitempty"`
	// CellM is the side of square cells in metres; CellDeg the cells'
	// [latitude, longitude] size in degrees. Point data takes exactly
	// one; counts and synthetic data may give CellM to say what a cell
	// is.
	CellM   *float64  `toml:"cell_m,omitempty" json:"cell_m,omitempty"`
	CellDeg []float64 `toml:"cell_deg,omitempty" json:"cell_deg,omitempty"`

	// Places are named locations: {lat = .., lon = ..} or [row, col].
	Places Places `toml:"places,omitempty" json:"places,omitempty"`
}

// Places are the named places of a declaration: a table of NAME = {lat
// = .., lon = ..} or [row, col].
type Places map[string]PlaceDecl

// UnmarshalTOML takes a table of places and refuses any other value
// (the TOML decoder alone would drop it without a word).
func (ps *Places) UnmarshalTOML(v any) error {
	tab, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("got %s: want a table of NAME = {lat = .., lon = ..} or [row, col]", tomlval.Kind(v))
	}
	out := make(Places, len(tab))
	for _, name := range slices.Sorted(maps.Keys(tab)) {
		var p PlaceDecl
		if err := p.UnmarshalTOML(tab[name]); err != nil {
			return tomlval.SubKey(name, err)
		}
		out[name] = p
	}
	*ps = out
	return nil
}

// SyntheticDecl is the synthetic = {...} table of a declaration: the
// options of Synthetic, and the seed of the generator's own random
// stream (the dataset does not depend on the spec's seed).
type SyntheticDecl struct {
	Rows       int       `toml:"rows" json:"rows"`
	Cols       int       `toml:"cols" json:"cols"`
	N          int       `toml:"n" json:"n"`
	Hotspots   int       `toml:"hotspots,omitempty" json:"hotspots,omitempty"`
	Sigma      float64   `toml:"sigma,omitempty" json:"sigma,omitempty"`
	Background float64   `toml:"background,omitempty" json:"background,omitempty"`
	Spots      []Hotspot `toml:"spots,omitempty" json:"spots,omitempty"`
	Seed       int64     `toml:"seed" json:"seed"`
}

// ColumnDecl is a column as a spec gives it: a name (a string) or a
// 0-based number (an integer).
type ColumnDecl struct{ Column }

// maxColumn bounds a column number.
const maxColumn = 9999

// UnmarshalTOML takes a string or a non-negative integer.
func (c *ColumnDecl) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		if x == "" {
			return fmt.Errorf("empty column name")
		}
		c.Column = ColumnNamed(x)
	case int64:
		if x < 0 || x > maxColumn {
			return fmt.Errorf("column number %d: want 0 to %d", x, maxColumn)
		}
		c.Column = ColumnAt(int(x))
	default:
		return fmt.Errorf("got %s: want a column name (a string) or a 0-based column number", tomlval.Kind(v))
	}
	return nil
}

// MarshalTOML writes the column as the spec does.
func (c ColumnDecl) MarshalTOML() ([]byte, error) { return c.MarshalJSON() }

// MarshalJSON writes the column as the spec does.
func (c ColumnDecl) MarshalJSON() ([]byte, error) {
	if c.ByName {
		return json.Marshal(c.Name)
	}
	return json.Marshal(c.Index)
}

// PlaceDecl is a named place as a spec gives it: a point {lat = ..,
// lon = ..} or a cell [row, col] of the dataset's grid.
type PlaceDecl struct {
	Lat, Lon float64
	Row, Col int
	// IsCell says which of the two it is.
	IsCell bool
}

// UnmarshalTOML takes {lat = .., lon = ..} or [row, col].
func (p *PlaceDecl) UnmarshalTOML(v any) error {
	const want = "want {lat = .., lon = ..} or [row, col]"
	switch x := v.(type) {
	case map[string]any:
		for k := range x {
			if k != "lat" && k != "lon" {
				return fmt.Errorf("unknown key %q: %s", k, want)
			}
		}
		lat, ok1 := tomlNum(x["lat"])
		lon, ok2 := tomlNum(x["lon"])
		if !ok1 || !ok2 {
			return fmt.Errorf("lat and lon must both be numbers: %s", want)
		}
		*p = PlaceDecl{Lat: lat, Lon: lon}
	case []any:
		if len(x) != 2 {
			return fmt.Errorf("%d values: %s", len(x), want)
		}
		r, ok1 := x[0].(int64)
		c, ok2 := x[1].(int64)
		if !ok1 || !ok2 || r < 0 || c < 0 || r > math.MaxInt32 || c > math.MaxInt32 {
			return fmt.Errorf("row and col must be integers >= 0: %s", want)
		}
		*p = PlaceDecl{Row: int(r), Col: int(c), IsCell: true}
	default:
		return fmt.Errorf("got %s: %s", tomlval.Kind(v), want)
	}
	return nil
}

// MarshalTOML writes the place as the spec does.
func (p PlaceDecl) MarshalTOML() ([]byte, error) { return []byte(p.String()), nil }

// MarshalJSON writes the place as the spec does.
func (p PlaceDecl) MarshalJSON() ([]byte, error) {
	if p.IsCell {
		return json.Marshal([]int{p.Row, p.Col})
	}
	return json.Marshal(map[string]float64{"lat": p.Lat, "lon": p.Lon})
}

// String writes the place as a spec does.
func (p PlaceDecl) String() string {
	if p.IsCell {
		return fmt.Sprintf("[%d, %d]", p.Row, p.Col)
	}
	return fmt.Sprintf("{lat = %s, lon = %s}", fmtDeg(p.Lat), fmtDeg(p.Lon))
}

func tomlNum(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return 0, false
}

// placeName is what a place may be called.
var placeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// source says which of Points, Counts and Synthetic d declares.
func (d *Decl) source() string {
	switch {
	case d.Points != "":
		return "points"
	case d.Counts != "":
		return "counts"
	case d.Synthetic != nil:
		return "synthetic"
	}
	return ""
}

// Validate checks the declaration on its own (no file is read); key is
// its table ("datasets.mine") and starts every message.
func (d *Decl) Validate(key string) error {
	var given []string
	for _, s := range []struct {
		name string
		set  bool
	}{{"points", d.Points != ""}, {"counts", d.Counts != ""}, {"synthetic", d.Synthetic != nil}} {
		if s.set {
			given = append(given, s.name)
		}
	}
	if len(given) != 1 {
		what := "none"
		if len(given) > 1 {
			what = strings.Join(given, " and ")
		}
		return fmt.Errorf("%s: give exactly one of points, counts and synthetic (got %s)", key, what)
	}
	if err := d.checkApplies(key); err != nil {
		return err
	}
	if d.CellM != nil && (!(*d.CellM > 0) || math.IsInf(*d.CellM, 0)) {
		return fmt.Errorf("%s.cell_m = %v: must be a finite number of metres > 0", key, *d.CellM)
	}
	var err error
	switch d.source() {
	case "points":
		err = d.validatePoints(key)
	case "counts":
		if len(d.Grid) != 2 || d.Grid[0] < 1 || d.Grid[1] < 1 {
			err = fmt.Errorf("%s.grid = %v: counts need grid = [rows, cols] with rows, cols >= 1", key, d.Grid)
		}
	}
	if err != nil {
		return err
	}
	for name, p := range d.Places {
		if !placeName.MatchString(name) {
			return fmt.Errorf("%s.places.%s: a place name uses letters, digits, '_' and '-' (at most 64)", key, name)
		}
		if !p.IsCell && d.source() != "points" {
			return fmt.Errorf("%s.places.%s = %v: a place by latitude and longitude needs point data (points with cell_m or cell_deg); give [row, col]", key, name, p)
		}
	}
	return nil
}

// checkApplies refuses keys that the declared source does not use.
func (d *Decl) checkApplies(key string) error {
	src := d.source()
	for _, k := range []struct {
		name string
		set  bool
		ok   bool
	}{
		{"format", d.Format != "", src == "points"},
		{"header", d.Header != nil, src == "points"},
		{"delimiter", d.Delimiter != "", src == "points"},
		{"decimal", d.Decimal != "", src == "points"},
		{"checkins", d.Checkins != nil, src == "points"},
		{"lat_column", d.LatColumn != nil, src == "points"},
		{"lon_column", d.LonColumn != nil, src == "points"},
		{"weight_column", d.WeightColumn != nil, src == "points"},
		{"bbox", d.BBox != nil, src == "points"},
		{"cell_deg", d.CellDeg != nil, src == "points"},
		{"grid", d.Grid != nil, src == "counts"},
	} {
		if k.set && !k.ok {
			return fmt.Errorf("%s.%s: does not apply to a dataset of %s", key, k.name, src)
		}
	}
	return nil
}

func (d *Decl) validatePoints(key string) error {
	format, err := d.format()
	if err != nil {
		return fmt.Errorf("%s.format: %w", key, err)
	}
	if d.Checkins != nil && (*d.Checkins < 1 || *d.Checkins > maxCheckins) {
		return fmt.Errorf("%s.checkins = %d: want a whole number of check-ins in [1, 2^53]", key, *d.Checkins)
	}
	if format == "snap" {
		if k := d.csvKey(); k != "" {
			return fmt.Errorf("%s.%s: applies to csv points only; the snap format's columns are fixed (user, time, latitude, longitude, location id)", key, k)
		}
	} else {
		if d.Delimiter != "" && (len(d.Delimiter) != 1 || !strings.Contains(Delimiters, d.Delimiter)) {
			return fmt.Errorf("%s.delimiter = %q: allowed values are \",\", \";\", \"\\t\" (tab), \"|\"", key, d.Delimiter)
		}
		if d.Decimal != "" && d.Decimal != "." && d.Decimal != "," {
			return fmt.Errorf("%s.decimal = %q: allowed values are \".\", \",\"", key, d.Decimal)
		}
		if d.Decimal == "," && d.Delimiter == "," {
			return fmt.Errorf("%s: decimal = \",\" needs another delimiter than the comma (\";\", \"\\t\" or \"|\")", key)
		}
		header := d.Header == nil || *d.Header
		for _, c := range []struct {
			name string
			col  *ColumnDecl
		}{{"lat_column", d.LatColumn}, {"lon_column", d.LonColumn}, {"weight_column", d.WeightColumn}} {
			if c.col == nil || c.col.ByName == header {
				continue
			}
			if header {
				return fmt.Errorf("%s.%s = %v: with a header (header = true, the default) columns are named, e.g. \"lat\"; set header = false to number them from 0", key, c.name, c.col)
			}
			return fmt.Errorf("%s.%s = %v: without a header (header = false) columns are numbered from 0; set header = true to name them", key, c.name, c.col)
		}
		pf := d.pointsFormat()
		if !pf.Lat.ByName && pf.Lat.Index == pf.Lon.Index || pf.Lat.ByName && pf.Lat.Name == pf.Lon.Name {
			return fmt.Errorf("%s: lat_column and lon_column are the same column %v", key, pf.Lat)
		}
	}
	if d.BBox != nil {
		if len(d.BBox) != 4 {
			return fmt.Errorf("%s.bbox: %d values, want [lat_min, lat_max, lon_min, lon_max]", key, len(d.BBox))
		}
		if err := d.box().Validate(); err != nil {
			if swapped(d.box()).Validate() == nil {
				return fmt.Errorf("%s.bbox: %w (the order is [lat_min, lat_max, lon_min, lon_max]: are latitude and longitude swapped?)", key, err)
			}
			return fmt.Errorf("%s.bbox: %w", key, err)
		}
	}
	switch {
	case d.CellM != nil && d.CellDeg != nil:
		return fmt.Errorf("%s: give one of cell_m and cell_deg, not both", key)
	case d.CellM == nil && d.CellDeg == nil:
		return fmt.Errorf("%s: point data needs the cell size: give cell_m (metres) or cell_deg = [dlat, dlon]", key)
	case d.CellDeg != nil:
		if len(d.CellDeg) != 2 || !(d.CellDeg[0] > 0) || !(d.CellDeg[1] > 0) || d.CellDeg[0] > 180 || d.CellDeg[1] > 360 {
			return fmt.Errorf("%s.cell_deg = %v: want [dlat, dlon] in degrees, both > 0", key, d.CellDeg)
		}
	}
	return nil
}

// csvKey is the first key of CSV files the declaration gives ("" for
// none).
func (d *Decl) csvKey() string {
	for _, k := range []struct {
		name string
		set  bool
	}{{"header", d.Header != nil}, {"lat_column", d.LatColumn != nil}, {"lon_column", d.LonColumn != nil},
		{"weight_column", d.WeightColumn != nil}, {"delimiter", d.Delimiter != ""}, {"decimal", d.Decimal != ""}} {
		if k.set {
			return k.name
		}
	}
	return ""
}

// format is the points file's format: given, "csv" when a key of CSV
// files is given, else "" (told from the content when read).
func (d *Decl) format() (string, error) {
	switch d.Format {
	case "csv", "snap":
		return d.Format, nil
	case "":
		if d.csvKey() != "" {
			return "csv", nil
		}
		return "", nil
	}
	return "", fmt.Errorf("%s: allowed values are \"csv\", \"snap\" (or leave it out to tell them from the file's first line)", strconv.Quote(d.Format))
}

// pointsFormat is the PointsFormat of a validated points declaration.
func (d *Decl) pointsFormat() PointsFormat {
	f, _ := d.format()
	if f == "snap" {
		return PointsFormat{SNAP: true}
	}
	pf := PointsFormat{Detect: f == "", Header: d.Header == nil || *d.Header}
	if d.Delimiter != "" {
		pf.Delimiter = d.Delimiter[0]
	}
	if d.Decimal != "" {
		pf.Decimal = d.Decimal[0]
	}
	if pf.Header {
		pf.Lat, pf.Lon = ColumnNamed("lat"), ColumnNamed("lon")
	} else {
		pf.Lat, pf.Lon = ColumnAt(0), ColumnAt(1)
	}
	if d.LatColumn != nil {
		pf.Lat = d.LatColumn.Column
	}
	if d.LonColumn != nil {
		pf.Lon = d.LonColumn.Column
	}
	if d.WeightColumn != nil {
		pf.Weight, pf.HasWeight = d.WeightColumn.Column, true
	}
	return pf
}

// box is the declared bbox.
func (d *Decl) box() Box {
	return Box{LatMin: d.BBox[0], LatMax: d.BBox[1], LonMin: d.BBox[2], LonMax: d.BBox[3]}
}

// cellSpec is the declared cell size of point data.
func (d *Decl) cellSpec() CellSpec {
	if d.CellM != nil {
		return CellSpec{M: *d.CellM}
	}
	return CellSpec{Deg: [2]float64{d.CellDeg[0], d.CellDeg[1]}}
}
