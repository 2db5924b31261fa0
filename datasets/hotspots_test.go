package datasets

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestHotspots: the city has the requested shape and N check-ins, the same
// side gives the same city and another side another, and the counts fit
// the documented density (the hotspot mixture of the generator's first
// draws, 95%, plus 5% spread evenly) by a chi-square test.
func TestHotspots(t *testing.T) {
	for _, side := range []int{16, 64} {
		ds, err := Hotspots(side)
		if err != nil {
			t.Fatal(err)
		}
		if err := ds.Validate(); err != nil {
			t.Fatal(err)
		}
		if ds.Grid.Rows != side || ds.Grid.Cols != side || ds.N != HotspotN {
			t.Fatalf("side %d: grid %v with %d check-ins", side, ds.Grid, ds.N)
		}
		if want := fmt.Sprintf("(Go generator, seed %d)", 20261126+side); !strings.Contains(ds.Source, want) {
			t.Errorf("side %d: source %q does not name the seed: %s", side, ds.Source, want)
		}
		again, _ := Hotspots(side)
		for i := range ds.Counts {
			if ds.Counts[i] != again.Counts[i] {
				t.Fatalf("side %d: two draws differ at cell %d", side, i)
			}
		}
		// The density of the recipe.
		m := side * side
		mix := hotspotMixture(side, rand.New(rand.NewPCG(uint64(20261126+side), 0)))
		total := 0.0
		for _, v := range mix {
			total += v
		}
		stat, bins := 0.0, 0
		var po, pe float64
		for i, v := range mix {
			e := HotspotN * (0.95*v/total + 0.05/float64(m))
			o := float64(ds.Counts[i])
			if e < 5 {
				po, pe = po+o, pe+e
				continue
			}
			stat += (o - e) * (o - e) / e
			bins++
		}
		if pe > 0 {
			stat += (po - pe) * (po - pe) / pe
			bins++
		}
		if crit := (distuv.ChiSquared{K: float64(bins - 1)}).Quantile(0.999); stat > crit {
			t.Errorf("side %d: counts do not fit the density: chi-square %.1f > %.1f (df %d)", side, stat, crit, bins-1)
		}
	}
	a, _ := Hotspots(32)
	b, _ := Hotspots(33)
	if a.Grid == b.Grid {
		t.Error("sides 32 and 33 give the same grid")
	}
	if _, err := Hotspots(0); err == nil {
		t.Error("side 0 accepted")
	}
	if _, err := Hotspots(2000); err == nil {
		t.Error("side 2000 (4 million cells) accepted")
	}
}

// ReadHotspots reads the peer's format (comments, header, cells left out)
// and refuses malformed lines naming the file and line.
func TestReadHotspots(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.csv", "# synthetic hotspot city\nrow,col,count\n0,0,3\n1,2,5\n2,1,0\n\n0,0,1\n")
	ds, err := ReadHotspots(ok, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{4, 0, 0, 0, 0, 5, 0, 0, 0}
	for i, c := range want {
		if ds.Counts[i] != c {
			t.Fatalf("counts %v, want %v", ds.Counts, want)
		}
	}
	if ds.N != 9 || ds.Grid.Rows != 3 || ds.Validate() != nil {
		t.Errorf("dataset %+v", ds)
	}
	for _, bad := range []struct{ body, want string }{
		{"row,col,count\n0,0\n", "bad.csv:2"},
		{"row,col,count\n0,x,1\n", "bad.csv:2: field 2"},
		{"row,col,count\n0,3,1\n", "outside the 3x3 grid"},
		{"row,col,count\n3,0,1\n", "bad.csv:2: cell (3,0) count 1 outside the 3x3 grid"},
		{"row,col,count\n-1,0,1\n", "bad.csv:2: cell (-1,0) count 1 outside the 3x3 grid"},
		{"row,col,count\n0,-1,1\n", "bad.csv:2: cell (0,-1) count 1 outside the 3x3 grid"},
		{"row,col,count\n0,0,-1\n", "negative"},
		{"row,col,count\n", "no check-ins"},
	} {
		_, err := ReadHotspots(write("bad.csv", bad.body), 3)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.body, err, bad.want)
		}
	}
	if _, err := ReadHotspots(filepath.Join(dir, "missing.csv"), 3); err == nil {
		t.Error("a missing file was read")
	}
}
