package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// bigArange emulates NumPy's fill loop in software arithmetic (each
// operation rounded once to float64, so no fused multiply-add can creep
// in): v[0] = start, v[1] = start+step, v[i] = start + i*((start+step)-start).
func bigArange(start, stop, step float64, n int) []float64 {
	f := func(x float64) *big.Float { return new(big.Float).SetPrec(53).SetFloat64(x) }
	round := func(x *big.Float) float64 { v, _ := x.Float64(); return v }
	v := make([]float64, n)
	v[0] = start
	if n == 1 {
		return v
	}
	v[1] = round(new(big.Float).SetPrec(53).Add(f(start), f(step)))
	delta := round(new(big.Float).SetPrec(53).Sub(f(v[1]), f(start)))
	for i := 2; i < n; i++ {
		prod := round(new(big.Float).SetPrec(53).Mul(f(float64(i)), f(delta)))
		v[i] = round(new(big.Float).SetPrec(53).Add(f(start), f(prod)))
	}
	return v
}

func TestArangeKnownValues(t *testing.T) {
	// NumPy's documented pitfall: arange(1, 1.3, 0.1) has 4 values because
	// (1.3-1)/0.1 = 3.0000000000000004 rounds up.
	got, err := Arange(1, 1.3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("arange(1, 1.3, 0.1) has %d values, want 4", len(got))
	}
	// delta = 1.1 - 1 = 0.10000000000000009, so v[2] = 1 + 2*delta is
	// 1.2000000000000002, not 1 + 2*0.1 = 1.2.
	if got[2] != 1.2000000000000002 || got[3] != 1.3000000000000003 {
		t.Errorf("arange(1, 1.3, 0.1) = %v, want v[2] = 1.2000000000000002, v[3] = 1.3000000000000003", got)
	}
	got, _ = Arange(0, 1, 0.1)
	want := []float64{0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("arange(0, 1, 0.1) = %v, want %v", got, want)
	}
	if got, _ := Arange(1, 1, 0.1); len(got) != 0 {
		t.Errorf("arange(1, 1, 0.1) = %v, want empty", got)
	}
	if got, _ := Arange(0, 1e-320, 1e300); len(got) != 1 {
		t.Errorf("arange with an underflowing quotient = %v, want one value", got)
	}
	for _, bad := range []struct {
		args [3]float64
		want string
	}{
		{[3]float64{0, 1, 0}, "arange(0, 1, 0): step must not be 0"},
		{[3]float64{math.NaN(), 1, 0.1}, "arange(NaN, 1, 0.1): arguments must be finite"},
		{[3]float64{0, math.Inf(1), 0.1}, "arange(0, +Inf, 0.1): arguments must be finite"},
		{[3]float64{0, 1e9, 1e-9}, "arange(0, 1e+09, 1e-09): 1e+18 values is more than 1048576"},
	} {
		if _, err := Arange(bad.args[0], bad.args[1], bad.args[2]); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Arange(%v): error %v, want one saying %q", bad.args, err, bad.want)
		}
	}
}

func TestArangeMatchesSoftwareFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][3]float64{
		{48.8286, 48.8798, 0.00427}, {2.2855, 2.3909, 0.0066},
		{37.7228, 37.7946, 0.0044875}, {-122.5153, -122.3789, 0.005683},
	}
	for range 200 {
		start := (rng.Float64() - 0.5) * 360
		step := math.Pow(10, -1-3*rng.Float64())
		cases = append(cases, [3]float64{start, start + step*float64(1+rng.IntN(60)) + step*rng.Float64(), step})
	}
	for _, c := range cases {
		got, err := Arange(c[0], c[1], c[2])
		if err != nil {
			t.Fatal(err)
		}
		if n := int(math.Ceil((c[1] - c[0]) / c[2])); len(got) != n {
			t.Fatalf("arange%v: %d values, want ceil((stop-start)/step) = %d", c, len(got), n)
		}
		if want := bigArange(c[0], c[1], c[2], len(got)); !reflect.DeepEqual(got, want) {
			t.Fatalf("arange%v = %v, software float gives %v", c, got, want)
		}
	}
}

