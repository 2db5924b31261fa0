package param

import (
	"math"
	"strings"
	"testing"

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

func TestCityList(t *testing.T) {
	if err := CityList("cities", []string{"paris", "sf"}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "empty", CityList("cities", nil), "params.cities", `"paris"`, `"sf"`)
	// Names are exact: the case-insensitive match that once let "Paris"
	// through one kind and not another is gone everywhere.
	wantErr(t, "wrong case", CityList("cities", []string{"sf", "Paris"}), "params.cities[1]", "Paris")
	wantErr(t, "duplicate", CityList("cities", []string{"sf", "paris", "sf"}), "params.cities[2]", "duplicate")
	wantErr(t, "per-city key", PerCity("cycles", map[string]int{"SF": 3}, nil), "params.cycles.SF")
	wantErr(t, "per-city value", PerCity("cycles", map[string]int{"sf": 0}, IntsIn(1, 9)), "cycles.sf")
	wantErr(t, "not covered", Covers("cycles", map[string]int{"paris": 1}, []string{"paris", "sf"}), "params.cycles", `"sf"`)
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
// (row-major): the Paris preset's places fill in cells left out of a spec.
func TestCellDefaultsToThePresetsPlace(t *testing.T) {
	ds, err := datasets.Load("paris", datasets.LoadOptions{Rows: datasets.HeaderQuirk})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		place string
		index int
	}{{"A", 93}, {"B", 52}} {
		var cell Cell
		if err := cell.Resolve(strings.ToLower(c.place), "paris", c.place, datasets.HeaderQuirk); err != nil {
			t.Fatal(err)
		}
		if i, err := cell.Index(ds.Grid, "a"); err != nil || i != c.index {
			t.Errorf("place %s: cell %v, index %d (%v), want %d", c.place, cell, i, err, c.index)
		}
	}
	given := Cell{0, 0}
	if err := given.Resolve("a", "paris", "A", datasets.HeaderQuirk); err != nil || given[0] != 0 || given[1] != 0 {
		t.Errorf("a cell given in the spec must stay: %v, %v", given, err)
	}
	var none Cell
	wantErr(t, "no place", none.Resolve("a", "sf", "A", datasets.HeaderQuirk), "params.a", "give a = [row, col]")
	outside := Cell{ds.Grid.Rows, 0}
	wantErr(t, "outside", outside.Resolve("a", "paris", "A", datasets.HeaderQuirk), "params.a", "outside the grid")
	negative := Cell{-1, 2}
	wantErr(t, "negative", negative.Resolve("a", "paris", "A", datasets.HeaderQuirk), "row, col >= 0")
	var city Cell
	wantErr(t, "unknown city", city.Resolve("a", "Paris", "A", datasets.HeaderQuirk), "params.a")
}

func TestTitle(t *testing.T) {
	if got := Title("sf"); got != "San Francisco" {
		t.Errorf("Title(sf) = %q", got)
	}
	if got := Title("hotspots-9"); got != "hotspots-9" {
		t.Errorf("Title of a city without a title = %q, want the name", got)
	}
}
