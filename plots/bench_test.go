package plots

import (
	"io"
	"math/rand/v2"
	"testing"
)

// elasticPanels mimics the elastic figure: 4 x 2 panels of 11 x 15 maps.
func elasticPanels() []GridMap {
	var panels []GridMap
	for i := range 8 {
		panels = append(panels, GridMap{Title: "panel", Rows: 11, Cols: 15,
			Values: smoothGrid(11, 15, float64(i), 3, 3, 7), Markers: []Marker{{Row: 6, Col: 3, Label: "A"}}})
	}
	return panels
}

func benchEncode(b *testing.B, f *Figure, err error, format string) {
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := f.Encode(io.Discard, format); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeatmaps4x2PNG(b *testing.B) {
	f, err := Heatmaps("elastic", elasticPanels(), HeatOptions{Columns: 2, ColorbarLabel: "probability"})
	benchEncode(b, f, err, "png")
}

func BenchmarkHeatmaps4x2SVG(b *testing.B) {
	f, err := Heatmaps("elastic", elasticPanels(), HeatOptions{Columns: 2, ColorbarLabel: "probability"})
	benchEncode(b, f, err, "svg")
}

func BenchmarkLinesPNG(b *testing.B) {
	x := make([]float64, 25)
	y := make([]float64, 25)
	e := make([]float64, 25)
	for i := range x {
		x[i], y[i], e[i] = 0.2*float64(i+1), 2/float64(i+1), 0.05
	}
	f, err := Lines("utility", []Series{{Name: "BA", X: x, Y: y, YErr: e}, {Name: "LAP", X: x, Y: y, YErr: e}},
		LineOptions{XLabel: "β", YLabel: "EMD", Points: true})
	benchEncode(b, f, err, "png")
}

// BenchmarkScatterSFPNG draws about as many distinct points as the SF
// check-ins have (about 9000 venues).
func BenchmarkScatterSFPNG(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := PointSet{Name: "SF"}
	for range 9000 {
		s.X = append(s.X, -122.44+0.03*rng.NormFloat64())
		s.Y = append(s.Y, 37.76+0.02*rng.NormFloat64())
	}
	f, err := ScatterWith("check-ins", "lon", "lat", []PointSet{s}, ScatterOptions{Aspect: 0.79})
	benchEncode(b, f, err, "png")
}
