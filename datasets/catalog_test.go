package datasets_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/datasets"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func f64(v float64) *float64 { return &v }
func no() *bool              { return new(bool) }

func col(name string) *datasets.ColumnDecl {
	return &datasets.ColumnDecl{Column: datasets.ColumnNamed(name)}
}
func colAt(i int) *datasets.ColumnDecl { return &datasets.ColumnDecl{Column: datasets.ColumnAt(i)} }

// scan collects what ScanPoints passes on.
func scan(t *testing.T, text string, f datasets.PointsFormat) ([][3]float64, datasets.PointStats, error) {
	t.Helper()
	var got [][3]float64
	st, err := datasets.ScanPoints(strings.NewReader(text), "in.csv", f, func(lat, lon, w float64) error {
		got = append(got, [3]float64{lat, lon, w})
		return nil
	})
	return got, st, err
}

func TestScanPointsCSV(t *testing.T) {
	named := datasets.PointsFormat{Header: true, Lat: datasets.ColumnNamed("latitude"), Lon: datasets.ColumnNamed("lng"),
		Weight: datasets.ColumnNamed("n"), HasWeight: true}
	text := "\xef\xbb\xbfid,\"lng\", latitude ,n\r\n7,2.35,48.85,3\n\n8,\"-0.5\",\" 10 \",0\n"
	got, st, err := scan(t, text, named)
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]float64{{48.85, 2.35, 3}, {10, -0.5, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) || st.Rows != 2 || st.Weight != 3 || st.Lines != 4 {
		t.Errorf("got %v (%+v), want %v, 2 rows, 3 check-ins, 4 lines", got, st, want)
	}
	// Without a header, columns by number; every row is one check-in.
	got, st, err = scan(t, "a,1.5,2.5\nb,-1,3\n", datasets.PointsFormat{Lat: datasets.ColumnAt(2), Lon: datasets.ColumnAt(1)})
	if err != nil || fmt.Sprint(got) != fmt.Sprint([][3]float64{{2.5, 1.5, 1}, {3, -1, 1}}) || st.Weight != 2 {
		t.Errorf("numbered columns: %v, %+v, %v", got, st, err)
	}
	for _, c := range []struct{ text, want string }{
		{"lat,lon,n\n", ""}, // a header alone: no points, no error
		{"", "empty: no header line"},
		{"latitude,lon,n\n1,2,3\n", `in.csv:1: no column "lat" (lat_column) in the header; its columns are "latitude", "lon", "n"`},
		{"LAT,lon,Lat,n\n1,2,3,4\n", `in.csv:1: no column "lat" (lat_column) in the header, and "LAT" and "Lat" match it but for case; its columns are "LAT", "lon", "Lat", "n"`},
		{"1.5,2.5,3\n", `in.csv:1: no column "lat" (lat_column) in the header; its columns are "1.5", "2.5", "3" (the first line looks like data: set header = false`},
		{"lat,lon,n\n1,2\n", "in.csv:2: 2 fields, want at least 3"},
		{"lat,lon,n\nx,2,1\n", `in.csv:2: latitude "x" is not a number`},
		{"lat,lon,n\n91,2,1\n", "in.csv:2: latitude 91 outside [-90, 90]"},
		{"lat,lon,n\n1,-180.5,1\n", "in.csv:2: longitude -180.5 outside [-180, 180]"},
		{"lat,lon,n\n1,2,-1\n", `in.csv:2: weight "-1" is negative`},
		{"lat,lon,n\n1,2,many\n", `in.csv:2: weight "many" is not a number: want a number of check-ins >= 0`},
		{"lat,lon,n\n1,2,1e20\n", `weight 1e20 is larger than`},
		{"lat,lon,n\n1,\"2\" ,1\n", "in.csv:2: an unclosed or stray double quote in a quoted field"},
		{"lat,lon,n\n1,2\"x,1\n", "in.csv:2: a double quote inside an unquoted field"},
		{"lat,lon,n\n1,\"2,1\n3,4,5\n", "in.csv:2: an unclosed or stray double quote"},
		// Records are bounded (64 KiB), a quote never closed included.
		{"lat,lon,n\n\n1,2,\"" + strings.Repeat("x\n", 40000), "in.csv:3: a record longer than 65536 bytes (a double quote never closed?)"},
		{"lat,lon,n\n1,2," + strings.Repeat("9", 70000) + "\n", "in.csv:2: a record longer than 65536 bytes"},
		{"lat,lon,n\n" + strings.Repeat("\n", 70000) + "1,2,3\n", ""},
		{"lat,lon,n\n48,85,2,35,1\n", ""}, // five fields: lat 48, lon 85, weight 2
		{"lat,lon,n\n\"48,85\",2,1\n", `in.csv:2: latitude "48,85" is not a number (a decimal comma? set decimal = ",")`},
		{"lat,lon,n\n1,2,99999999999999\n", "is larger than"},
	} {
		_, _, err := scan(t, c.text, datasets.PointsFormat{Header: true, Lat: datasets.ColumnNamed("lat"), Lon: datasets.ColumnNamed("lon"),
			Weight: datasets.ColumnNamed("n"), HasWeight: true})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

func TestScanPointsSNAP(t *testing.T) {
	text := "1\t2010-10-19T23:55:27Z\t30.2359091167\t-97.7951395833\t22847\n" +
		"bad line\n" +
		"2\t2010-10-18T22:17:43Z\t48.85\t2.35\t420315\n"
	got, st, err := scan(t, gz(t, text), datasets.PointsFormat{SNAP: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1] != [3]float64{48.85, 2.35, 1} || st.Malformed != 1 || st.Weight != 2 || st.Lines != 3 || !st.SNAP {
		t.Errorf("snap: %v, %+v", got, st)
	}
}

// pointsDecl is a declaration of the points file name in a directory.
func pointsDecl(name string, cell float64) *datasets.Decl {
	return &datasets.Decl{Points: name, Header: no(), CellM: f64(cell)}
}

func TestCatalogPoints(t *testing.T) {
	dir := t.TempDir()
	// Cells of 0.5 x 1 degree over lat [0, 1], lon [0, 2]: 2 x 2 cells.
	// The point (0.5, 1) lies on both interior edges: cell (0, 0).
	write(t, dir, "p.csv.gz", gz(t, "lat,lon,w\n0.5,1,2\n0.2,1.7,1\n0.9,0.1,4\n5,5,3\n"))
	d := &datasets.Decl{Points: "p.csv.gz", WeightColumn: col("w"), BBox: []float64{0, 1, 0, 2}, CellDeg: []float64{0.5, 1},
		Places: map[string]datasets.PlaceDecl{"A": {Lat: 0.2, Lon: 1.7}, "B": {Row: 0, Col: 1, IsCell: true}, "O": {Row: 0, Col: 0, IsCell: true}}}
	c, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"deg": d})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.Load("deg", datasets.AllRows)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Grid.Rows != 2 || ds.Grid.Cols != 2 || fmt.Sprint(ds.Counts) != "[2 4 1 0]" || ds.N != 7 {
		t.Errorf("grid %v counts %v N %d, want 2x2 [2 4 1 0] 7", ds.Grid, ds.Counts, ds.N)
	}
	if ds.Read.Checkins != 10 || ds.Read.Dropped != 3 || ds.Read.Kept != 7 || ds.Read.Rows != 4 {
		t.Errorf("read %+v, want 10 check-ins, 3 dropped, 7 kept, 4 rows", ds.Read)
	}
	if a, _ := ds.Place("A"); a.Row != 1 || a.Col != 0 {
		t.Errorf("place A at (%d, %d), want (1, 0)", a.Row, a.Col)
	}
	if b, _ := ds.Place("B"); b.Row != 0 || b.Col != 1 {
		t.Errorf("place B at (%d, %d), want (0, 1)", b.Row, b.Col)
	}
	if o, ok := ds.Place("O"); !ok || o.Row != 0 || o.Col != 0 {
		t.Errorf("place O at (%d, %d), found %v; want the first cell (0, 0)", o.Row, o.Col, ok)
	}
	// Degree cells: the size in metres is the mean cell's at the centre.
	mLat, mLon := datasets.MetresPerDegree(0.5)
	if math.Abs(ds.CellHeightM-0.5*mLat) > 1e-6 || math.Abs(ds.CellWidthM-mLon) > 1e-6 || math.Abs(ds.CellM-math.Sqrt(0.5*mLat*mLon)) > 1e-6 {
		t.Errorf("cell %v x %v m (%v), want %v x %v", ds.CellHeightM, ds.CellWidthM, ds.CellM, 0.5*mLat, mLon)
	}
	// Without a bbox the region is the points' extent.
	write(t, dir, "q.csv", "0,0\n0.001,0.002\n")
	c2, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"m": pointsDecl("q.csv", 50)})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := c2.Load("m", datasets.HeaderQuirk)
	if r := m.Frame.Region; r != (datasets.Box{LatMin: 0, LatMax: 0.001, LonMin: 0, LonMax: 0.002}) || m.Grid.Rows != 3 || m.Grid.Cols != 5 {
		t.Errorf("extent %v, grid %v; want the points' box, 3 x 5 cells of 50 m", r, m.Grid)
	}
	if m.CellM != 50 || m.Title != "m" || m.Preset {
		t.Errorf("cell %v, title %q, preset %v", m.CellM, m.Title, m.Preset)
	}
}

