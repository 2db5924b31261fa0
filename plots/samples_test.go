package plots

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// smoothGrid is a synthetic distribution: two Gaussian bumps plus a floor,
// normalised to sum to one.
func smoothGrid(rows, cols int, r1, c1, r2, c2 float64) []float64 {
	v := make([]float64, rows*cols)
	var sum float64
	for r := range rows {
		for c := range cols {
			d1 := (float64(r)-r1)*(float64(r)-r1) + (float64(c)-c1)*(float64(c)-c1)
			d2 := (float64(r)-r2)*(float64(r)-r2) + (float64(c)-c2)*(float64(c)-c2)
			x := math.Exp(-d1/6) + 0.5*math.Exp(-d2/3) + 0.01
			v[r*cols+c] = x
			sum += x
		}
	}
	for i := range v {
		v[i] /= sum
	}
	return v
}

// sampleDir is where the sample tests write their figures:
// $PRIVIC_PLOT_SAMPLES when set, for a human to look at, and otherwise a
// temporary directory (the tests then check only that every figure
// encodes to a decodable PNG and an SVG).
func sampleDir(t *testing.T) string {
	if dir := os.Getenv("PRIVIC_PLOT_SAMPLES"); dir != "" {
		return dir
	}
	return t.TempDir()
}

// TestWriteSamples renders sample heat maps (see sampleDir).
func TestWriteSamples(t *testing.T) {
	t.Parallel()
	dir := sampleDir(t)
	ab := []Marker{{Row: 6, Col: 3, Label: "A"}, {Row: 3, Col: 7, Label: "B"}}
	paris := GridMap{Title: "Paris prior (synthetic)", Rows: 11, Cols: 15, Values: smoothGrid(11, 15, 4, 8, 8, 2), Markers: ab}
	f, err := Heatmaps("Synthetic prior, 11 x 15 grid", []GridMap{paris}, HeatOptions{ColorbarLabel: "probability"})
	writeSample(t, dir, "heat_single", f, err)

	var panels []GridMap
	for i, eps := range []string{"0.4", "1.2", "1.6", "2"} {
		for j, mech := range []string{"BA", "LAP"} {
			v := smoothGrid(11, 15, 6-float64(i)/2, 3+float64(j), 3, 7)
			if j == 1 {
				v[0] = math.NaN()
			}
			panels = append(panels, GridMap{Title: mech + ", ε = " + eps, Rows: 11, Cols: 15, Values: v, Markers: ab[:1]})
		}
	}
	f, err = Heatmaps("Report distribution of A", panels, HeatOptions{Columns: 2, ColorbarLabel: "probability"})
	writeSample(t, dir, "heat_4x2", f, err)
	f, err = Heatmaps("Report distribution of A (shared, log)", panels, HeatOptions{Columns: 2, SharedScale: true, Log: true, ColorbarLabel: "probability"})
	writeSample(t, dir, "heat_4x2_shared_log", f, err)
	sf := GridMap{Title: "SF (synthetic)", Rows: 16, Cols: 24, Values: smoothGrid(16, 24, 5, 10, 12, 20)}
	f, err = Heatmaps("", []GridMap{sf, paris}, HeatOptions{ColorbarLabel: "probability"})
	writeSample(t, dir, "heat_mixed", f, err)
}

