package bavslap

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/reftest"
	"privic/kernels"
	"privic/kernels/mechanism"
)

// tinyDataset is a 3x4 synthetic city.
func tinyDataset() *datasets.Dataset {
	counts := []int{5, 0, 3, 1, 0, 8, 2, 0, 1, 0, 0, 4}
	n := 0
	for _, c := range counts {
		n += c
	}
	return &datasets.Dataset{Name: "tiny", Grid: kernels.Grid{Rows: 3, Cols: 4}, Counts: counts, N: n}
}

// TestUtilityEMDMatchesIndependentComputation runs the ba-vs-lap job on a
// tiny synthetic city and recomputes every utility row: the reports are
// redrawn with the same streams (kernels.Obfuscate generates the input),
// the estimate comes from a plain IBU on a plainly built channel, and the
// EMD, true and reference-defective, from gonum's LP simplex.
func TestUtilityEMDMatchesIndependentComputation(t *testing.T) {
	p := def{}.NewParams()
	p.Sims, p.LapWiden, p.ReferenceDefectSims = 3, 1, 2
	ds := tinyDataset()
	// The reference code's defect is replayed on the presets only: the
	// tiny city stands for one here, and without the mark has no
	// defective values at all.
	ds.Preset = true
	const beta = 0.7
	key := "city=tiny/beta=0.7"
	ts, err := def{}.Run(context.Background(), job{p: p, ds: ds, beta: beta}, harness.JobRand(9, key))
	if err != nil {
		t.Fatal(err)
	}
	util := reftest.Table(t, ts, "utility")
	if len(util.Rows) != 2*p.Sims {
		t.Fatalf("%d utility rows, want %d", len(util.Rows), 2*p.Sims)
	}
	g, wide := ds.Grid, ds.Grid.Widen(1)
	prior := ds.Prior()
	kba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	seeds := simSeeds(harness.JobRand(9, key), p.Sims, 2)
	Cba := reftest.BA(g, prior, beta, 10)
	baseCost := func(i, j int) float64 { return reftest.Dist(g, i, g, j) }
	wideCost := func(i, j int) float64 { return reftest.Dist(wide, i, wide, j) }
	for _, r := range util.Rows {
		sim, mech := reftest.Int(t, util, r, "sim"), reftest.Cell(t, util, r, "mechanism")
		eps := reftest.Float(t, util, r, "epsilon")
		var kch *kernels.Channel
		var C [][]float64
		k := 0
		if mech == "ba" {
			kch, C = kba.Channel(), Cba
		} else {
			k = 1
			if kch, err = kernels.Laplace(g, wide, eps); err != nil {
				t.Fatal(err)
			}
			C = reftest.Laplace(g, wide, eps)
		}
		reports, err := kernels.Obfuscate(rand.New(rand.NewPCG(seeds[sim][k][0], seeds[sim][k][1])), ds.Counts, kch)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range reports {
			n += v
		}
		if n != ds.N || reftest.Int(t, util, r, "n_reports") != ds.N {
			t.Fatalf("%d reports (table %s), want N = %d", n, reftest.Cell(t, util, r, "n_reports"), ds.N)
		}
		q := make([]float64, len(reports))
		for y, v := range reports {
			q[y] = float64(v) / float64(n)
		}
		est := reftest.IBU(C, q, 10)
		if want, got := reftest.EMD(t, est, prior, baseCost), reftest.Float(t, util, r, "emd"); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s sim %d: emd %v, LP on plain IBU estimate %v", mech, sim, got, want)
		}
		if sim >= p.ReferenceDefectSims {
			if s := reftest.Cell(t, util, r, "emd_reference_defect"); s != "" {
				t.Errorf("%s sim %d: emd_reference_defect = %q beyond reference_defect_sims", mech, sim, s)
			}
			continue
		}
		wantDefect := reftest.Float(t, util, r, "emd")
		if mech == "lap" {
			wantDefect = reftest.EMD(t, prior, est, wideCost)
		}
		if got := reftest.Float(t, util, r, "emd_reference_defect"); math.Abs(got-wantDefect) > 1e-9 {
			t.Errorf("%s sim %d: emd_reference_defect %v, want %v", mech, sim, got, wantDefect)
		}
	}
	// Fewer simulations reproduce the first ones of a longer run.
	p2 := *p
	p2.Sims = 2
	ts2, err := def{}.Run(context.Background(), job{p: &p2, ds: ds, beta: beta}, harness.JobRand(9, key))
	if err != nil {
		t.Fatal(err)
	}
	u2 := reftest.Table(t, ts2, "utility")
	for i, r := range u2.Rows {
		if strings.Join(r, ",") != strings.Join(util.Rows[i], ",") {
			t.Errorf("sims=2 row %d = %v, sims=3 gives %v", i, r, util.Rows[i])
		}
	}
	// The same city as a dataset of its own: the same EMDs, and no
	// defective value (the defect is the reference code's, replayed on the
	// presets alone).
	own := tinyDataset()
	ts3, err := def{}.Run(context.Background(), job{p: p, ds: own, beta: beta}, harness.JobRand(9, key))
	if err != nil {
		t.Fatal(err)
	}
	u3 := reftest.Table(t, ts3, "utility")
	for i, r := range u3.Rows {
		if got, want := reftest.Cell(t, u3, r, "emd"), reftest.Cell(t, util, util.Rows[i], "emd"); got != want {
			t.Errorf("own dataset row %d: emd %s, the preset's %s", i, got, want)
		}
		if s := reftest.Cell(t, u3, r, "emd_reference_defect"); s != "" {
			t.Errorf("own dataset row %d: emd_reference_defect = %q, want none", i, s)
		}
	}
}

