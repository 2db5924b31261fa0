package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestHotspots: the city has the requested shape and N check-ins, the same
// side gives the same city and another side another, and the counts fit
// the documented density (95% the hotspot mixture of the generator's first
// draws, 5% spread evenly) by a chi-square test. recipeMixture writes the
// mixture out again on purpose: a test that called the generator's own
// hotspotMixture could not see a wrong centre, spread or weight in it.
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
		mix := recipeMixture(side, rand.New(rand.NewPCG(uint64(20261126+side), 0)))
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

// recipeMixture is the hotspot city's unnormalised density by its recipe,
// cell by cell: eight Gaussian bumps, each drawn as a centre uniform on
// [0, side)^2, a spread of side/10 times U(0.5, 1.5) and an Exp(1) weight.
func recipeMixture(side int, rng *rand.Rand) []float64 {
	type bump struct{ r, c, s, w float64 }
	var bumps [8]bump
	for k := range bumps {
		r := rng.Float64() * float64(side)
		c := rng.Float64() * float64(side)
		bumps[k] = bump{r, c, float64(side) / 10 * (0.5 + rng.Float64()), rng.ExpFloat64()}
	}
	mix := make([]float64, 0, side*side)
	for row := range side {
		for col := range side {
			v := 0.0
			for _, b := range bumps {
				d := math.Hypot(float64(row)-b.r, float64(col)-b.c)
				v += b.w * math.Exp(-d*d/(2*b.s*b.s))
			}
			mix = append(mix, v)
		}
	}
	return mix
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