func TestCatalogCountsAndSynthetic(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "c.csv", "row,col,count\n0,1,5\n2,3,7\n")
	decls := map[string]*datasets.Decl{
		"counted": {Counts: "c.csv", Grid: []int{3, 4}, CellM: f64(200), Title: "Counted"},
		"synth":   {Synthetic: &datasets.SyntheticDecl{Rows: 5, Cols: 6, N: 1000, Hotspots: 2, Seed: 9}},
	}
	c, err := datasets.NewCatalog(dir, decls)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := c.Load("counted", datasets.HeaderQuirk)
	if ds.N != 12 || ds.Counts[1] != 5 || ds.Counts[11] != 7 || ds.Grid.Len() != 12 || ds.CellM != 200 || c.Title("counted") != "Counted" ||
		ds.Read.Rows != 2 || ds.Read.Checkins != 12 || ds.Read.Kept != 12 {
		t.Errorf("counts dataset: %+v", ds)
	}
	s1, _ := c.Load("synth", datasets.HeaderQuirk)
	if s1.N != 1000 || s1.Grid.Len() != 30 || s1.CellM != 0 {
		t.Errorf("synthetic dataset: %+v", s1)
	}
	// The synthetic dataset comes from its own seed: the same again.
	c2, _ := datasets.NewCatalog(dir, decls)
	s2, _ := c2.Load("synth", datasets.HeaderQuirk)
	if fmt.Sprint(s1.Counts) != fmt.Sprint(s2.Counts) {
		t.Error("the synthetic dataset differs between two catalogs")
	}
	// WriteCellCounts writes what a counts dataset reads back.
	var b bytes.Buffer
	if err := datasets.WriteCellCounts(&b, s1); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "back.csv", b.String())
	c3, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"back": {Counts: "back.csv", Grid: []int{5, 6}}})
	if err != nil {
		t.Fatal(err)
	}
	back, _ := c3.Load("back", datasets.HeaderQuirk)
	if fmt.Sprint(back.Counts) != fmt.Sprint(s1.Counts) {
		t.Errorf("counts read back %v, written %v", back.Counts, s1.Counts)
	}
}

