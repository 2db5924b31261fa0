package datasets

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSanFranciscoAt100m grids the raw San Francisco check-ins (the
// paper's subset, from ../shared) in 100 m cells over the paper's region
// and checks every cell's count against a brute-force count written from
// the documented geometry alone: the point's offsets in metres from the
// region's north-east corner (with the WGS 84 radii of curvature at the
// region's centre written out here, not MetresPerDegree; the published
// series of TestMetresPerDegree is only good to a few centimetres per
// degree, which moves one of these points across an edge), and the first
// band whose southern or western edge the offset does not pass.
func TestSanFranciscoAt100m(t *testing.T) {
	dir := sharedGowalla(t)
	box := Box{LatMin: 37.7228, LatMax: 37.7946, LonMin: -122.5153, LonMax: -122.3789}
	c, err := NewCatalog(dir, map[string]*Decl{"sf100": {
		Points: CheckinsFile("sf"), Header: new(bool), CellM: new(100.0),
		BBox: []float64{box.LatMin, box.LatMax, box.LonMin, box.LonMax},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.Load("sf100", HeaderQuirk)
	if err != nil {
		t.Fatal(err)
	}
	// About 9,700 cells: 8.0 km by 12.0 km.
	if ds.Grid.Rows != 80 || ds.Grid.Cols != 121 {
		t.Fatalf("grid %v, want 80 x 121", ds.Grid)
	}
	const a, invF = 6378137.0, 298.257223563 // WGS 84
	e2 := (2 - 1/invF) / invF
	phi := (box.LatMin + box.LatMax) / 2 * math.Pi / 180
	w := 1 - e2*math.Sin(phi)*math.Sin(phi)
	mLat := a * (1 - e2) / math.Pow(w, 1.5) * math.Pi / 180  // meridional radius
	mLon := a / math.Sqrt(w) * math.Cos(phi) * math.Pi / 180 // prime vertical radius times cos
	band := func(off float64, n int) int {
		for k := 0; k < n; k++ {
			if off <= float64(k+1)*100 {
				return k
			}
		}
		return n - 1
	}
	f, err := os.Open(filepath.Join(dir, CheckinsFile("sf")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := make([]int, ds.Grid.Len())
	n, outside := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lat, err1 := strconv.ParseFloat(strings.Split(sc.Text(), ",")[0], 64)
		lon, err2 := strconv.ParseFloat(strings.Split(sc.Text(), ",")[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %q", sc.Text())
		}
		if !box.Contains(lat, lon) {
			outside++
			continue
		}
		want[band((box.LatMax-lat)*mLat, 80)*121+band((box.LonMax-lon)*mLon, 121)]++
		n++
	}
	if n != 123026 || ds.N != n || ds.Read.Dropped != outside {
		t.Errorf("%d check-ins (%d outside), the dataset %d (%d dropped); want all 123,026 of the subset", n, outside, ds.N, ds.Read.Dropped)
	}
	diff := 0
	for i := range want {
		if want[i] != ds.Counts[i] {
			diff++
			if diff <= 5 {
				t.Errorf("cell %d (%d, %d): %d check-ins, brute force %d", i, i/121, i%121, ds.Counts[i], want[i])
			}
		}
	}
	if diff > 0 {
		t.Errorf("%d of %d cells differ from the brute-force count", diff, len(want))
	}
}
