package data

import (
	"bytes"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"privic/datasets"
	"privic/plots"
)

// declared returns the data kind's parameters on one declared dataset,
// "mine": the check-ins of the CSV text csv (columns lat, lon, w) over
// the box [45, 45.01] x [7, 7.0125] in 250 m cells (4 x 4).
func declared(t *testing.T, csv string) *params {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Datasets map[string]*datasets.Decl }
	if _, err := toml.Decode(`[datasets.mine]
title = "Mine"
points = "mine.csv"
lat_column = "lat"
lon_column = "lon"
weight_column = "w"
bbox = [45.0, 45.0088, 7.0, 7.0125]
cell_m = 250
`, &doc); err != nil {
		t.Fatal(err)
	}
	cat, err := datasets.NewCatalog(dir, doc.Datasets)
	if err != nil {
		t.Fatal(err)
	}
	p := def{}.NewParams()
	p.UseData(cat)
	p.Cities = []string{"mine"}
	return p
}

// TestScatterIsWeighted: the scatter of check-ins draws a marker per
// place with the weight of its check-ins (repeated points add up,
// fractional weights count as they are), and its title gives N, their
// total weight in the box, not the number of rows (it said "4 check-ins"
// of a file of weight 1004.5).
func TestScatterIsWeighted(t *testing.T) {
	p := declared(t, "lat,lon,w\n45.001,7.001,2.5\n45.001,7.001,1.5\n45.005,7.005,0.5\n45.008,7.010,1000\n46,7,9\n")
	pts, _, err := points(p, "mine")
	if err != nil {
		t.Fatal(err)
	}
	panel, _ := scatterPanel(p, "mine", pts, "mine.csv")
	if !strings.Contains(panel.Title, "N = 1004.5 check-ins in the box, at 3 places") {
		t.Errorf("scatter title %q, want the weighted count N = 1004.5 at 3 places", panel.Title)
	}
	if len(panel.Sets) != 1 || !slices.Equal(panel.Sets[0].W, []float64{4, 0.5, 1000}) {
		t.Errorf("scatter weights %v, want 4, 0.5 and 1000 by place", panel.Sets[0].W)
	}
	if _, err := plots.ScatterPanels("t", []plots.ScatterPanel{panel}, 0); err != nil {
		t.Error(err)
	}
	// Thinned to 2 places: every second place, with its own weight.
	p.ScatterMaxPoints = 2
	panel, _ = scatterPanel(p, "mine", pts, "mine.csv")
	if !strings.Contains(panel.Title, "N = 1004.5 check-ins in the box, at 3 places (1 in 2 drawn)") || !slices.Equal(panel.Sets[0].W, []float64{4, 1000}) {
		t.Errorf("thinned: title %q, weights %v", panel.Title, panel.Sets[0].W)
	}
}

// TestDensityEmptyCellsAreWhite: in the density map of a dataset with
// empty cells, those cells are white, apart from the colour map, whose
// lowest colour the least occupied cells take (empty cells used to take
// it too).
func TestDensityEmptyCellsAreWhite(t *testing.T) {
	// Four occupied cells of the 4 x 4 grid, of different weights.
	p := declared(t, "lat,lon,w\n45.001,7.001,1\n45.001,7.004,10\n45.005,7.005,100\n45.008,7.011,1000\n")
	ds, err := p.Dataset("mine", p.Rows)
	if err != nil {
		t.Fatal(err)
	}
	empty := 0
	for _, c := range ds.Counts {
		if c == 0 {
			empty++
		}
	}
	if ds.Grid.Len() != 16 || empty != 12 {
		t.Fatalf("grid %v with %d empty cells, want 4 x 4 with 12", ds.Grid, empty)
	}
	figs, err := densityFigures(p, "share of check-ins")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := figs[0].Fig.Encode(&buf, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The map's extent: from its lowest-colour to its top-colour pixels
	// (the least and the most occupied cells, in opposite corners).
	low, top := color.RGBA{0x44, 0x01, 0x54, 0xFF}, color.RGBA{0xFD, 0xE7, 0x25, 0xFF}
	minX, minY, maxX, maxY := 1<<30, 1<<30, -1, -1
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0xFF}
			if c == low || c == top {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
		}
	}
	white := 0
	for y := minY; y <= maxY; y++ {
		for x := minX; x <= maxX; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 == 0xFF && g>>8 == 0xFF && bl>>8 == 0xFF {
				white++
			}
		}
	}
	cell := float64((maxX-minX+1)*(maxY-minY+1)) / 16
	if float64(white) < 0.8*float64(empty)*cell {
		t.Errorf("%d white pixels in the map, want about %d empty cells of %.0f pixels", white, empty, cell)
	}
}
