package datasets

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"privic/kernels"
)

func TestSyntheticDeterministic(t *testing.T) {
	opt := SyntheticOptions{Rows: 20, Cols: 30, N: 50000, Hotspots: 4, Background: 0.1}
	a, err := Synthetic(rand.New(rand.NewPCG(7, 9)), opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthetic(rand.New(rand.NewPCG(7, 9)), opt)
	c, _ := Synthetic(rand.New(rand.NewPCG(7, 10)), opt)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different data sets")
	}
	if reflect.DeepEqual(a.Counts, c.Counts) {
		t.Error("different seeds, same counts")
	}
	if err := a.Validate(); err != nil {
		t.Error(err)
	}
	if a.Grid != (kernels.Grid{Rows: 20, Cols: 30}) || a.N != 50000 || a.Name != "synthetic" {
		t.Errorf("grid %v, N %d, name %q", a.Grid, a.N, a.Name)
	}
}

// integrate is Simpson's rule for the normal density over [a, b]: an
// independent check of the erfc-based cell masses.
func integrate(mu, sigma, a, b float64) float64 {
	const n = 200
	h := (b - a) / n
	pdf := func(x float64) float64 {
		z := (x - mu) / sigma
		return math.Exp(-z*z/2) / (sigma * math.Sqrt(2*math.Pi))
	}
	s := pdf(a) + pdf(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * pdf(a+float64(i)*h)
	}
	return s * h / 3
}

func TestMixturePrior(t *testing.T) {
	g := kernels.Grid{Rows: 7, Cols: 9}
	spots := []Hotspot{{Row: 2.3, Col: 6.1, Sigma: 1.2, Weight: 3}, {Row: 5, Col: 1, Sigma: 0.7, Weight: 1}}
	const bg = 0.2
	p, err := MixturePrior(g, spots, bg)
	if err != nil {
		t.Fatal(err)
	}
	// Independent: integrate each Gaussian over each cell numerically and
	// renormalise over the grid per axis.
	axis := func(n int, mu, s float64) []float64 {
		m := make([]float64, n)
		tot := 0.0
		for i := range m {
			m[i] = integrate(mu, s, float64(i)-0.5, float64(i)+0.5)
			tot += m[i]
		}
		for i := range m {
			m[i] /= tot
		}
		return m
	}
	sum := 0.0
	for i := range p {
		r, c := g.Cell(i)
		want := bg / float64(g.Len())
		for _, s := range spots {
			want += (1 - bg) * s.Weight / 4 * axis(g.Rows, s.Row, s.Sigma)[r] * axis(g.Cols, s.Col, s.Sigma)[c]
		}
		if math.Abs(p[i]-want) > 1e-9 {
			t.Errorf("cell (%d,%d): %v, numerical integration gives %v", r, c, p[i], want)
		}
		sum += p[i]
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("prior sums to %v", sum)
	}
	u, _ := MixturePrior(g, nil, 1)
	for _, v := range u {
		if v != 1/float64(g.Len()) {
			t.Fatalf("background 1 is not uniform: %v", u)
		}
	}
	bad := []struct {
		spots []Hotspot
		bg    float64
		want  string
	}{
		{nil, 0.5, "background = 0.5 < 1 needs at least one hotspot"},
		{spots, 1.5, "background = 1.5: want a fraction in [0, 1]"},
		{spots, math.NaN(), "background = NaN: want a fraction in [0, 1]"},
		{[]Hotspot{{Row: 9, Col: 1, Sigma: 1, Weight: 1}}, 0, "spot 0: centre (9, 1) is off the 7x9 grid"},
		{[]Hotspot{{Row: 1, Col: 1, Sigma: 0, Weight: 1}}, 0, "spot 0: sigma = 0: want a finite value > 0"},
		{[]Hotspot{{Row: 1, Col: 1, Sigma: 1, Weight: -1}}, 0, "spot 0: weight = -1: want a finite value > 0"},
	}
	for _, b := range bad {
		if _, err := MixturePrior(g, b.spots, b.bg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("MixturePrior(%v, %v): error %v, want one saying %q", b.spots, b.bg, err, b.want)
		}
	}
}