// TestFingerprint: the fingerprint changes with a declaration and with
// the content of its file, not with the file's path alone.
func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.csv", "1,2\n1.001,2.001\n")
	fp := func(d *datasets.Decl) string {
		c, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"x": d})
		if err != nil {
			t.Fatal(err)
		}
		return c.Fingerprint()
	}
	a := fp(pointsDecl("p.csv", 100))
	if a == "" || a != fp(pointsDecl("p.csv", 100)) {
		t.Fatalf("fingerprint %q not stable", a)
	}
	if fp(pointsDecl("p.csv", 120)) == a {
		t.Error("a changed cell size keeps the fingerprint")
	}
	write(t, dir, "p.csv", "1,2\n1.001,2.002\n")
	if fp(pointsDecl("p.csv", 100)) == a {
		t.Error("a changed data file keeps the fingerprint")
	}
	if datasets.Presets().Fingerprint() != "" {
		t.Error("the presets alone have a fingerprint")
	}
	// Every key of the CSV dialect and the check-ins counts.
	write(t, dir, "w.csv", "lat;lon;w\n1;2;3\n1,001;2,001;1,5\n")
	base := &datasets.Decl{Points: "w.csv", WeightColumn: col("w"), Decimal: ",", CellM: f64(100)}
	seen := map[string]string{fp(base): "base"}
	n := 7
	for name, d := range map[string]*datasets.Decl{
		"delimiter": {Points: "w.csv", WeightColumn: col("w"), Decimal: ",", Delimiter: ";", CellM: f64(100)},
		"checkins":  {Points: "w.csv", WeightColumn: col("w"), Decimal: ",", Checkins: &n, CellM: f64(100)},
		"format":    {Points: "w.csv", WeightColumn: col("w"), Decimal: ",", Format: "csv", CellM: f64(100)},
	} {
		f := fp(d)
		if other, dup := seen[f]; dup {
			t.Errorf("%s has the fingerprint of %s", name, other)
		}
		seen[f] = name
	}
}

