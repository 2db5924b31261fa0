package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := io.WriteString(zw, s); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadPointsGood(t *testing.T) {
	text := "\xef\xbb\xbf48.86,2.33\r\n-90,180\n 90 , -180 \n1e1,0x1p-2" // BOM, CRLF, spaces, no final newline
	want := [][2]float64{{48.86, 2.33}, {-90, 180}, {90, -180}, {10, 0.25}}
	for _, in := range [][]byte{[]byte(text), gz(t, text)} {
		var got [][2]float64
		n, err := ReadPoints(bytes.NewReader(in), "p.csv", func(a, b float64) error {
			got = append(got, [2]float64{a, b})
			return nil
		})
		if err != nil || n != 4 || !reflect.DeepEqual(got, want) {
			t.Errorf("ReadPoints = %v, %d, %v; want %v", got, n, err, want)
		}
	}
}

func TestReadPointsMalformed(t *testing.T) {
	cases := []struct{ line, msg string }{
		{"lat,lon", `latitude "lat" is not a number`},
		{"48.8", "1 fields, want 2"},
		{"48.8,2.3,7", "3 fields, want 2"},
		{"", "1 fields, want 2"},
		{"NaN,2.3", "latitude is NaN"},
		{"48.8,nan", "longitude is NaN"},
		{"90.0001,2.3", "latitude 90.0001 outside [-90, 90]"},
		{"48.8,-180.5", "longitude -180.5 outside [-180, 180]"},
		{"Inf,2", "latitude Inf outside [-90, 90]"},
		{"1e999,2", `latitude "1e999" outside [-90, 90]`},
		{"48.8,2.3x", `longitude "2.3x" is not a number`},
	}
	for _, c := range cases {
		// The bad line is line 3; a second bad line after it must not be reported.
		in := "48.8,2.3\n48.9,2.4\n" + c.line + "\nbad\n"
		n, err := ReadPoints(strings.NewReader(in), "paris_checkins.csv", func(float64, float64) error { return nil })
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("%q: error %v, want a LineError", c.line, err)
			continue
		}
		if le.Line != 3 || le.File != "paris_checkins.csv" || !strings.Contains(le.Msg, c.msg) || n != 2 {
			t.Errorf("%q: %v after %d points, want paris_checkins.csv:3: ...%s after 2", c.line, err, n, c.msg)
		}
		if !strings.HasPrefix(err.Error(), "paris_checkins.csv:3: ") {
			t.Errorf("%q: error %q does not start with file:line", c.line, err)
		}
	}
	long := "1," + strings.Repeat("2", maxLine+10) + "\n"
	if _, err := ReadPoints(strings.NewReader(long), "x", func(float64, float64) error { return nil }); err == nil || !strings.Contains(err.Error(), "x:1: line longer") {
		t.Errorf("over-long line: %v", err)
	}
	stop := errors.New("stop")
	if _, err := ReadPoints(strings.NewReader("1,2\n3,4\n"), "x", func(a, _ float64) error {
		if a == 3 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || !strings.HasPrefix(err.Error(), "x:2: ") {
		t.Errorf("callback error %v, want x:2: stop", err)
	}
}

func TestReadCells(t *testing.T) {
	var got []Cell
	n, err := ReadCells(strings.NewReader("2,7\n0,13\r\n"), "c.csv", func(c Cell) error { got = append(got, c); return nil })
	if err != nil || n != 2 || !reflect.DeepEqual(got, []Cell{{2, 7}, {0, 13}}) {
		t.Fatalf("ReadCells = %v, %d, %v", got, n, err)
	}
	cases := []struct{ line, msg string }{
		{"row,col", `row "row" is not an integer`},
		{"1,-2", "col -2 is negative"},
		{"1.5,2", `row "1.5" is not an integer`},
		{"1,2,3", "3 fields, want 2 (row,col)"},
	}
	for _, c := range cases {
		_, err := ReadCells(strings.NewReader("1,1\n"+c.line+"\n"), "sf_grid_cells.csv", func(Cell) error { return nil })
		if err == nil || err.Error() != "sf_grid_cells.csv:2: "+c.msg {
			t.Errorf("%q: error %v, want sf_grid_cells.csv:2: %s", c.line, err, c.msg)
		}
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCellsFile(empty); err == nil || !strings.Contains(err.Error(), "no cells") {
		t.Errorf("empty cells file: %v", err)
	}
	if _, _, err := ReadPointsFile(empty); err == nil || !strings.Contains(err.Error(), "no points") {
		t.Errorf("empty points file: %v", err)
	}
}

const snapSample = "" +
	"0\t2010-10-19T23:55:27Z\t30.2359091167\t-97.7951395833\t22847\n" + // outside both boxes
	"1\t2010-10-18T22:17:43Z\t48.8286\t2.2855\t420315\n" + // Paris corner: bounds inclusive
	"1\t2010-10-17T23:42:03Z\t48.85000\t2.35\t316637\n" + // trailing zero kept in the text
	"2\t2010-10-16T12:00:00Z\t48.8798\t2.3909\t1\r\n" + // other Paris corner, CRLF
	"2\t2010-10-16T12:00:00Z\t48.8799\t2.3909\t1\n" + // just north of Paris
	"3\tT\t37.78\t-122.41\t5\n" + // SF
	"bad line\n" +
	"4\tT\tabc\t2.3\t1\n" +
	"5\tT\tNaN\t2.3\t1\n" +
	"6\tT\t91\t2.3\t1\n" +
	"7\tT\t48.85\t-181\t1\n" +
	"x\tT\t48.85\t2.3\t1\n" +
	"8\t\t48.85\t2.3\t1\n" +
	"9\tT\t48.85\t2.3\tloc\n" +
	"10\tT\t48.85\t2.3\t1\textra\n" +
	"11\tT\t48.86\t2.34\t12"

func TestScanSNAP(t *testing.T) {
	paris, _ := Lookup("paris")
	for _, in := range [][]byte{[]byte(snapSample), gz(t, snapSample)} {
		var kept []string
		st, err := FilterSNAP(bytes.NewReader(in), "loc.txt", paris.Box, func(c *Checkin) error {
			kept = append(kept, fmt.Sprintf("%d %s %s,%s %d", c.User, c.Time, c.LatText, c.LonText, c.Location))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"1 2010-10-18T22:17:43Z 48.8286,2.2855 420315",
			"1 2010-10-17T23:42:03Z 48.85000,2.35 316637",
			"2 2010-10-16T12:00:00Z 48.8798,2.3909 1",
			"11 T 48.86,2.34 12",
		}
		if !reflect.DeepEqual(kept, want) {
			t.Errorf("kept %q, want %q", kept, want)
		}
		if st.Lines != 16 || st.Malformed != 9 || st.Kept != 4 {
			t.Errorf("stats %+v, want 16 lines, 9 malformed, 4 kept", st)
		}
		if len(st.Examples) != MaxExamples {
			t.Fatalf("%d examples, want %d", len(st.Examples), MaxExamples)
		}
		wantEx := []string{
			"loc.txt:7: 1 tab-separated fields, want 5",
			`loc.txt:8: latitude "abc" is not a number`,
			"loc.txt:9: latitude is NaN",
			"loc.txt:10: latitude 91 outside [-90, 90]",
			"loc.txt:11: longitude -181 outside [-180, 180]",
		}
		for i, e := range st.Examples {
			if !strings.HasPrefix(e.Error(), wantEx[i]) {
				t.Errorf("example %d: %q, want prefix %q", i, e, wantEx[i])
			}
		}
		if s := st.String(); !strings.Contains(s, "9 malformed (skipped)") || !strings.Contains(s, "and 4 more") {
			t.Errorf("summary %q", s)
		}
	}
	// The remaining malformed kinds, reported one at a time.
	for _, c := range []struct{ line, msg string }{
		{"x\tT\t48.85\t2.3\t1", `user "x" is not an integer`},
		{"8\t\t48.85\t2.3\t1", "empty time"},
		{"9\tT\t48.85\t2.3\tloc", `location id "loc" is not an integer`},
		{"10\tT\t48.85\t2.3\t1\textra", "6 tab-separated fields"},
		{"1," + strings.Repeat("9", maxLine), "line longer than"},
	} {
		st, _ := ScanSNAP(strings.NewReader("1\tT\t1\t1\t1\n"+c.line+"\n1\tT\t1\t1\t1\n"), "s", func(*Checkin) error { return nil })
		if st.Lines != 3 || st.Kept != 2 || st.Malformed != 1 || !strings.HasPrefix(st.Examples[0].Error(), "s:2: "+c.msg) {
			t.Errorf("%.40q: %+v, want s:2: %s", c.line, st, c.msg)
		}
	}
}

func TestFilterSNAPEmptyBox(t *testing.T) {
	box := Box{LatMin: 10, LatMax: 11, LonMin: 10, LonMax: 11}
	_, err := FilterSNAP(strings.NewReader(snapSample), "loc.txt", box, func(*Checkin) error { return nil })
	if err == nil || !strings.Contains(err.Error(), box.String()) || !strings.Contains(err.Error(), "16 lines read, 9 malformed") {
		t.Fatalf("empty filter: %v, want an error naming %v", err, box)
	}
	if _, err := FilterSNAP(strings.NewReader(snapSample), "x", Box{LatMin: 1, LatMax: 0}, func(*Checkin) error { return nil }); err == nil {
		t.Error("inverted box accepted")
	}
}

// TestScanSNAPConstantMemory checks that the allocations of a scan do not
// grow with the number of lines (the SNAP file has 6.4 million).
func TestScanSNAPConstantMemory(t *testing.T) {
	line := "196514\t2010-07-24T13:45:06Z\t53.3648119\t-2.2723465833\t145064\n"
	small := []byte(strings.Repeat(line, 1000))
	big := []byte(strings.Repeat(line, 20000))
	box := Box{LatMin: 53, LatMax: 54, LonMin: -3, LonMax: -2}
	allocs := func(in []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := FilterSNAP(bytes.NewReader(in), "x", box, func(*Checkin) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	}
	a, b := allocs(small), allocs(big)
	if b > a+10 {
		t.Errorf("a scan of 20000 lines makes %v allocations, of 1000 lines %v: memory grows with the input", b, a)
	}
}

func BenchmarkFilterSNAP(b *testing.B) {
	line := "196514\t2010-07-24T13:45:06Z\t53.3648119\t-2.2723465833\t145064\n"
	in := []byte(strings.Repeat(line, 10000))
	paris, _ := Lookup("paris")
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		FilterSNAP(bytes.NewReader(in), "x", paris.Box, func(*Checkin) error { return nil })
	}
}
