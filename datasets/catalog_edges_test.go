package datasets_test

import (
	"math"
	"strings"
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

// TestPresetDescription: a loaded preset carries the city's title, its
// frame and cell size (Paris: cells of 0.005 x 0.0075 degrees, about
// 556 x 549 m at 48.9 N) and its named places.
func TestPresetDescription(t *testing.T) {
	d, err := datasets.Presets().Load("paris", datasets.HeaderQuirk)
	if err != nil {
		t.Fatal(err)
	}
	city, _ := datasets.Lookup("paris")
	if d.Title != "Paris" || !d.Preset || d.Frame.Region != city.Box || len(d.Places) != len(city.Places) || len(d.Places) == 0 {
		t.Errorf("title %q, preset %v, region %v, places %v; want Paris, a preset, %v and %v", d.Title, d.Preset, d.Frame.Region, d.Places, city.Box, city.Places)
	}
	mLat, mLon := datasets.MetresPerDegree((city.Box.LatMin + city.Box.LatMax) / 2)
	if h, w := d.CellHeightM, d.CellWidthM; math.Abs(h-city.LatStep*mLat) > 1e-6*h || math.Abs(w-city.LonStep*mLon) > 1e-6*w || math.Abs(d.CellM-math.Sqrt(h*w)) > 1e-6*d.CellM {
		t.Errorf("cells %v x %v m (%v), want %v x %v", h, w, d.CellM, city.LatStep*mLat, city.LonStep*mLon)
	}
}

// TestPresetReadStats: what loading a preset says it read, against the
// raw files' line counts (Paris: 10,991 check-ins, of which 10,079 lie in
// a cell of the grid; SF: 123,026, all in a cell), under both row
// policies (the header quirk drops the first grid-cell line).
func TestPresetReadStats(t *testing.T) {
	for _, tc := range []struct {
		city string
		rows datasets.RowPolicy
		want datasets.ReadStats
	}{
		{"paris", datasets.HeaderQuirk, datasets.ReadStats{Rows: 10991, Checkins: 10991, Kept: 10078, Dropped: 913}},
		{"paris", datasets.AllRows, datasets.ReadStats{Rows: 10991, Checkins: 10991, Kept: 10079, Dropped: 912}},
		{"sf", datasets.HeaderQuirk, datasets.ReadStats{Rows: 123026, Checkins: 123026, Kept: 123025, Dropped: 1}},
		{"sf", datasets.AllRows, datasets.ReadStats{Rows: 123026, Checkins: 123026, Kept: 123026, Dropped: 0}},
	} {
		d, err := datasets.Presets().Load(tc.city, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		if d.Read != tc.want || d.N != tc.want.Kept {
			t.Errorf("%s, %v: read %+v, N %d; want %+v", tc.city, tc.rows, d.Read, d.N, tc.want)
		}
	}
}

// TestCatalogCountsOneRowOrColumn: a counts grid of one row or one
// column is a grid.
func TestCatalogCountsOneRowOrColumn(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "row.csv", "row,col,count\n0,1,5\n")
	write(t, dir, "col.csv", "row,col,count\n1,0,4\n")
	c, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{
		"row": {Counts: "row.csv", Grid: []int{1, 2}},
		"col": {Counts: "col.csv", Grid: []int{2, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]int{"row": {0, 5}, "col": {0, 4}} {
		d, err := c.Load(name, datasets.AllRows)
		if err != nil || len(d.Counts) != 2 || d.Counts[0] != want[0] || d.Counts[1] != want[1] {
			t.Errorf("%s: %+v, %v; want counts %v", name, d, err, want)
		}
	}
}

// TestCatalogWidestCells: cells of 180 degrees of latitude or 360 of
// longitude are the widest accepted; the data then fill one cell.
func TestCatalogWidestCells(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.csv", "lat,lon\n1,2\n1.5,2.5\n")
	for _, deg := range [][]float64{{180, 1}, {1, 360}} {
		c, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"x": {Points: "p.csv", CellDeg: deg}})
		if err != nil {
			t.Errorf("cell_deg %v: %v", deg, err)
			continue
		}
		if d, err := c.Load("x", datasets.AllRows); err != nil || d.Grid.Len() != 1 || d.N != 2 {
			t.Errorf("cell_deg %v: %+v, %v; want one cell with 2 check-ins", deg, d, err)
		}
	}
}

// TestScanPointsTotalLimit: the check-ins of a file may total 2^53 (8,192
// rows of the largest weight, 2^40) but not one more.
func TestScanPointsTotalLimit(t *testing.T) {
	f := datasets.PointsFormat{Lat: datasets.ColumnAt(0), Lon: datasets.ColumnAt(1), Weight: datasets.ColumnAt(2), HasWeight: true}
	full := strings.Repeat("1,2,1099511627776\n", 8192)
	if _, st, err := scan(t, full, f); err != nil || st.Weight != 1<<53 {
		t.Errorf("2^53 check-ins: %v, %v", st.Weight, err)
	}
	if _, _, err := scan(t, full+"1,2,1\n", f); err == nil || err.Error() != "in.csv:8193: more than 9007199254740992 check-ins in all" {
		t.Errorf("2^53 + 1 check-ins: error %v", err)
	}
}
