package datasets

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"privic/kernels"
)

func TestLoadEmbedded(t *testing.T) {
	// N and domains from the data set's README (reference-code facts).
	cases := []struct {
		city string
		rows RowPolicy
		n    int
		grid kernels.Grid
	}{
		{"paris", HeaderQuirk, 10078, kernels.Grid{Rows: 11, Cols: 15}},
		{"paris", AllRows, 10079, kernels.Grid{Rows: 11, Cols: 15}},
		{"sf", HeaderQuirk, 123025, kernels.Grid{Rows: 16, Cols: 24}},
		{"sf", AllRows, 123026, kernels.Grid{Rows: 16, Cols: 24}},
	}
	for _, c := range cases {
		d, err := Load(c.city, LoadOptions{Rows: c.rows})
		if err != nil {
			t.Fatal(err)
		}
		if d.N != c.n || d.Grid != c.grid || d.Name != c.city {
			t.Errorf("%s %v: N = %d on %v, want %d on %v", c.city, c.rows, d.N, d.Grid, c.n, c.grid)
		}
		if err := d.Validate(); err != nil { // counts sum to N
			t.Error(err)
		}
		sum := 0.0
		for _, p := range d.Prior() {
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s %v: prior sums to %v", c.city, c.rows, sum)
		}
		if !strings.Contains(d.Source, c.rows.String()) {
			t.Errorf("source %q does not name the row policy", d.Source)
		}
	}
	def, _ := Load("paris", LoadOptions{})
	if def.N != 10078 {
		t.Errorf("default options give N = %d, want the reference code's 10078", def.N)
	}
	if _, err := Load("rome", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "paris, sf") {
		t.Errorf("Load(rome): %v, want the known cities listed", err)
	}
	if _, err := Load("paris", LoadOptions{Rows: 7}); err == nil || !strings.Contains(err.Error(), `load "paris": row policy RowPolicy(7): want header-quirk or all-rows`) {
		t.Errorf("invalid row policy: error %v", err)
	}
}

// TestLoadMatchesReferenceFile counts the reference grid file directly and
// compares with the embedded counts under both policies.
func TestLoadMatchesReferenceFile(t *testing.T) {
	dir := sharedGowalla(t)
	for _, city := range CityNames() {
		cells, err := ReadCellsFile(filepath.Join(dir, CellsFile(city)))
		if err != nil {
			t.Fatal(err)
		}
		for _, rows := range []RowPolicy{HeaderQuirk, AllRows} {
			// Independent count: a dense table over 0..max.
			use := cells
			if rows == HeaderQuirk {
				use = cells[1:]
			}
			maxR, maxC := 0, 0
			for _, c := range use {
				maxR, maxC = max(maxR, c.Row), max(maxC, c.Col)
			}
			want := make([]int, (maxR+1)*(maxC+1))
			for _, c := range use {
				want[c.Row*(maxC+1)+c.Col]++
			}
			d, err := Load(city, LoadOptions{Rows: rows})
			if err != nil {
				t.Fatal(err)
			}
			if d.Grid.Rows != maxR+1 || d.Grid.Cols != maxC+1 || !reflect.DeepEqual(d.Counts, want) {
				t.Errorf("%s %v: embedded counts differ from %s", city, rows, CellsFile(city))
			}
		}
	}
}

// TestEmbeddedCountsUpToDate regenerates the embedded files from the
// shared subsets and compares byte for byte.
func TestEmbeddedCountsUpToDate(t *testing.T) {
	dir := sharedGowalla(t)
	for _, c := range Cities() {
		var buf bytes.Buffer
		if err := WriteCounts(&buf, c, dir); err != nil {
			t.Fatal(err)
		}
		emb, err := EmbeddedCounts(c.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), emb) {
			t.Errorf("datasets/%s is stale: run go run ./datasets/internal/gencounts", CountsFile(c.Name))
		}
		if want := readmeFiles[CheckinsFile(c.Name)].sha; !bytes.Contains(emb, []byte(want)) {
			t.Errorf("%s does not record the source's sha256 %s", CountsFile(c.Name), want)
		}
	}
}

