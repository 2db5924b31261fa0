// Package param holds the parameter checks the experiment kinds share:
// city names (resolved in one place, datasets.Lookup, so that every kind
// accepts and refuses the same names), per-city tables, grid cells and
// lists of loss parameters. Errors name the key as params.<key> and say
// what is allowed.
package param

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
)

// City checks that params.<key> = name is a known city.
func City(key, name string) error {
	if _, err := datasets.Lookup(name); err != nil {
		return fmt.Errorf("params.%s: %w", key, err)
	}
	return nil
}

// Data are the [params] keys of the kinds that run on a list of cities.
type Data struct {
	// Cities are the data sets (the paper: Paris and SF).
	Cities []string `toml:"cities"`
	// Rows is the data sets' row policy ("header-quirk" | "all-rows").
	Rows datasets.RowPolicy `toml:"rows"`
}

// Validate checks params.cities.
func (d *Data) Validate() error { return CityList("cities", d.Cities) }

// Load loads every city, in the order of the list.
func (d *Data) Load() ([]*datasets.Dataset, error) {
	out := make([]*datasets.Dataset, len(d.Cities))
	for i, c := range d.Cities {
		ds, err := datasets.Load(c, datasets.LoadOptions{Rows: d.Rows})
		if err != nil {
			return nil, err
		}
		out[i] = ds
	}
	return out, nil
}

// CityJobs loads d's cities and plans one job per city, keyed
// city=<name>.
func CityJobs[J any](d *Data, job func(ds *datasets.Dataset) J) ([]harness.Work[J], error) {
	all, err := d.Load()
	works := make([]harness.Work[J], len(all))
	for i, ds := range all {
		works[i] = harness.Work[J]{Key: "city=" + ds.Name, Job: job(ds)}
	}
	return works, err
}

// CityList checks a list of cities: non-empty, every name known, no
// duplicates (a duplicate would give two jobs the same key).
func CityList(key string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("params.%s: empty; give at least one of %s", key, harness.QuoteJoin(datasets.CityNames()))
	}
	for i, c := range names {
		if err := City(fmt.Sprintf("%s[%d]", key, i), c); err != nil {
			return err
		}
		if slices.Index(names, c) < i {
			return fmt.Errorf("params.%s[%d] = %q: duplicate city", key, i, c)
		}
	}
	return nil
}

// PerCity checks a table keyed by city (params.<key> = {paris = ...}):
// every key must be a known city, and check (nil: none) the value of each,
// given its key (<key>.<city>) and city.
func PerCity[V any](key string, m map[string]V, check func(key, city string, v V) error) error {
	for _, c := range slices.Sorted(maps.Keys(m)) {
		if err := City(key+"."+c, c); err != nil {
			return err
		}
		if check != nil {
			if err := check(key+"."+c, c, m[c]); err != nil {
				return err
			}
		}
	}
	return nil
}

// IntsIn returns a PerCity check that the values lie in [lo, hi].
func IntsIn(lo, hi int) func(key, city string, v int) error {
	return func(key, _ string, v int) error { return harness.IntIn(key, v, lo, hi) }
}

// Covers checks that the per-city table params.<key> has an entry for
// every city of cities.
func Covers[V any](key string, m map[string]V, cities []string) error {
	for _, c := range cities {
		if _, ok := m[c]; !ok {
			return fmt.Errorf("params.%s: no value for city %q (give e.g. %s = {%s = ...})", key, c, key, c)
		}
	}
	return nil
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

// Cell is a grid cell given in a spec as [row, col], in the grid's own
// indexing (row 0 north, column 0 east). Left out, it names a place of
// the city (see Resolve).
type Cell []int

// Resolve checks params.<key>: a [row, col] inside city's grid, or, when
// the spec leaves it out, the city's place of that name (the Paris
// preset's A and B), which it fills in.
func (c *Cell) Resolve(key, city, place string, rows datasets.RowPolicy) error {
	preset, err := datasets.Lookup(city)
	if err != nil {
		return fmt.Errorf("params.%s: %w", key, err)
	}
	if *c == nil {
		p, ok := preset.Place(place)
		if !ok {
			return fmt.Errorf("params.%s: city %q has no place %s; give %s = [row, col]", key, city, place, key)
		}
		*c = Cell{p.Row, p.Col}
	}
	if len(*c) != 2 || (*c)[0] < 0 || (*c)[1] < 0 {
		return fmt.Errorf("params.%s = %v: want [row, col] with row, col >= 0", key, []int(*c))
	}
	ds, err := datasets.Load(city, datasets.LoadOptions{Rows: rows})
	if err != nil {
		return fmt.Errorf("params.%s: %w", key, err)
	}
	if _, err := c.Index(ds.Grid, key); err != nil {
		return err
	}
	return nil
}

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

// Title is a city's name for figures and prose ("San Francisco"), or the
// name itself for a city without one.
func Title(city string) string {
	if c, err := datasets.Lookup(city); err == nil && c.Title != "" {
		return c.Title
	}
	return city
}