func TestExpandPath(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "data")
	os.Mkdir(sub, 0o755)
	write(t, sub, "p.csv", "1,2\n")
	t.Setenv("PRIVIC_DATA", sub)
	for _, p := range []string{"$PRIVIC_DATA/p.csv", "${PRIVIC_DATA}/p.csv", filepath.Join(sub, "p.csv"), "data/p.csv"} {
		if _, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"x": pointsDecl(p, 100)}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	t.Setenv("PRIVIC_DATA", "")
	_, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"x": pointsDecl("$PRIVIC_DATA/p.csv", 100)})
	if err == nil || !strings.Contains(err.Error(), "datasets.x: points: $PRIVIC_DATA/p.csv uses $PRIVIC_DATA, which is not set") {
		t.Errorf("unset $PRIVIC_DATA: %v", err)
	}
}

// TestExpandPathSearch: with $PRIVIC_DATA unset, a path under it is
// looked up in the module's datasets/cache, then in the shared data
// directory beside the module; the error names both when neither has it.
func TestExpandPathSearch(t *testing.T) {
	top := t.TempDir()
	mod := filepath.Join(top, "repo")
	specs := filepath.Join(mod, "experiments", "x")
	shared := filepath.Join(top, "shared", "datasets", "gowalla")
	for _, d := range []string{specs, shared, filepath.Join(mod, "datasets", "cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, mod, "go.mod", "module privic\n")
	write(t, shared, "p.csv", "1,2\n")
	t.Setenv("PRIVIC_DATA", "")
	c, err := datasets.NewCatalog(specs, map[string]*datasets.Decl{"x": pointsDecl("$PRIVIC_DATA/p.csv", 100)})
	if err != nil {
		t.Fatalf("shared copy: %v", err)
	}
	// The cache comes first: a different file there is the one read.
	write(t, filepath.Join(mod, "datasets", "cache"), "p.csv", "3,4\n")
	c2, err := datasets.NewCatalog(specs, map[string]*datasets.Decl{"x": pointsDecl("$PRIVIC_DATA/p.csv", 100)})
	if err != nil {
		t.Fatalf("cache copy: %v", err)
	}
	if c.Fingerprint() == c2.Fingerprint() {
		t.Error("the cache's file is not the one read when both exist")
	}
	_, err = datasets.NewCatalog(specs, map[string]*datasets.Decl{"x": pointsDecl("$PRIVIC_DATA/q.csv", 100)})
	if err == nil || !strings.Contains(err.Error(), "which is not set, and q.csv is in none of") ||
		!strings.Contains(err.Error(), filepath.Join("datasets", "cache")) {
		t.Errorf("missing file: %v", err)
	}
}

// TestCatalogRefusals: each bad declaration or bad data file gets one
// line naming the dataset's key (and the file and line for bad data).
func TestCatalogRefusals(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ok.csv", "lat,lon\n1,2\n1.001,2.001\n")
	write(t, dir, "bad.csv", "lat,lon\n1,2\n1,x\n")
	whole := gz(t, "lat,lon\n"+strings.Repeat("1,2\n1.5,2.5\n", 500))
	write(t, dir, "trunc.csv.gz", whole[:len(whole)-12]) // the trailer and the last bytes cut
	write(t, dir, "c.csv", "row,col,count\n0,0,1\n3,0,2\n")
	write(t, dir, "dup.csv", "row,col,count\n0,0,1\n0,0,2\n")
	write(t, dir, "zero.csv", "row,col,count\n0,0,0\n")
	ok := func() *datasets.Decl { return &datasets.Decl{Points: "ok.csv", CellM: f64(100)} }
	with := func(f func(d *datasets.Decl)) *datasets.Decl { d := ok(); f(d); return d }
	for _, c := range []struct {
		name string
		d    *datasets.Decl
		want string
	}{
		{"x", &datasets.Decl{}, "datasets.x: give exactly one of points, counts and synthetic (got none)"},
		{"x", with(func(d *datasets.Decl) { d.Counts = "c.csv" }), "got points and counts"},
		{"x", with(func(d *datasets.Decl) { d.CellM = f64(0) }), "datasets.x.cell_m = 0: must be a finite number of metres > 0"},
		{"x", with(func(d *datasets.Decl) { d.CellM = f64(-5) }), "datasets.x.cell_m = -5"},
		{"x", with(func(d *datasets.Decl) { d.CellDeg = []float64{0.1, 0.1} }), "datasets.x: give one of cell_m and cell_deg, not both"},
		{"x", with(func(d *datasets.Decl) { d.CellM = nil }), "give cell_m (metres) or cell_deg"},
		{"x", with(func(d *datasets.Decl) { d.CellM, d.CellDeg = nil, []float64{0.1} }), "datasets.x.cell_deg = [0.1]"},
		{"x", with(func(d *datasets.Decl) { d.BBox = []float64{1, 2, 3} }), "datasets.x.bbox: 3 values"},
		{"x", with(func(d *datasets.Decl) { d.BBox = []float64{2, 1, 3, 4} }), "datasets.x.bbox: box"},
		{"x", with(func(d *datasets.Decl) { d.BBox = []float64{50, 51, 3, 4} }), "no check-in inside the region"},
		{"x", with(func(d *datasets.Decl) { d.Format = "json" }), `datasets.x.format: "json": allowed values are "csv", "snap"`},
		{"x", with(func(d *datasets.Decl) { d.Format = "snap"; d.Header = no() }), "datasets.x.header: applies to csv points only"},
		{"x", with(func(d *datasets.Decl) { d.Format = "snap"; d.LatColumn = colAt(2) }), "datasets.x.lat_column: applies to csv points only"},
		{"x", with(func(d *datasets.Decl) { d.Format = "snap"; d.LonColumn = colAt(3) }), "datasets.x.lon_column: applies to csv points only"},
		{"x", with(func(d *datasets.Decl) { d.Format = "snap"; d.WeightColumn = colAt(4) }), "datasets.x.weight_column: applies to csv points only"},
		{"x", with(func(d *datasets.Decl) { d.CellM, d.CellDeg = nil, []float64{0, 0.1} }), "datasets.x.cell_deg = [0 0.1]: want [dlat, dlon] in degrees, both > 0"},
		{"x", with(func(d *datasets.Decl) { d.CellM, d.CellDeg = nil, []float64{0.1, 0} }), "datasets.x.cell_deg = [0.1 0]"},
		{"x", with(func(d *datasets.Decl) { d.CellM, d.CellDeg = nil, []float64{180.5, 1} }), "datasets.x.cell_deg = [180.5 1]"},
		{"x", with(func(d *datasets.Decl) { d.CellM, d.CellDeg = nil, []float64{1, 360.5} }), "datasets.x.cell_deg = [1 360.5]"},
		{"x", with(func(d *datasets.Decl) { d.LatColumn = colAt(0) }), "datasets.x.lat_column = 0: with a header"},
		{"x", with(func(d *datasets.Decl) { d.Header = no(); d.LatColumn = col("lat") }), "without a header (header = false) columns are numbered"},
		{"x", with(func(d *datasets.Decl) { d.LonColumn = col("lat") }), "lat_column and lon_column are the same column"},
		{"x", with(func(d *datasets.Decl) { d.Grid = []int{2, 2} }), "datasets.x.grid: does not apply to a dataset of points"},
		{"x", with(func(d *datasets.Decl) { d.LatColumn = col("latitude") }), `no column "latitude" (lat_column)`},
		{"x", with(func(d *datasets.Decl) { d.Points = "missing.csv" }), "missing.csv: no such file or directory"},
		{"x", with(func(d *datasets.Decl) { d.Points = "bad.csv" }), `bad.csv:3: longitude "x" is not a number`},
		{"x", with(func(d *datasets.Decl) { d.Points = "trunc.csv.gz" }), "trunc.csv.gz: truncated"},
		{"x", with(func(d *datasets.Decl) { d.CellM = f64(0.001) }), "more than"},
		{"x", with(func(d *datasets.Decl) { d.Places = map[string]datasets.PlaceDecl{"A": {Lat: 5, Lon: 5}} }), "datasets.x: places.A = {lat = 5, lon = 5} lies outside the region"},
		{"x", with(func(d *datasets.Decl) { d.Places = map[string]datasets.PlaceDecl{"A": {Row: 9, Col: 0, IsCell: true}} }), "places.A = [9, 0]: outside the grid"},
		{"x", with(func(d *datasets.Decl) { d.Places = map[string]datasets.PlaceDecl{"A b": {IsCell: true}} }), "datasets.x.places.A b: a place name"},
		{"x", &datasets.Decl{Counts: "c.csv", Grid: []int{3, 4}}, "c.csv:3: cell (3, 0) is outside the grid of 3 x 4 cells (rows 0-2, cols 0-3)"},
		{"x", &datasets.Decl{Counts: "dup.csv", Grid: []int{3, 3}}, "dup.csv:3: cell (0, 0) listed twice"},
		{"x", &datasets.Decl{Counts: "zero.csv", Grid: []int{3, 3}}, "no check-ins"},
		{"x", &datasets.Decl{Counts: "c.csv"}, "datasets.x.grid = []: counts need grid = [rows, cols]"},
		{"x", &datasets.Decl{Counts: "c.csv", Grid: []int{4, 3}, Places: map[string]datasets.PlaceDecl{"A": {Lat: 1, Lon: 1}}}, "a place by latitude and longitude needs point data"},
		{"x", &datasets.Decl{Counts: "c.csv", Grid: []int{4, 3}, CellDeg: []float64{1, 1}}, "datasets.x.cell_deg: does not apply to a dataset of counts"},
		{"x", &datasets.Decl{Synthetic: &datasets.SyntheticDecl{Rows: 0, Cols: 3, N: 10, Hotspots: 1}}, "datasets.x: synthetic: grid"},
		{"paris", ok(), `datasets.paris: declared twice: "paris" is a preset`},
		{"default", ok(), `datasets.default: "default" is reserved`},
		{"My-Data", ok(), "datasets.My-Data: dataset names use only a-z, 0-9 and '-'"},
	} {
		_, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{c.name: c.d})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %+v: error %v, want one line with %q", c.name, c.d, err, c.want)
		}
	}
	c, _ := datasets.NewCatalog(dir, nil)
	if err := c.Check("lyon"); err == nil || !strings.Contains(err.Error(), `unknown dataset "lyon": known datasets are paris, sf`) {
		t.Errorf("unknown name: %v", err)
	}
	var le *datasets.LineError
	_, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"x": with(func(d *datasets.Decl) { d.Points = "bad.csv" })})
	if !errors.As(err, &le) || le.Line != 3 {
		t.Errorf("bad data: %v, want a LineError at line 3", err)
	}
}