// TestSyntheticSampling checks the draws against MixturePrior with a
// chi-square statistic. Its negative control draws with a background of
// 0.06 instead of 0.05 (1% of the mass moved from the hotspots to the
// background) and must be rejected.
func TestSyntheticSampling(t *testing.T) {
	spots := []Hotspot{{Row: 1, Col: 2, Sigma: 0.8, Weight: 1}, {Row: 4, Col: 0, Sigma: 1.5, Weight: 2}}
	opt := SyntheticOptions{Rows: 5, Cols: 6, N: 200000, Spots: spots, Background: 0.05}
	p, _ := MixturePrior(kernels.Grid{Rows: opt.Rows, Cols: opt.Cols}, spots, opt.Background)
	chi := func(o SyntheticOptions, seed uint64) float64 {
		d, err := Synthetic(rand.New(rand.NewPCG(seed, 1)), o)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for i, k := range d.Counts {
			e := p[i] * float64(o.N)
			s += (float64(k) - e) * (float64(k) - e) / e
		}
		return s
	}
	// 29 degrees of freedom: P(chi2 > 70) is about 3e-5.
	if s := chi(opt, 1); s > 70 {
		t.Errorf("chi-square %v over 29 degrees of freedom: draws do not follow MixturePrior", s)
	}
	ctl := opt
	ctl.Background = 0.06
	if s := chi(ctl, 2); s <= 70 {
		t.Errorf("negative control (background 0.06 instead of 0.05): chi-square %v <= 70: the test cannot see a 1%% shift of mass", s)
	}
}

func TestSyntheticErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		opt  SyntheticOptions
		want string
	}{
		{SyntheticOptions{Rows: 0, Cols: 5, N: 10, Hotspots: 1}, "synthetic: grid 0x5: rows and cols must be > 0"},
		{SyntheticOptions{Rows: 5, Cols: 5, N: 0, Hotspots: 1}, "synthetic: n = 0: want 1 to 2147483648 check-ins"},
		{SyntheticOptions{Rows: 5, Cols: 5, N: 10}, "synthetic: hotspots = 0: want > 0, explicit spots, or background = 1"},
		{SyntheticOptions{Rows: 5, Cols: 5, N: 10, Hotspots: 1, Sigma: -1}, "synthetic: sigma = -1: want a finite value > 0"},
		{SyntheticOptions{Rows: 5, Cols: 5, N: 10, Hotspots: 1, Background: 2}, "synthetic: background = 2: want a fraction in [0, 1]"},
	} {
		if _, err := Synthetic(rng, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Synthetic(%+v): error %v, want one saying %q", tc.opt, err, tc.want)
		}
	}
	if _, err := Synthetic(nil, SyntheticOptions{Rows: 2, Cols: 2, N: 1, Background: 1}); err == nil || !strings.Contains(err.Error(), "synthetic: nil random source") {
		t.Errorf("nil rng: error %v", err)
	}
	d, err := Synthetic(rng, SyntheticOptions{Rows: 1, Cols: 1, N: 3, Background: 1, Name: "dot"})
	if err != nil || d.Counts[0] != 3 || d.Name != "dot" {
		t.Errorf("1x1 grid: %+v, %v", d, err)
	}
}

func BenchmarkSynthetic(b *testing.B) {
	opt := SyntheticOptions{Rows: 64, Cols: 64, N: 100000, Hotspots: 8, Background: 0.1}
	for b.Loop() {
		Synthetic(rand.New(rand.NewPCG(1, 2)), opt)
	}
}

// TestSyntheticBoundaries: one check-in, one hotspot and the background
// fractions 0 and 1 are all accepted; a background of exactly 1 needs no
// hotspot.
func TestSyntheticBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, opt := range []SyntheticOptions{
		{Rows: 3, Cols: 4, N: 1, Hotspots: 1},
		{Rows: 3, Cols: 4, N: 5, Hotspots: 1, Background: 0},
		{Rows: 3, Cols: 4, N: 5, Background: 1},
	} {
		d, err := Synthetic(rng, opt)
		if err != nil || d.N != opt.N || d.Validate() != nil {
			t.Errorf("Synthetic(%+v): %v", opt, err)
		}
	}
	g := kernels.Grid{Rows: 3, Cols: 4}
	for _, bg := range []float64{0, 1} {
		p, err := MixturePrior(g, []Hotspot{{Row: 1, Col: 1, Sigma: 1, Weight: 1}}, bg)
		if err != nil || math.Abs(total(p)-1) > 1e-12 {
			t.Errorf("background %v: total %v, %v", bg, total(p), err)
		}
	}
	// Background 1 is uniform.
	p, _ := MixturePrior(g, nil, 1)
	for i, v := range p {
		if math.Abs(v-1.0/12) > 1e-15 {
			t.Fatalf("background 1: cell %d = %v, want 1/12", i, v)
		}
	}
}

