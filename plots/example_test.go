package plots_test

import (
	"bytes"
	"fmt"

	"privic/plots"
)

// A 2x3 distribution: row 0 is the north edge, column 0 the east edge, so
// Values[0] is drawn in the top-right cell. Marker A sits on the
// south-west cell (row 1, column 2).
func ExampleHeatmaps() {
	prior := plots.GridMap{
		Title:   "prior",
		Rows:    2,
		Cols:    3,
		Values:  []float64{0.30, 0.10, 0.05, 0.25, 0.20, 0.10},
		Markers: []plots.Marker{{Row: 1, Col: 2, Label: "A"}},
	}
	fig, err := plots.Heatmaps("Island prior", []plots.GridMap{prior}, plots.HeatOptions{ColorbarLabel: "probability"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var png, svg bytes.Buffer
	if err := fig.Encode(&png, "png"); err != nil {
		fmt.Println(err)
		return
	}
	if err := fig.Encode(&svg, "svg"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(png.Len() > 0, svg.Len() > 0)
	// Output: true true
}

// Mean EMD against beta with one-standard-deviation error bars.
func ExampleLines() {
	beta := []float64{0.5, 1, 1.5, 2}
	fig, err := plots.Lines("Statistical utility", []plots.Series{
		{Name: "BA", X: beta, Y: []float64{1.2, 0.8, 0.5, 0.4}, YErr: []float64{0.05, 0.04, 0.04, 0.03}},
		{Name: "LAP", X: beta, Y: []float64{1.4, 0.7, 0.4, 0.3}, YErr: []float64{0.06, 0.05, 0.03, 0.03}},
	}, plots.LineOptions{XLabel: "β", YLabel: "EMD (cells), mean ± sd", Points: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fig.Encode(&bytes.Buffer{}, "png"))
	// Output: <nil>
}

// Two point sets; Aspect = cos(latitude) keeps a longitude/latitude map
// undistorted.
func ExampleScatterWith() {
	fig, err := plots.ScatterWith("Check-ins", "longitude (°E)", "latitude (°N)", []plots.PointSet{
		{Name: "Paris", X: []float64{2.30, 2.35, 2.36}, Y: []float64{48.85, 48.86, 48.87}},
	}, plots.ScatterOptions{Aspect: 0.658})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fig.Encode(&bytes.Buffer{}, "svg"))
	// Output: <nil>
}