func TestEdgeCountsMatchREADME(t *testing.T) {
	// Edge counts of the published subsets' grids.
	want := map[string][2]int{"paris": {12, 16}, "sf": {17, 25}}
	for _, c := range Cities() {
		d, err := c.Discretizer()
		if err != nil {
			t.Fatal(err)
		}
		lat, lon := d.LatEdges(), d.LonEdges()
		if got := [2]int{len(lat), len(lon)}; got != want[c.Name] {
			t.Errorf("%s: %v edges, README says %v", c.Name, got, want[c.Name])
		}
		for i := 1; i < len(lat); i++ {
			if !(lat[i] < lat[i-1]) {
				t.Errorf("%s: latitude edges not descending at %d", c.Name, i)
			}
		}
		if lat[len(lat)-1] != c.Box.LatMin || lon[len(lon)-1] != c.Box.LonMin {
			t.Errorf("%s: smallest edges %v, %v, want the box minima", c.Name, lat[len(lat)-1], lon[len(lon)-1])
		}
		// Rounding can put the last arange value a hair above stop (SF:
		// 37.79460000000005 > 37.7946, hence its 17th latitude edge), but
		// never by a sizeable fraction of a step.
		if lat[0] >= c.Box.LatMax+c.LatStep/1e6 || lon[0] >= c.Box.LonMax+c.LonStep/1e6 {
			t.Errorf("%s: largest edges %v, %v lie beyond the box maxima", c.Name, lat[0], lon[0])
		}
	}
}

func TestDiscretizerRules(t *testing.T) {
	// Edges 3, 2, 1, 0 on both axes: rows/cols 0..2, row 0 north, col 0 east.
	city := func(r Rule) City {
		return City{Name: "toy", Box: Box{LatMin: 0, LatMax: 4, LonMin: 0, LonMax: 4}, LatStep: 1, LonStep: 1, Rule: r}
	}
	cases := []struct {
		rule     Rule
		lat, lon float64
		want     []Cell
	}{
		{UpperClosed, 2.5, 0.5, []Cell{{0, 2}}},
		{UpperClosed, 3, 3, []Cell{{0, 0}}},          // top edge belongs to the band below it
		{UpperClosed, 2, 2.5, []Cell{{1, 0}}},        // on an interior edge: only the band below it
		{UpperClosed, 0, 1, nil},                     // the lowest edge is open
		{UpperClosed, 3.5, 1, nil},                   // between the last edge and the box maximum
		{BothClosed, 0, 0, []Cell{{2, 2}}},           // the lowest edge is closed
		{BothClosed, 2, 2.5, []Cell{{0, 0}, {1, 0}}}, // on an interior latitude edge: two cells
		{BothClosed, 2, 2, []Cell{{0, 0}, {0, 1}, {1, 0}, {1, 1}}},
		{BothClosed, 3.5, 1, nil},
	}
	for _, c := range cases {
		d, err := city(c.rule).Discretizer()
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows() != 3 || d.Cols() != 3 {
			t.Fatalf("toy grid %dx%d, want 3x3", d.Rows(), d.Cols())
		}
		if got := d.Cells(c.lat, c.lon, nil); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: (%v, %v) -> %v, want %v", c.rule, c.lat, c.lon, got, c.want)
		}
	}
}

func TestLookup(t *testing.T) {
	c, err := Lookup("paris")
	if err != nil || c.Name != "paris" || c.Rule != UpperClosed {
		t.Fatalf("Lookup(paris) = %+v, %v", c, err)
	}
	// Names are exact: one city, one spelling in keys and file names.
	for _, other := range []string{"Paris", " paris", "PARIS"} {
		if _, err := Lookup(other); err == nil {
			t.Errorf("Lookup(%q) accepted", other)
		}
	}
	_, err = Lookup("lyon")
	if err == nil || !strings.Contains(err.Error(), `"lyon"`) || !strings.Contains(err.Error(), "paris, sf") {
		t.Fatalf("Lookup(lyon) error %v, want it to name lyon and list paris, sf", err)
	}
	for _, c := range Cities() {
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{(City{Name: "x", Box: Box{0, 1, 0, 1}, LatStep: 0, LonStep: 1}).Validate(), `city "x": steps must be finite and > 0 (lat 0, lon 1)`},
		{(City{Name: "x", Box: Box{0, 1, 0, 1}, LatStep: 1, LonStep: 0}).Validate(), `city "x": steps must be finite and > 0 (lat 1, lon 0)`},
		{(City{Name: "x", Box: Box{0, 1, 0, 1}, LatStep: 1, LonStep: math.Inf(1)}).Validate(), `city "x": steps must be finite and > 0 (lat 1, lon +Inf)`},
		{(City{Name: "x", Box: Box{0, 1, 0, 1}, LatStep: math.Inf(1), LonStep: 1}).Validate(), `city "x": steps must be finite and > 0 (lat +Inf, lon 1)`},
		{(City{Name: "x", Box: Box{0, 1, 0, 1}, LatStep: 1, LonStep: 1, Rule: 7}).Validate(), `city "x": unknown boundary rule 7`},
		{(Box{LatMin: 1, LatMax: 0, LonMin: 0, LonMax: 1}).Validate(), "box lat [1, 0], lon [0, 1]: minimum above maximum"},
		{(Box{LatMin: -91, LatMax: 0, LonMin: 0, LonMax: 1}).Validate(), "box lat [-91, 0], lon [0, 1]: latitude must lie in [-90, 90] and longitude in [-180, 180]"},
		{(Box{LatMin: 0, LatMax: 1, LonMin: 0, LonMax: 181}).Validate(), "longitude in [-180, 180]"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want one saying %q", tc.err, tc.want)
		}
	}
}

