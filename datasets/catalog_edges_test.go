package datasets_test

import (
	"testing"

	"privic/datasets"
)

// TestCatalogTitle: a preset's title is the city's, a declared dataset's
// its declared title, and any other name is its own title.
func TestCatalogTitle(t *testing.T) {
	c, err := datasets.NewCatalog(t.TempDir(), map[string]*datasets.Decl{
		"plain": {Synthetic: &datasets.SyntheticDecl{Rows: 2, Cols: 2, N: 10, Hotspots: 1, Seed: 1}},
		"named": {Synthetic: &datasets.SyntheticDecl{Rows: 2, Cols: 2, N: 10, Hotspots: 1, Seed: 1}, Title: "Named city"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"sf": "San Francisco", "paris": "Paris", "plain": "plain", "named": "Named city", "lyon": "lyon"} {
		if got := c.Title(name); got != want {
			t.Errorf("Title(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCatalogExtentIgnoresZeroWeights: without a bbox the region is the
// extent of the points that carry check-ins; a row of weight 0 far away
// does not stretch it.
func TestCatalogExtentIgnoresZeroWeights(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "w.csv", "lat,lon,w\n0,0,1\n0.001,0.002,2\n5,5,0\n")
	c, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"w": {Points: "w.csv", WeightColumn: col("w"), CellM: f64(50)}})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.Load("w", datasets.AllRows)
	if err != nil {
		t.Fatal(err)
	}
	if r := ds.Frame.Region; r != (datasets.Box{LatMin: 0, LatMax: 0.001, LonMin: 0, LonMax: 0.002}) || ds.N != 3 {
		t.Errorf("extent %v with %d check-ins, want the box of the two weighted points and 3", r, ds.N)
	}
}
