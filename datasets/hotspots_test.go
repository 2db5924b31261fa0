package datasets

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestHotspots: the city has the requested shape and N check-ins, the same
// side gives the same city and another side another, and the counts fit
// the documented density (recomputed here from the recipe, replaying the
// generator's first draws) by a chi-square test.
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
		again, _ := Hotspots(side)
		for i := range ds.Counts {
			if ds.Counts[i] != again.Counts[i] {
				t.Fatalf("side %d: two draws differ at cell %d", side, i)
			}
		}
		// The density of the recipe.
		rng := rand.New(rand.NewPCG(uint64(20261126+side), 0))
		m := side * side
		mix := make([]float64, m)
		for range 8 {
			cr, cc := rng.Float64()*float64(side), rng.Float64()*float64(side)
			s := float64(side) / 10 * (0.5 + rng.Float64())
			w := rng.ExpFloat64()
			for i := range mix {
				dr, dc := float64(i/side)-cr, float64(i%side)-cc
				mix[i] += w * math.Exp(-(dr*dr+dc*dc)/(2*s*s))
			}
		}
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
