// Package param holds the parameter checks the experiment kinds share:
// dataset names (resolved in one place, the spec's datasets.Catalog, so
// that every kind accepts and refuses the same names), per-dataset
// tables, locations (a place name or a cell) and lists of loss
// parameters. Errors name the key as params.<key> and say what is
// allowed.
//
// The kinds' parameters hold the spec's catalog through Catalog, which
// Data and island.Places embed: the harness hands it over before it
// validates them (harness.DataUser). Without one (a registry with no
// harness.Data) they see the presets alone.
package param

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
)

// Handler is the harness.Data of the kinds: [datasets.NAME] tables are
// datasets.Decl declarations, and the catalog is a *datasets.Catalog.
type Handler struct{}

// NewDecl implements harness.Data.
func (Handler) NewDecl() any { return &datasets.Decl{} }

// Catalog implements harness.Data.
func (Handler) Catalog(dir string, decls map[string]any) (harness.Catalog, error) {
	ds := make(map[string]*datasets.Decl, len(decls))
	for n, d := range decls {
		dd, ok := d.(*datasets.Decl)
		if !ok {
			return nil, fmt.Errorf("datasets.%s: declaration of type %T, want *datasets.Decl", n, d)
		}
		ds[n] = dd
	}
	return datasets.NewCatalog(dir, ds)
}

// Catalog is the spec's datasets as the kinds' parameters hold them. Its
// zero value is the presets alone.
type Catalog struct {
	cat *datasets.Catalog
}

// UseData implements harness.DataUser.
func (c *Catalog) UseData(h harness.Catalog) {
	if dc, ok := h.(*datasets.Catalog); ok {
		c.cat = dc
	}
}

// Datasets returns the catalog (the presets when none was handed over).
func (c *Catalog) Datasets() *datasets.Catalog {
	if c.cat == nil {
		return datasets.Presets()
	}
	return c.cat
}

// Check checks that params.<key> = name is a dataset of the spec.
func (c *Catalog) Check(key, name string) error {
	if err := c.Datasets().Check(name); err != nil {
		return fmt.Errorf("params.%s: %w", key, err)
	}
	return nil
}

// List checks a list of datasets: non-empty, every name known, no
// duplicates (a duplicate would give two jobs the same key).
func (c *Catalog) List(key string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("params.%s: empty; give at least one of %s", key, harness.QuoteJoin(c.Datasets().Names()))
	}
	for i, n := range names {
		if err := c.Check(fmt.Sprintf("%s[%d]", key, i), n); err != nil {
			return err
		}
		if slices.Index(names, n) < i {
			return fmt.Errorf("params.%s[%d] = %q: duplicate dataset", key, i, n)
		}
	}
	return nil
}

// Dataset loads the dataset called name (rows applies to the presets).
func (c *Catalog) Dataset(name string, rows datasets.RowPolicy) (*datasets.Dataset, error) {
	return c.Datasets().Load(name, rows)
}

// Title is a dataset's name for figures and prose ("San Francisco").
func (c *Catalog) Title(name string) string { return c.Datasets().Title(name) }

// IsPreset reports whether name is one of the paper's datasets.
func (c *Catalog) IsPreset(name string) bool { return c.Datasets().IsPreset(name) }

// Data are the [params] keys of the kinds that run on a list of
// datasets.
type Data struct {
	Catalog
	// Cities are the datasets (the paper: Paris and SF).
	Cities []string `toml:"cities"`
	// Rows is the presets' row policy ("header-quirk" | "all-rows").
	Rows datasets.RowPolicy `toml:"rows"`
}

// LAP are the [params] keys of the kinds that set the planar Laplace
// mechanism (LAP) beside BA: how LAP's epsilon is chosen and how far its
// output grid reaches past the dataset's.
type LAP struct {
	// LapEpsilon calibrates LAP: "tight" (the paper's reference code: the
	// tight epsilon of the BA channel at the same beta) or "two-beta"
	// (the paper's text: eps = 2 beta).
	LapEpsilon string `toml:"lap_epsilon"`
	// LapWiden widens LAP's output grid by this many cells on every side
	// (reference code: 5; 0 = the dataset's grid).
	LapWiden int `toml:"lap_widen"`
}

// DefaultLAP is the reference code's LAP: the tight epsilon, the grid
// widened by 5 cells.
func DefaultLAP() LAP { return LAP{LapEpsilon: "tight", LapWiden: 5} }

