package param

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"privic/datasets"
)

// wantErr fails unless err is an error whose text holds every part.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not say %q", what, err, p)
		}
	}
}

func TestList(t *testing.T) {
	var c Catalog // the presets alone
	if err := c.List("cities", []string{"paris", "sf"}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "empty", c.List("cities", nil), "params.cities", `"paris"`, `"sf"`)
	// Names are exact: the case-insensitive match that once let "Paris"
	// through one kind and not another is gone everywhere.
	wantErr(t, "wrong case", c.List("cities", []string{"sf", "Paris"}), "params.cities[1]", `unknown dataset "Paris"`)
	wantErr(t, "duplicate", c.List("cities", []string{"sf", "paris", "sf"}), "params.cities[2]", "duplicate")
	wantErr(t, "per-dataset key", PerData(&c, "cycles", map[string]int{"SF": 3}, nil), "params.cycles.SF", `or "default"`)
	wantErr(t, "per-dataset value", PerData(&c, "cycles", map[string]int{"sf": 0}, IntsIn(1, 9)), "cycles.sf")
	wantErr(t, "default value", PerData(&c, "cycles", map[string]int{"default": 0}, IntsIn(1, 9)), "cycles.default")
	if err := PerData(&c, "cycles", map[string]int{"default": 3, "paris": 4}, IntsIn(1, 9)); err != nil {
		t.Error(err)
	}
}

// TestGet: a dataset's own entry, else the table's default entry, else
// the kind's default.
func TestGet(t *testing.T) {
	m := map[string]int{"paris": 15, "default": 7}
	for _, c := range []struct {
		name string
		want int
	}{{"paris", 15}, {"sf", 7}, {"mine", 7}} {
		if got := Get(m, c.name, 99); got != c.want {
			t.Errorf("Get(%s) = %d, want %d", c.name, got, c.want)
		}
	}
	if got := Get(map[string]int{"paris": 15}, "sf", 99); got != 99 {
		t.Errorf("Get without default = %d, want the kind's 99", got)
	}
}

// TestDeclaredDatasets: a catalog handed over by the harness adds the
// spec's datasets to the presets, by exact name.
func TestDeclaredDatasets(t *testing.T) {
	var h Handler
	decl := h.NewDecl().(*datasets.Decl)
	decl.Synthetic = &datasets.SyntheticDecl{Rows: 4, Cols: 5, N: 100, Hotspots: 1, Seed: 3}
	decl.Title = "Mine"
	cat, err := h.Catalog(t.TempDir(), map[string]any{"mine": decl})
	if err != nil {
		t.Fatal(err)
	}
	var c Catalog
	c.UseData(cat)
	if err := c.List("cities", []string{"mine", "paris"}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "unknown", c.Check("city", "yours"), "params.city", `unknown dataset "yours"`, "paris, sf, mine")
	if got := c.Title("mine"); got != "Mine" {
		t.Errorf("Title(mine) = %q", got)
	}
	ds, err := c.Dataset("mine", datasets.HeaderQuirk)
	if err != nil || ds.N != 100 || ds.Grid.Len() != 20 {
		t.Fatalf("mine: %+v, %v", ds, err)
	}
	if _, err := h.Catalog(".", map[string]any{"x": 3}); err == nil {
		t.Error("a declaration of a foreign type was accepted")
	}
}

func TestBetas(t *testing.T) {
	if err := Betas("beta", []float64{0.2, 0.6}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "empty", Betas("beta", nil), "params.beta")
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		wantErr(t, "value", Betas("beta", []float64{0.5, bad}), "params.beta[1]", "> 0")
	}
	wantErr(t, "duplicate", Betas("beta", []float64{0.5, 0.5}), "params.beta[1]", "duplicate")
}

// The paper's A is cell 93 and B cell 52 of the 11 x 15 Paris grid
// (row-major): the Paris preset's places fill in locations left out of a
// spec, and a place is named or a cell given.
func TestLocDefaultsToThePlace(t *testing.T) {
	ds, err := datasets.Load("paris", datasets.LoadOptions{Rows: datasets.HeaderQuirk})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		loc   Loc
		def   string
		index int
	}{{Loc{}, "A", 93}, {Loc{}, "B", 52}, {Loc{Place: "B"}, "A", 52}, {CellOf(0, 0), "A", 0}} {
		l := c.loc
		if err := l.Resolve("a", ds, c.def); err != nil {
			t.Fatal(err)
		}
		if i, err := l.Cell.Index(ds.Grid, "a"); err != nil || i != c.index {
			t.Errorf("%+v (default %s): cell %v, index %d (%v), want %d", c.loc, c.def, l.Cell, i, err, c.index)
		}
	}
	sf, err := datasets.Load("sf", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var none Loc
	wantErr(t, "no place", none.Resolve("a", sf, "A"), "params.a", `dataset "sf" has no place A`, "give a = [row, col]")
	unknown := Loc{Place: "C"}
	wantErr(t, "unknown place", unknown.Resolve("b", ds, "B"), "params.b", "no place C", `"A", "B"`)
	outside := CellOf(ds.Grid.Rows, 0)
	wantErr(t, "outside", outside.Resolve("a", ds, "A"), "params.a", "outside the grid")
}