// TestPointEMDMatchesKernel checks that the tabulated EMD of the BA vs
// LAP jobs gives exactly kernels.EMD's value, on the base grid and in the
// reference code's defective placement on a widened grid, and rejects
// what kernels.EMD rejects.
func TestPointEMDMatchesKernel(t *testing.T) {
	g, err := kernels.NewGrid(5, 7)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, wide := range []kernels.Grid{g, g.Widen(3)} {
		e, err := newPointEMD(wide, g.Len())
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 20; trial++ {
			p, q := make([]float64, g.Len()), make([]float64, g.Len())
			for i := range p {
				if rng.IntN(3) > 0 {
					p[i] = rng.Float64()
				}
				q[i] = rng.Float64()
			}
			for _, v := range [][]float64{p, q} {
				s := 0.0
				for _, x := range v {
					s += x
				}
				for i := range v {
					v[i] /= s
				}
			}
			got, err := e.dist(p, q)
			if err != nil {
				t.Fatal(err)
			}
			pw, qw := make([]float64, wide.Len()), make([]float64, wide.Len())
			copy(pw, p)
			copy(qw, q)
			want, err := kernels.EMD(wide, pw, wide, qw)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("grid %v trial %d: pointEMD %v, kernels.EMD %v", wide, trial, got, want)
			}
		}
		bad := make([]float64, g.Len())
		bad[0] = 2
		if _, err := e.dist(bad, bad); err == nil {
			t.Errorf("grid %v: accepted masses summing to 2", wide)
		}
	}
}

// TestFigureStyles: BA and LAP are drawn in their registry colours, and
// the reference code's EMD of LAP in LAP's colour too: no colour of a
// mechanism that did not run (it used to take the palette's third
// colour, the k-RR mechanism's green in the mechanism figures).
func TestFigureStyles(t *testing.T) {
	p := def{}.NewParams()
	p.Sims, p.ReferenceDefectSims = 3, 2
	var cells []*cell
	for _, beta := range []float64{0.5, 1, 2} {
		for _, m := range []string{"ba", "lap"} {
			c := &cell{city: "paris", mech: m, beta: beta, emd: []float64{1, 2, 3}, mean: 2 / beta, sd: 0.1}
			if m == "lap" {
				c.defect, c.dMean, c.dSD = []float64{1, 1}, 3/beta, 0.2
			}
			cells = append(cells, c)
		}
	}
	fig, err := figure(p, "paris", "fig3a", cells)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := fig.Encode(&buf, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	count := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0xFF}]++
		}
	}
	for _, e := range mechanism.Builtin() {
		n := count[e.Style.Color]
		switch e.Name {
		case "ba", "lap":
			if n < 100 {
				t.Errorf("%d pixels in %s's colour", n, e.Name)
			}
		default:
			if n > 0 {
				t.Errorf("%d pixels in the colour of %s, which did not run", n, e.Name)
			}
		}
	}
}