func TestWriteCountsParityFailure(t *testing.T) {
	// A reference grid file that disagrees with the discretisation must
	// make WriteCounts fail, naming the line.
	dir := t.TempDir()
	paris, _ := Lookup("paris")
	d, _ := paris.Discretizer()
	c1 := d.Cells(48.87, 2.30, nil)[0]
	c2 := d.Cells(48.84, 2.38, nil)[0]
	// The third point lies south of the box and gives no line.
	writeFile(t, filepath.Join(dir, "paris_checkins.csv"), "48.87,2.30\n48.84,2.38\n48.80,2.30\n")
	writeFile(t, filepath.Join(dir, "paris_grid_cells.csv"), cellLine(c1)+cellLine(Cell{c2.Row, c2.Col + 1}))
	var buf bytes.Buffer
	err := WriteCounts(&buf, paris, dir)
	if err == nil || !strings.Contains(err.Error(), "paris_grid_cells.csv:2") {
		t.Fatalf("WriteCounts with a wrong reference: %v", err)
	}
	writeFile(t, filepath.Join(dir, "paris_grid_cells.csv"), cellLine(c1)+cellLine(c2)+cellLine(c2))
	if err := WriteCounts(&buf, paris, dir); err == nil || !strings.Contains(err.Error(), "more lines") {
		t.Fatalf("WriteCounts with a longer reference: %v", err)
	}
	writeFile(t, filepath.Join(dir, "paris_grid_cells.csv"), cellLine(c1)+cellLine(c2))
	buf.Reset()
	if err := WriteCounts(&buf, paris, dir); err != nil {
		t.Fatal(err)
	}
	cf, err := parseCounts(buf.Bytes(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if cf.lines != 2 || cf.first != c1 || cf.counts[c1] != 1 || cf.counts[c2] != 1 {
		t.Errorf("parsed %+v, want 2 lines, first %v", cf, c1)
	}
	if !strings.Contains(buf.String(), "# points: 3 read, 1 outside every cell") {
		t.Errorf("header lacks the point summary:\n%s", buf.String())
	}
	// The header names both files with their SHA-256.
	for _, f := range []string{"paris_checkins.csv", "paris_grid_cells.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if sum := fmt.Sprintf("%s (sha256 %x)", f, sha256.Sum256(b)); !strings.Contains(buf.String(), sum) {
			t.Errorf("header lacks %q:\n%s", sum, buf.String())
		}
	}
}

func cellLine(c Cell) string { return fmt.Sprintf("%d,%d\n", c.Row, c.Col) }

func TestParseCountsErrors(t *testing.T) {
	good := "# lines: 3\n# first-line: 0,1\nrow,col,count\n0,0,1\n0,1,2\n"
	if _, err := parseCounts([]byte(good), "c.csv"); err != nil {
		t.Fatal(err)
	}
	// The points comment: its first number, when positive, is the count
	// of check-ins read; a zero or a malformed one is ignored.
	for in, want := range map[string]int{
		"# points: 10991 read, 912 outside every cell\n": 10991,
		"# points: 12\n":              12,
		"# points: 0 read\n":          0,
		"# points: many\n":            0,
		"# points:\n":                 0,
		"# points: 12\n# points: 0\n": 12, // a zero does not undo a count
	} {
		cf, err := parseCounts([]byte(in+good), "c.csv")
		if err != nil || cf.points != want {
			t.Errorf("%q: points %v (%v), want %d", in, cf, err, want)
		}
	}
	cases := map[string]string{
		"# lines: 4\n# first-line: 0,1\nrow,col,count\n0,0,1\n0,1,2\n": "counts sum to 3",
		"# first-line: 0,1\nrow,col,count\n0,0,1\n":                    "no \"# lines:\"",
		"# lines: 1\nrow,col,count\n0,0,1\n":                           "no \"# first-line:\"",
		"# lines: 1\n# first-line: 0,1\nrow,col,count\n0,0,1\n":        "first-line cell (0,1) has no count",
		"# lines: 1\n# first-line: 0,0\nr,c,n\n0,0,1\n":                "c.csv:3: header",
		"# lines: 2\n# first-line: 0,0\nrow,col,count\n0,0,1\n0,0,1\n": "c.csv:5: cell (0,0) listed twice",
		"# lines: 2\n# first-line: 0,0\nrow,col,count\n0,0,x\n":        `c.csv:4: count "x" is not an integer`,
		"# lines: -2\n":                   "c.csv:1: lines",
		"# lines: 0\n":                    `c.csv:1: lines "0": want a positive integer`,
		"# first-line: 1;2\n":             "c.csv:1: first-line",
		"# lines: 1\n# first-line: 0,0\n": "no row,col,count header",
	}
	for in, want := range cases {
		if _, err := parseCounts([]byte(in), "c.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

func TestFromCells(t *testing.T) {
	cells := []Cell{{3, 5}, {2, 4}, {2, 4}, {4, 6}}
	d, err := FromCells("toy", cells, HeaderQuirk)
	if err != nil {
		t.Fatal(err)
	}
	// Without the first line the cells span rows 2-4, cols 4-6.
	want := kernels.Grid{Rows: 3, Cols: 3, Row0: 2, Col0: 4}
	if d.Grid != want || d.N != 3 || d.Counts[0] != 2 || d.Counts[8] != 1 || d.Counts[4] != 0 {
		t.Errorf("FromCells = %+v, want grid %v, counts 2 at (2,4) and 1 at (4,6)", d, want)
	}
	if r, c := d.Grid.Abs(8); r != 4 || c != 6 {
		t.Errorf("Abs(8) = (%d,%d), want the file's (4,6)", r, c)
	}
	if _, err := FromCells("toy", cells[:1], HeaderQuirk); err == nil || !strings.Contains(err.Error(), `dataset "toy": no check-ins`) {
		t.Errorf("a single line under the header quirk gives no check-ins: error %v", err)
	}
	if _, err := FromCells("toy", []Cell{{-1, 0}}, AllRows); err == nil || !strings.Contains(err.Error(), `dataset "toy": negative cell (-1,0)`) {
		t.Errorf("negative cell: error %v", err)
	}
	// No lines at all, under either policy: no check-ins (not a panic).
	for _, rows := range []RowPolicy{HeaderQuirk, AllRows} {
		if _, err := FromCells("toy", nil, rows); err == nil || !strings.Contains(err.Error(), `dataset "toy": no check-ins`) {
			t.Errorf("no lines, %v: error %v", rows, err)
		}
	}
	// Cells with a zero count do not widen the grid.
	d, err = fromCellCounts("toy", map[Cell]int{{0, 0}: 0, {2, 3}: 4, {9, 9}: 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := (kernels.Grid{Rows: 1, Cols: 1, Row0: 2, Col0: 3}); d.Grid != want || d.N != 4 || d.Counts[0] != 4 {
		t.Errorf("fromCellCounts with zeros = %+v, want grid %v with count 4", d, want)
	}
	// Cells on row 0 and column 0: a one-row grid at the origin.
	d, err = FromCells("toy", []Cell{{0, 0}, {0, 1}, {0, 1}}, AllRows)
	if err != nil {
		t.Fatal(err)
	}
	if want := (kernels.Grid{Rows: 1, Cols: 2}); d.Grid != want || d.N != 3 || d.Counts[0] != 1 || d.Counts[1] != 2 {
		t.Errorf("FromCells on row 0 = %+v, want grid %v with counts [1 2]", d, want)
	}
	d, err = FromCells("toy", []Cell{{0, 0}, {1, 0}}, AllRows)
	if err != nil {
		t.Fatal(err)
	}
	if want := (kernels.Grid{Rows: 2, Cols: 1}); d.Grid != want || d.N != 2 {
		t.Errorf("FromCells on column 0 = %+v, want grid %v", d, want)
	}
}

func TestRowPolicyText(t *testing.T) {
	var spec struct {
		Load LoadOptions `toml:"load"`
	}
	if _, err := toml.Decode("[load]\nrows = \"all-rows\"\n", &spec); err != nil || spec.Load.Rows != AllRows {
		t.Fatalf("decode all-rows: %v, %v", spec.Load.Rows, err)
	}
	if _, err := toml.Decode("[load]\nrows = \"header\"\n", &spec); err == nil || !strings.Contains(err.Error(), "header-quirk") {
		t.Errorf("decode of an unknown policy: %v, want the known ones listed", err)
	}
	for _, p := range []RowPolicy{HeaderQuirk, AllRows} {
		b, err := p.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		if q, err := ParseRowPolicy(string(b)); err != nil || q != p {
			t.Errorf("round trip of %v: %v, %v", p, q, err)
		}
	}
	// Values just past the names, and below them, have no name.
	for _, p := range []RowPolicy{-1, 2} {
		if s := p.String(); s != fmt.Sprintf("RowPolicy(%d)", int(p)) {
			t.Errorf("RowPolicy(%d).String() = %q", int(p), s)
		}
		if _, err := p.MarshalText(); err == nil || err.Error() != fmt.Sprintf("invalid row policy %d", int(p)) {
			t.Errorf("RowPolicy(%d).MarshalText: error %v", int(p), err)
		}
	}
}

// TestDiscretizerOneBand: a box one step high and wide has two edges on
// each axis, one cell.
func TestDiscretizerOneBand(t *testing.T) {
	d, err := City{Name: "one", Box: Box{LatMin: 0, LatMax: 2, LonMin: 0, LonMax: 2}, LatStep: 1.5, LonStep: 1.5}.Discretizer()
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 1 || d.Cols() != 1 {
		t.Errorf("%d x %d cells, want 1 x 1", d.Rows(), d.Cols())
	}
}