func TestLocFromTOML(t *testing.T) {
	var l Loc
	if err := l.UnmarshalTOML("A"); err != nil || l.Place != "A" {
		t.Errorf("place: %+v, %v", l, err)
	}
	if err := l.UnmarshalTOML([]any{int64(3), int64(4)}); err != nil || l.Place != "" || l.Row() != 3 || l.Col() != 4 {
		t.Errorf("cell: %+v, %v", l, err)
	}
	for _, bad := range []any{"", []any{int64(1)}, []any{int64(-1), int64(2)}, []any{1.5, int64(2)}, int64(3)} {
		if err := l.UnmarshalTOML(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestTitleAndCellWords(t *testing.T) {
	var c Catalog
	if got := c.Title("sf"); got != "San Francisco" {
		t.Errorf("Title(sf) = %q", got)
	}
	if got := c.Title("hotspots-9"); got != "hotspots-9" {
		t.Errorf("Title of a dataset without a title = %q, want the name", got)
	}
	square := &datasets.Dataset{CellM: 100, CellHeightM: 100, CellWidthM: 100}
	if got := CellWords(square); got != "cells of 100 m" {
		t.Errorf("CellWords(square) = %q", got)
	}
	if got := CellWords(&datasets.Dataset{}); got != "cells of unknown size" {
		t.Errorf("CellWords(unknown) = %q", got)
	}
	if got, want := Metres(square, 1.5), "150"; got != want {
		t.Errorf("Metres = %q, want %q", got, want)
	}
	if got := Metres(&datasets.Dataset{}, 1.5); got != "" {
		t.Errorf("Metres without a cell size = %q, want empty", got)
	}
}

// TestByDatasetFromTOML decodes per-dataset settings over a kind's
// default table: a table merges into it, a plain value replaces every
// entry and sets the default one, and any other value is refused.
func TestByDatasetFromTOML(t *testing.T) {
	type doc struct {
		N ByDataset[int]     `toml:"n"`
		F ByDataset[float64] `toml:"f"`
		A ByDataset[Loc]     `toml:"a"`
	}
	decode := func(src string) (doc, error) {
		d := doc{N: ByDataset[int]{"paris": 15, "sf": 8}, F: ByDataset[float64]{}}
		_, err := toml.Decode(src, &d)
		return d, err
	}
	for _, tc := range []struct {
		src  string
		want map[string]int
	}{
		{"", map[string]int{"paris": 15, "sf": 8}},
		{"n = 6", map[string]int{"paris": 6, "sf": 6, "default": 6}},
		{"n = {sf = 4}", map[string]int{"paris": 15, "sf": 4}},
		{"n = {sf = 4, default = 6}", map[string]int{"paris": 15, "sf": 4, "default": 6}},
	} {
		d, err := decode(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if !maps.Equal(d.N, tc.want) {
			t.Errorf("%q: %v, want %v", tc.src, d.N, tc.want)
		}
		if got := Get(d.N, "mine", 10); got != Get(tc.want, "mine", 10) {
			t.Errorf("%q: a declared dataset gets %d", tc.src, got)
		}
	}
	d, err := decode("f = 2\na = [1, 2]")
	if err != nil || d.F["default"] != 2 || !slices.Equal(d.A["default"].Cell, Cell{1, 2}) {
		t.Errorf("f = 2, a = [1, 2]: %v, %v", d, err)
	}
	for _, tc := range []struct{ src, want string }{
		{`n = "6"`, "got a string, want an integer (one for every dataset) or a table"},
		{"n = [6]", "got an array, want an integer"},
		{"n = 6.5", "got a float, want an integer"},
		{`n = {sf = "4"}`, "sf: wrong type: got a string, want an integer"},
		{"f = true", "got a boolean, want a number"},
		{"a = 3", "want a place name"},
		{"a = {paris = 3}", "paris: want a place name"},
	} {
		_, err := decode(tc.src)
		wantErr(t, tc.src, err, tc.want)
	}
}

// TestDatasetTitles: the titles the manifest and the report's headings
// show are the datasets' own, in the spec's order.
func TestDatasetTitles(t *testing.T) {
	d := Data{Cities: []string{"sf", "paris"}}
	if got, want := d.DatasetTitles(), []string{"San Francisco", "Paris"}; !slices.Equal(got, want) {
		t.Errorf("DatasetTitles = %q, want %q", got, want)
	}
}

// TestMapMetres: maps of a declared dataset of known cell size have
// metres on their axes; the presets keep the paper's row and column
// numbers, and cells of unknown size their indices.
func TestMapMetres(t *testing.T) {
	for _, c := range []struct {
		ds   datasets.Dataset
		w, h float64
	}{
		{datasets.Dataset{CellM: 100, CellWidthM: 100, CellHeightM: 100}, 100, 100},
		{datasets.Dataset{CellM: 479, CellWidthM: 475, CellHeightM: 484}, 475, 484},
		{datasets.Dataset{CellM: 479, CellWidthM: 475, CellHeightM: 484, Preset: true}, 0, 0},
		{datasets.Dataset{}, 0, 0},
	} {
		if w, h := MapMetres(&c.ds); w != c.w || h != c.h {
			t.Errorf("MapMetres(%+v) = %v x %v, want %v x %v", c.ds, w, h, c.w, c.h)
		}
	}
}