// dialectPoints are five check-ins over lat [52, 53], lon [13, 15] in
// cells of 0.5 x 1 degree (2 x 2 cells, row 0 north, column 0 east), as
// [lat, lon, weight]; the last lies outside the region.
var dialectPoints = [][3]float64{{52.9, 14.5, 2}, {52.2, 13.1, 1}, {52.6, 13.9, 3}, {52.75, 14.25, 4}, {10, 10, 5}}

// dialectCounts are their counts: (0, 0) north-east holds the first and
// fourth (6), (0, 1) the third (3), (1, 1) the second (1).
const dialectCounts = "[6 3 0 1]"

// gridOf grids file (named name in dir) declared by d's keys with the
// region and cells of dialectPoints.
func gridOf(t *testing.T, dir string, d *datasets.Decl) (*datasets.Dataset, error) {
	t.Helper()
	d.BBox, d.CellDeg = []float64{52, 53, 13, 15}, []float64{0.5, 1}
	c, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"x": d})
	if err != nil {
		return nil, err
	}
	return c.Load("x", datasets.HeaderQuirk)
}

// TestCatalogCSVDialects: the CSV files people have grid like a plain
// comma-separated file of the same points: quoted fields holding commas
// (RFC 4180: "Bad Wilsnack, Bhf"), quotes and line breaks; semicolon,
// tab and '|' separators, detected from the header (the semicolon even
// where the header has a comma); column names that differ in case; a CSV
// file whose name ends in .txt.
func TestCatalogCSVDialects(t *testing.T) {
	dir := t.TempDir()
	row := func(sep string, p [3]float64, name string) string {
		return fmt.Sprintf("%s%s%v%s%v%s%v\n", name, sep, p[0], sep, p[1], sep, p[2])
	}
	files := map[string]string{}
	var plain, semi, tab, bar, quoted, upper strings.Builder
	plain.WriteString("name,lat,lon,w\n")
	semi.WriteString("name;lat;lon;w;note, free text\n") // a comma in a name, outside quotes
	tab.WriteString("name\tlat\tlon\tw\n")
	bar.WriteString("name|lat|lon|w\n")
	quoted.WriteString("\"stop, name\",\"lat\",\"lon\",w\r\n")
	upper.WriteString("Name,Lat,LON,W\n")
	for i, p := range dialectPoints {
		plain.WriteString(row(",", p, fmt.Sprint("s", i)))
		semi.WriteString(strings.TrimSuffix(row(";", p, fmt.Sprintf("Stop, %d", i)), "\n") + ";a, b\n")
		tab.WriteString(row("\t", p, fmt.Sprintf("Stop; %d", i)))
		bar.WriteString(row("|", p, fmt.Sprintf("Stop %d", i)))
		quoted.WriteString(row(",", p, fmt.Sprintf("\"Bad Wilsnack, Bhf %d\r\nsays \"\"hi\"\"\"", i)))
		upper.WriteString(row(",", p, fmt.Sprint("s", i)))
	}
	files["plain.csv"], files["semi.csv"], files["tab.tsv"], files["bar.csv"] = plain.String(), semi.String(), tab.String(), bar.String()
	files["quoted.csv"], files["upper.csv"], files["stops.txt"], files["stops.txt.gz"] = quoted.String(), upper.String(), plain.String(), gz(t, semi.String())
	for name, text := range files {
		write(t, dir, name, text)
		ds, err := gridOf(t, dir, &datasets.Decl{Points: name, WeightColumn: col("w")})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fmt.Sprint(ds.Counts) != dialectCounts || ds.N != 10 || ds.Read.Rows != 5 || ds.Read.Dropped != 5 {
			t.Errorf("%s: counts %v (N %d), read %+v; want %s, N 10, 5 rows, 5 dropped", name, ds.Counts, ds.N, ds.Read, dialectCounts)
		}
	}
}