// README facts about the curated files.
var readmeFiles = map[string]struct {
	lines int
	sha   string
}{
	"paris_checkins.csv":   {10991, "cad6b6e3f439b924c4b08ce8b7caf7b3cd119cde27639b78fb806887a60386bd"},
	"paris_grid_cells.csv": {10079, "fc69d4c4cf42e4fdb419fc2f46519a1edc66d5b1dd594c5ee67904db60e9c8c2"},
	"sf_checkins.csv":      {123026, "9431bd94200d60cc944e6717a989f70c16dcf86f34ed614b4b49c5fe2ef094ac"},
	"sf_grid_cells.csv":    {123026, "6a14c4d1a945ac64b1271f69e71aea00bb79e19695c612cc6345ce898fa92fa3"},
}

// TestParityWithReferenceGrids replays the discretisation over the
// curated check-ins and compares with the reference grid files line for
// line.
func TestParityWithReferenceGrids(t *testing.T) {
	dir := sharedGowalla(t)
	for name, want := range readmeFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want.sha {
			t.Errorf("%s: sha256 %s, README says %s", name, got, want.sha)
		}
		if got := strings.Count(string(b), "\n"); got != want.lines {
			t.Errorf("%s: %d lines, README says %d", name, got, want.lines)
		}
	}
	for _, c := range Cities() {
		f, err := os.Open(filepath.Join(dir, CheckinsFile(c.Name)))
		if err != nil {
			t.Fatal(err)
		}
		got, points, outside, multi, err := Discretize(f, f.Name(), c)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		ref, err := ReadCellsFile(filepath.Join(dir, CellsFile(c.Name)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range min(len(got), len(ref)) {
			if got[i] != ref[i] {
				t.Fatalf("%s line %d: reference (%d,%d), discretisation (%d,%d)", c.Name, i+1, ref[i].Row, ref[i].Col, got[i].Row, got[i].Col)
			}
		}
		if len(got) != len(ref) {
			t.Fatalf("%s: %d cells, reference has %d lines", c.Name, len(got), len(ref))
		}
		t.Logf("%s: %d points, %d outside every cell, %d on an interior edge, %d lines reproduced", c.Name, points, outside, multi, len(got))
	}
}

// TestValidationBoundaries: the limits of the validated ranges are
// themselves accepted, and the values just beyond refused.
func TestValidationBoundaries(t *testing.T) {
	for _, b := range []Box{{-90, 90, -180, 180}, {5, 5, 7, 7}} {
		if err := b.Validate(); err != nil {
			t.Errorf("box %v: %v", b, err)
		}
	}
	for _, b := range []Box{
		{math.Nextafter(-90, -91), 0, 0, 1}, {0, math.Nextafter(90, 91), 0, 1},
		{0, 1, math.Nextafter(-180, -181), 0}, {0, 1, 0, math.Nextafter(180, 181)},
		{math.Nextafter(5, 6), 5, 0, 1}, {0, 1, math.Nextafter(7, 8), 7},
	} {
		if err := b.Validate(); err == nil {
			t.Errorf("box %v accepted", b)
		}
	}
	// Arange accepts exactly maxEdges values and refuses one more.
	if v, err := Arange(0, maxEdges, 1); err != nil || len(v) != maxEdges {
		t.Errorf("arange of %d values: %d values, %v", maxEdges, len(v), err)
	}
	if _, err := Arange(0, maxEdges+1, 1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d", maxEdges)) {
		t.Errorf("arange of %d values: error %v", maxEdges+1, err)
	}
}