// Validate checks params.lap_epsilon and params.lap_widen.
func (l *LAP) Validate() error {
	if err := harness.OneOf("lap_epsilon", l.LapEpsilon, "tight", "two-beta"); err != nil {
		return err
	}
	return harness.IntIn("lap_widen", l.LapWiden, 0, 100)
}

// Presets are the default datasets of a kind: every preset, in order.
func Presets() []string { return datasets.CityNames() }

// Validate checks params.cities.
func (d *Data) Validate() error { return d.List("cities", d.Cities) }

// DatasetTitles implements harness.DatasetTitler: the titles of the
// datasets, in the order of the list.
func (d *Data) DatasetTitles() []string {
	out := make([]string, len(d.Cities))
	for i, c := range d.Cities {
		out[i] = d.Title(c)
	}
	return out
}

// Load loads every dataset, in the order of the list.
func (d *Data) Load() ([]*datasets.Dataset, error) {
	out := make([]*datasets.Dataset, len(d.Cities))
	for i, c := range d.Cities {
		ds, err := d.Dataset(c, d.Rows)
		if err != nil {
			return nil, err
		}
		out[i] = ds
	}
	return out, nil
}

// CityJobs loads d's datasets and plans one job per dataset, keyed
// city=<name>.
func CityJobs[J any](d *Data, job func(ds *datasets.Dataset) J) ([]harness.Work[J], error) {
	all, err := d.Load()
	works := make([]harness.Work[J], len(all))
	for i, ds := range all {
		works[i] = harness.Work[J]{Key: "city=" + ds.Name, Job: job(ds)}
	}
	return works, err
}

// PerData checks a table keyed by dataset (params.<key> = {paris = ...,
// default = ...}): every key must be a dataset of the spec or "default",
// and check (nil: none) accepts each value, given its key (<key>.<name>).
func PerData[V any](c *Catalog, key string, m map[string]V, check func(key string, v V) error) error {
	for _, n := range slices.Sorted(maps.Keys(m)) {
		if n != datasets.DefaultName {
			if err := c.Check(key+"."+n, n); err != nil {
				return fmt.Errorf("%w (or %q for the others)", err, datasets.DefaultName)
			}
		}
		if check != nil {
			if err := check(key+"."+n, m[n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Get is the value of a per-dataset table for name: its own entry, else
// the table's "default" entry, else def.
func Get[V any](m map[string]V, name string, def V) V {
	if v, ok := m[name]; ok {
		return v
	}
	if v, ok := m[datasets.DefaultName]; ok {
		return v
	}
	return def
}

// IntsIn returns a PerData check that the values lie in [lo, hi].
func IntsIn(lo, hi int) func(key string, v int) error {
	return func(key string, v int) error { return harness.IntIn(key, v, lo, hi) }
}

// Betas checks a list of loss parameters: non-empty, every value finite
// and > 0, no duplicates (a duplicate would give two jobs the same key).
func Betas(key string, vals []float64) error {
	if len(vals) == 0 {
		return fmt.Errorf("params.%s: empty; give at least one value", key)
	}
	for i, v := range vals {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("params.%s[%d] = %v: beta must be finite and > 0", key, i, v)
		}
		if slices.Index(vals, v) < i {
			return fmt.Errorf("params.%s[%d] = %v: duplicate value", key, i, v)
		}
	}
	return nil
}

// Cell is a grid cell [row, col], in the grid's own indexing (row 0
// north, column 0 east).
type Cell []int

// Index returns the cell's row-major index in g (the cell is given in g's
// absolute coordinates), or an error naming key when it lies outside g.
func (c Cell) Index(g kernels.Grid, key string) (int, error) {
	i := -1
	if len(c) == 2 {
		i = g.IndexOf(c[0], c[1])
	}
	if i < 0 {
		return 0, fmt.Errorf("params.%s = %v lies outside the grid %v", key, []int(c), g)
	}
	return i, nil
}

// Loc is a location as a spec gives it: the name of one of the dataset's
// places ("A") or a cell [row, col] of its grid. Resolve fills in the
// cell of a place, and the place the kind names when the spec leaves the
// key out.
type Loc struct {
	Place string // the place's name; "" for a cell given as [row, col]
	Cell  Cell   // the cell, given or resolved
}

// UnmarshalTOML takes a place name or [row, col].
func (l *Loc) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		if x == "" {
			return fmt.Errorf("empty place name: give a place of the dataset or [row, col]")
		}
		*l = Loc{Place: x}
	case []any:
		if len(x) != 2 {
			return fmt.Errorf("%d values: want a place name or [row, col]", len(x))
		}
		r, ok1 := x[0].(int64)
		c, ok2 := x[1].(int64)
		if !ok1 || !ok2 || r < 0 || c < 0 || r > math.MaxInt32 || c > math.MaxInt32 {
			return fmt.Errorf("%v: want [row, col] with integers row, col >= 0, or a place name", x)
		}
		*l = Loc{Cell: Cell{int(r), int(c)}}
	default:
		return fmt.Errorf("want a place name (a string) or [row, col]")
	}
	return nil
}

// MarshalJSON writes the place and the cell (for the spec hash).
func (l Loc) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Place string `json:"place,omitempty"`
		Cell  []int  `json:"cell"`
	}{l.Place, l.Cell})
}