// TestCatalogDecimalComma: `decimal = ","` reads "52,9" as 52.9, with the
// delimiter detected (never the comma then) or given; without it the
// error says what to set.
func TestCatalogDecimalComma(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("lat;lon;w\n")
	for _, p := range dialectPoints {
		fmt.Fprintf(&b, "%s;%s;%s\n", comma(p[0]), comma(p[1]), comma(p[2]))
	}
	write(t, dir, "eu.csv", b.String())
	for _, delim := range []string{"", ";"} {
		ds, err := gridOf(t, dir, &datasets.Decl{Points: "eu.csv", WeightColumn: col("w"), Decimal: ",", Delimiter: delim})
		if err != nil || fmt.Sprint(ds.Counts) != dialectCounts {
			t.Errorf("delimiter %q: %v, %v; want %s", delim, ds, err, dialectCounts)
		}
	}
	_, err := gridOf(t, dir, &datasets.Decl{Points: "eu.csv", WeightColumn: col("w")})
	if err == nil || !strings.Contains(err.Error(), `eu.csv:2: latitude "52,9" is not a number (a decimal comma? set decimal = ",")`) {
		t.Errorf("decimal commas read with points: %v", err)
	}
}

// comma writes v with a decimal comma.
func comma(v float64) string { return strings.Replace(fmt.Sprint(v), ".", ",", 1) }