func TestWriteLineSamples(t *testing.T) {
	t.Parallel()
	dir := sampleDir(t)
	var beta []float64
	for k := 1; k <= 25; k++ {
		beta = append(beta, 0.2*float64(k))
	}
	ba := Series{Name: "BA"}
	lap := Series{Name: "LAP (ε = 2β)"}
	for _, b := range beta {
		ba.X = append(ba.X, b)
		ba.Y = append(ba.Y, 1.8*math.Exp(-b/1.2)+0.05)
		ba.YErr = append(ba.YErr, 0.03+0.02*math.Exp(-b))
		lap.X = append(lap.X, b)
		lap.Y = append(lap.Y, 2.1*math.Exp(-b/0.9)+0.01)
		lap.YErr = append(lap.YErr, 0.04*math.Exp(-b/2))
	}
	f, err := Lines("Statistical utility, Paris (synthetic)", []Series{ba, lap},
		LineOptions{XLabel: "β (ε = 2β)", YLabel: "EMD (cells), mean ± sd of 5", Points: true})
	writeSample(t, dir, "lines", f, err)
	f, err = Lines("Same, log y", []Series{ba, lap},
		LineOptions{XLabel: "β", YLabel: "EMD (cells)", Points: true, LogY: true})
	writeSample(t, dir, "lines_log", f, err)

	var cyc []Series
	for j, b := range []float64{0.5, 1} {
		s := Series{Name: "β = " + strconv.FormatFloat(b, 'g', -1, 64)}
		for k := 0; k <= 15; k++ {
			s.X = append(s.X, float64(k))
			s.Y = append(s.Y, 2.02*math.Exp(-float64(k)/(2+float64(j)))+0.2)
			s.YErr = append(s.YErr, 0.05)
		}
		cyc = append(cyc, s)
	}
	f, err = LinePanels("PRIVIC convergence (synthetic)", []Panel{
		{Title: "Paris", Series: cyc, Opt: LineOptions{XLabel: "cycle", YLabel: "EMD (cells)", Points: true, YFromZero: true}},
		{Title: "San Francisco", Series: cyc[:1], Opt: LineOptions{XLabel: "cycle", YLabel: "EMD (cells)"}},
		{Title: "rising", Series: []Series{{Name: "up", X: beta, Y: beta}, {Name: "flat", X: beta, Y: make([]float64, len(beta))}}, Opt: LineOptions{XLabel: "β", YLabel: "value"}},
	}, 2)
	writeSample(t, dir, "line_panels", f, err)
}

func writeSample(t *testing.T, dir, name string, f *Figure, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, ext := range []string{"png", "svg"} {
		fh, err := os.Create(filepath.Join(dir, name+"."+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Encode(fh, ext); err != nil {
			t.Fatalf("%s.%s: %v", name, ext, err)
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() < 100 || img.Bounds().Dy() < 100 {
		t.Errorf("%s.png: %v, decoding error %v", name, img.Bounds(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("%s.svg: not an SVG (%v)", name, err)
	}
}

func TestWriteScatterSamples(t *testing.T) {
	t.Parallel()
	dir := sampleDir(t)
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(name string, lat0, lon0 float64, n int) PointSet {
		s := PointSet{Name: name}
		for range n {
			s.Y = append(s.Y, lat0+rng.NormFloat64()*0.01)
			s.X = append(s.X, lon0+rng.NormFloat64()*0.02)
		}
		return s
	}
	paris := mk("Paris check-ins", 48.86, 2.34, 3000)
	other := mk("other", 48.87, 2.30, 500)
	f, err := ScatterWith("Check-ins (synthetic)", "longitude (°E)", "latitude (°N)", []PointSet{paris, other},
		ScatterOptions{Aspect: math.Cos(48.86 * math.Pi / 180)})
	writeSample(t, dir, "scatter", f, err)
	sf := mk("SF check-ins", 37.76, -122.44, 5000)
	f, err = ScatterPanels("Gowalla check-ins (synthetic)", []ScatterPanel{
		{Title: "Paris", XLabel: "longitude (°E)", YLabel: "latitude (°N)", Sets: []PointSet{paris}, Opt: ScatterOptions{Aspect: math.Cos(48.86 * math.Pi / 180)}},
		{Title: "San Francisco", XLabel: "longitude (°E)", YLabel: "latitude (°N)", Sets: []PointSet{sf}, Opt: ScatterOptions{Aspect: math.Cos(37.76 * math.Pi / 180)}},
	}, 0)
	writeSample(t, dir, "scatter_panels", f, err)
}

func TestWriteEdgeSamples(t *testing.T) {
	t.Parallel()
	dir := sampleDir(t)
	tall := GridMap{Title: "tall 30 x 3", Rows: 30, Cols: 3, Values: smoothGrid(30, 3, 10, 1, 25, 2)}
	one := GridMap{Title: "one cell", Rows: 1, Cols: 1, Values: []float64{0.5}, Markers: []Marker{{Label: "AB"}}}
	big := GridMap{Title: "60 x 80, log", Rows: 60, Cols: 80, Values: smoothGrid(60, 80, 20, 30, 45, 60), Markers: []Marker{{Row: 20, Col: 30, Label: "A"}}}
	f, err := Heatmaps("Edge cases", []GridMap{tall, one, big}, HeatOptions{Log: true, ColorbarLabel: "probability"})
	writeSample(t, dir, "heat_edge", f, err)
}