// TestSyntheticRandomHotspots: random hotspot centres are uniform over
// the grid's cell centres, [0, rows-1] x [0, cols-1], so the densest cell
// of a narrow hotspot on a 5 x 5 grid is in the last row in 1/8 of the
// cities (half a band of the four) and never elsewhere than the grid; and
// the default spread, at least half a cell, keeps a single hotspot
// concentrated (its densest cell holds over a tenth of the check-ins;
// a near-uniform city holds about 1/25).
func TestSyntheticRandomHotspots(t *testing.T) {
	const cities = 400
	lastRow, lastCol := 0, 0
	for seed := range uint64(cities) {
		d, err := Synthetic(rand.New(rand.NewPCG(seed, 9)), SyntheticOptions{Rows: 5, Cols: 5, N: 200, Hotspots: 1, Sigma: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		top := 0
		for i, c := range d.Counts {
			if c > d.Counts[top] {
				top = i
			}
		}
		if top/5 == 4 {
			lastRow++
		}
		if top%5 == 4 {
			lastCol++
		}
	}
	// Expected 50 of 400 each (sd 6.6); centres over [0, rows+1] would
	// give about 167.
	if lastRow < 25 || lastRow > 80 || lastCol < 25 || lastCol > 80 {
		t.Errorf("densest cell in the last row in %d and the last column in %d of %d cities, want about %d", lastRow, lastCol, cities, cities/8)
	}
	for seed := range uint64(50) {
		d, err := Synthetic(rand.New(rand.NewPCG(seed, 10)), SyntheticOptions{Rows: 5, Cols: 5, N: 2000, Hotspots: 1})
		if err != nil {
			t.Fatal(err)
		}
		if top := slices.Max(d.Counts); top < 2000/10 {
			t.Errorf("seed %d: the densest cell holds %d of 2000 check-ins", seed, top)
		}
	}
}

// TestMixturePriorNoMass: a hotspot so wide that each cell's share
// rounds to 0 puts no mass on the grid, which is refused.
func TestMixturePriorNoMass(t *testing.T) {
	g, _ := kernels.NewGrid(4, 4)
	_, err := MixturePrior(g, []Hotspot{{Row: 1, Col: 1, Sigma: 1e300, Weight: 1}}, 0)
	if err == nil || !strings.Contains(err.Error(), "no mass on the grid") {
		t.Errorf("error %v, want one saying there is no mass on the grid", err)
	}
}

// Random hotspots follow the documented law: centres uniform over the
// grid, spreads Sigma*U(0.5, 1.5), weights Exp(1), drawn hotspot by
// hotspot (row, column, spread, weight) before the check-ins. The test
// draws the hotspots by that law from a twin of the random source and
// hands them to Synthetic as explicit spots: the two cities must have
// the same counts, check-in for check-in. Spreads and weights are drawn
// far apart here (sigma 3 on a 25 x 40 grid), so a wrong law of either
// moves thousands of the 200,000 check-ins.
func TestSyntheticRandomHotspotsFollowTheDocumentedLaw(t *testing.T) {
	for _, sigma := range []float64{0, 3} {
		opt := SyntheticOptions{Rows: 25, Cols: 40, N: 200000, Hotspots: 3, Sigma: sigma, Background: 0.05}
		got, err := Synthetic(rand.New(rand.NewPCG(11, uint64(sigma))), opt)
		if err != nil {
			t.Fatal(err)
		}
		s := sigma
		if s == 0 {
			s = 40.0 / 10 // max(Rows, Cols)/10
		}
		twin := rand.New(rand.NewPCG(11, uint64(sigma)))
		spots := make([]Hotspot, opt.Hotspots)
		for i := range spots {
			spots[i].Row = twin.Float64() * 24
			spots[i].Col = twin.Float64() * 39
			spots[i].Sigma = s * (0.5 + twin.Float64())
			spots[i].Weight = twin.ExpFloat64()
		}
		explicit := opt
		explicit.Hotspots, explicit.Sigma, explicit.Spots = 0, 0, spots
		want, err := Synthetic(twin, explicit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Counts, want.Counts) {
			moved := 0
			for i := range got.Counts {
				moved += max(0, got.Counts[i]-want.Counts[i])
			}
			t.Errorf("sigma %v: the random hotspots are not %+v: %d of %d check-ins in other cells", sigma, spots, moved, opt.N)
		}
	}
}