// TestCatalogFormatDetected: without format, a SNAP file is read as SNAP
// and a CSV file as CSV whatever their names; a file that is neither is
// refused, naming both formats; format = "csv" reads a .txt file as CSV.
func TestCatalogFormatDetected(t *testing.T) {
	dir := t.TempDir()
	var snap, csvText strings.Builder
	csvText.WriteString("lat,lon\n")
	for i, p := range dialectPoints {
		for range int(p[2]) {
			fmt.Fprintf(&snap, "%d\t2010-10-19T23:55:27Z\t%v\t%v\t%d\n", i, p[0], p[1], 100+i)
			fmt.Fprintf(&csvText, "%v,%v\n", p[0], p[1])
		}
	}
	write(t, dir, "snap.csv", snap.String())
	write(t, dir, "checkins.txt", csvText.String())
	write(t, dir, "table.json", `{"lat": [52.9], "lon": [14.5]}`+"\n")
	write(t, dir, "one.txt", "52.9\n52.2\n")
	for _, d := range []*datasets.Decl{{Points: "snap.csv"}, {Points: "checkins.txt"}, {Points: "checkins.txt", Format: "csv"}} {
		ds, err := gridOf(t, dir, d)
		if err != nil || fmt.Sprint(ds.Counts) != dialectCounts {
			t.Errorf("%s (format %q): %v, %v; want %s", d.Points, d.Format, ds, err, dialectCounts)
		}
	}
	for _, name := range []string{"table.json", "one.txt"} {
		_, err := gridOf(t, dir, &datasets.Decl{Points: name})
		if err == nil || !strings.Contains(err.Error(), name+": neither CSV") || !strings.Contains(err.Error(), "nor SNAP") {
			t.Errorf("%s: %v, want neither CSV nor SNAP", name, err)
		}
	}
}