// MarshalTOML writes the place name, or the cell (Spec.Encode).
func (l Loc) MarshalTOML() ([]byte, error) {
	if l.Place != "" {
		return json.Marshal(l.Place)
	}
	return []byte(fmt.Sprintf("[%d, %d]", l.Cell[0], l.Cell[1])), nil
}

// CellOf makes the Loc of a cell.
func CellOf(row, col int) Loc { return Loc{Cell: Cell{row, col}} }

// Resolve checks params.<key> on ds: a cell inside its grid, or a place
// of ds (def when the spec leaves the key out), whose cell it fills in.
func (l *Loc) Resolve(key string, ds *datasets.Dataset, def string) error {
	if l.Place == "" && l.Cell == nil {
		l.Place = def
	}
	if l.Place != "" {
		p, ok := ds.Place(l.Place)
		if !ok {
			return fmt.Errorf("params.%s: dataset %q has no place %s (%s); give %s = [row, col]", key, ds.Name, l.Place, placesWords(ds), key)
		}
		l.Cell = Cell{p.Row, p.Col}
	}
	_, err := l.Cell.Index(ds.Grid, key)
	return err
}

// Row and Col are the resolved cell's.
func (l Loc) Row() int { return l.Cell[0] }

// Col is the resolved cell's column.
func (l Loc) Col() int { return l.Cell[1] }

func placesWords(ds *datasets.Dataset) string {
	if len(ds.Places) == 0 {
		return "it has none"
	}
	var n []string
	for _, p := range ds.Places {
		n = append(n, p.Name)
	}
	return "its places: " + harness.QuoteJoin(n)
}

// Metres is a distance in cells in metres on ds, formatted for a
// table's metre column, or "" when ds's cell size is unknown.
func Metres(ds *datasets.Dataset, cells float64) string {
	if ds.CellM == 0 {
		return ""
	}
	return harness.FormatFloat(cells * ds.CellM)
}

// MapMetres are the sides of ds's cells in metres that its maps show on
// their axes (plots.HeatOptions.CellWidthM and CellHeightM): a declared
// dataset's, when known. Zero for the presets, whose figures keep the
// paper's row and column numbers, and for cells of unknown size.
func MapMetres(ds *datasets.Dataset) (width, height float64) {
	if ds.Preset || ds.CellWidthM <= 0 || ds.CellHeightM <= 0 {
		return 0, 0
	}
	return ds.CellWidthM, ds.CellHeightM
}

// CellSize is ds's cell size in metres for a table, "" when unknown.
func CellSize(ds *datasets.Dataset) string { return Metres(ds, 1) }

// CellWords says what a cell of ds is, for sections: "cells of 100 m",
// "cells of about 479 m (475 x 484 m)", or that the size is unknown.
func CellWords(ds *datasets.Dataset) string {
	switch {
	case ds.CellM == 0:
		return "cells of unknown size"
	case math.Abs(ds.CellHeightM-ds.CellWidthM) <= 1e-9*ds.CellM:
		return "cells of " + harness.FormatSig(ds.CellM, 4) + " m"
	}
	return fmt.Sprintf("cells of about %s m (%s x %s m)", harness.FormatSig(ds.CellM, 3),
		harness.FormatSig(ds.CellHeightM, 3), harness.FormatSig(ds.CellWidthM, 3))
}