// TestCatalogFractionalWeights: fractional weights (populations,
// densities) are apportioned to whole check-ins by largest remainders:
// to their rounded total, or to checkins = N; the rounding is recorded.
func TestCatalogFractionalWeights(t *testing.T) {
	dir := t.TempDir()
	// Cells (0, 0), (0, 1), (1, 1) hold 0.5, 1.25 and 2.25 (total 4).
	write(t, dir, "w.csv", "lat,lon,w\n52.9,14.5,0.5\n52.6,13.9,1.25\n52.2,13.1,2\n52.2,13.2,0.25\n")
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		checkins *int
		counts   string
		n        int
		tv       float64
	}{
		// quotas 0.5, 1.25, 2.25: floors 0, 1, 2, the last one to 0.5.
		{nil, "[1 1 0 2]", 4, 0.5 * (0.125 + 0.0625 + 0.0625)},
		// quotas 12.5, 31.25, 56.25: floors 12, 31, 56, the last to 12.5.
		{n(100), "[13 31 0 56]", 100, 0.5 * (0.005 + 0.0025 + 0.0025)},
	} {
		ds, err := gridOf(t, dir, &datasets.Decl{Points: "w.csv", WeightColumn: col("w"), Checkins: tc.checkins})
		if err != nil {
			t.Fatal(err)
		}
		r := ds.Read
		if fmt.Sprint(ds.Counts) != tc.counts || ds.N != tc.n || !r.Apportioned || !r.Fractional || math.Abs(r.Rounding-tc.tv) > 1e-12 ||
			r.Weight != 4 || r.WeightKept != 4 || r.Rows != 4 || r.Kept != tc.n {
			t.Errorf("checkins %v: counts %v N %d, read %+v; want %s, N %d, rounding %v", tc.checkins, ds.Counts, ds.N, r, tc.counts, tc.n, tc.tv)
		}
	}
	// Whole weights are their own counts, unless checkins rescales them.
	write(t, dir, "whole.csv", "lat,lon,w\n52.9,14.5,3\n52.2,13.1,1\n")
	ds, err := gridOf(t, dir, &datasets.Decl{Points: "whole.csv", WeightColumn: col("w")})
	if err != nil || fmt.Sprint(ds.Counts) != "[3 0 0 1]" || ds.Read.Apportioned || ds.Read.Rounding != 0 {
		t.Errorf("whole weights: %v, %v", ds, err)
	}
	ds, err = gridOf(t, dir, &datasets.Decl{Points: "whole.csv", WeightColumn: col("w"), Checkins: n(8)})
	if err != nil || fmt.Sprint(ds.Counts) != "[6 0 0 2]" || !ds.Read.Apportioned || ds.Read.Rounding != 0 {
		t.Errorf("whole weights scaled to 8: %v, %v", ds, err)
	}
	// Densities that total less than half a check-in need checkins.
	write(t, dir, "dens.csv", "lat,lon,w\n52.9,14.5,0.001\n52.2,13.1,0.002\n")
	if _, err := gridOf(t, dir, &datasets.Decl{Points: "dens.csv", WeightColumn: col("w")}); err == nil || !strings.Contains(err.Error(), "rounds to 0 check-ins: give checkins = N") {
		t.Errorf("tiny densities: %v", err)
	}
}

// TestCatalogEmptyRegion: when no point lies in the region, the error
// counts the rows and the weight read, gives the points' own extent, and
// says when the region and the points meet with latitude and longitude
// swapped.
func TestCatalogEmptyRegion(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.csv", "lat,lon,w\n14.5,52.9,2\n13.1,52.2,0.5\n")
	_, err := gridOf(t, dir, &datasets.Decl{Points: "p.csv", WeightColumn: col("w")})
	for _, want := range []string{"no check-in inside the region lat [52, 53], lon [13, 15]", "2 rows read, weight 2.5",
		"the points span lat [13.1, 14.5], lon [52.2, 52.9]", "with latitude and longitude swapped they would meet"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	write(t, dir, "far.csv", "lat,lon\n-33.9,151.2\n")
	_, err = gridOf(t, dir, &datasets.Decl{Points: "far.csv"})
	if err == nil || !strings.Contains(err.Error(), "1 rows read, none inside it; the points span lat [-33.9, -33.9], lon [151.2, 151.2]") || strings.Contains(err.Error(), "swapped") {
		t.Errorf("far points: %v", err)
	}
}

// TestExpandPathRelativeEnv: a relative $PRIVIC_DATA is relative to the
// working directory, as in the shell that set it, not to the spec.
func TestExpandPathRelativeEnv(t *testing.T) {
	work := t.TempDir()
	write(t, work, "p.csv", "1,2\n1.001,2.001\n")
	t.Chdir(work)
	t.Setenv("PRIVIC_DATA", ".")
	specs := filepath.Join(t.TempDir(), "specs")
	if _, err := datasets.NewCatalog(specs, map[string]*datasets.Decl{"x": pointsDecl("$PRIVIC_DATA/p.csv", 100)}); err != nil {
		t.Error(err)
	}
}
