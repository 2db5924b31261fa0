package datasets_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"privic/datasets"
)

// The fuzz targets of the check-in readers compare each reader with a
// small reference parser written from the readers' documentation (split
// at '\n', drop one trailing '\r', strip a BOM on line 1, split fields,
// trim spaces, parse with strconv), and check that a gzip-compressed copy
// of the input reads the same. Inputs with a line near the 64 KiB line
// limit are only checked for panics and one-line errors: the reference
// does not model that limit.

// fzMaxLine is below the readers' 64 KiB line limit with room to spare.
const fzMaxLine = 60 << 10

// fzLines splits data as the readers do (LF or CRLF; a last line without
// newline counts). ok is false when a line is too long for the reference.
func fzLines(data []byte) (lines [][]byte, ok bool) {
	if len(data) == 0 {
		return nil, true
	}
	parts := bytes.Split(data, []byte("\n"))
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		if len(p) >= fzMaxLine {
			return nil, false
		}
		p = bytes.TrimSuffix(p, []byte("\r"))
		if i == 0 {
			p = bytes.TrimPrefix(p, []byte("\xef\xbb\xbf"))
		}
		parts[i] = p
	}
	return parts, true
}

func isGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// gzipWriters are reused across fuzz executions: a fresh gzip.Writer
// allocates about a megabyte, which would dominate each execution.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

func gzipped(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oneLineErr fails the test if err is not a single line starting with the
// input's name.
func oneLineErr(t *testing.T, err error, name string) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	if !strings.HasPrefix(msg, name) {
		t.Fatalf("error %q does not start with the input's name %q", msg, name)
	}
}

// refCoord is the documented coordinate rule: a number, not NaN, within
// [-limit, limit].
func refCoord(field []byte, limit float64) (float64, bool) {
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(field)), 64)
	if err != nil || math.IsNaN(v) || v < -limit || v > limit {
		return 0, false
	}
	return v, true
}

// refIndex is the documented index rule: a non-negative integer.
func refIndex(field []byte) (int, bool) {
	v, err := strconv.Atoi(string(bytes.TrimSpace(field)))
	return v, err == nil && v >= 0
}

type fzPoint struct{ a, b float64 }

// refPairs parses lines of two comma-separated fields with parse until the
// first bad line; bad is its 1-based number (0: none).
func refPairs(lines [][]byte, parse func(field []byte, i int) (float64, bool)) (got []fzPoint, bad int) {
	for n, line := range lines {
		f := bytes.Split(line, []byte(","))
		if len(f) != 2 {
			return got, n + 1
		}
		a, ok1 := parse(f[0], 0)
		if !ok1 {
			return got, n + 1
		}
		b, ok2 := parse(f[1], 1)
		if !ok2 {
			return got, n + 1
		}
		got = append(got, fzPoint{a, b})
	}
	return got, 0
}

// checkPairs runs read on data (and on its gzip copy) and compares with
// the reference.
func checkPairs(t *testing.T, data []byte, read func(data []byte) ([]fzPoint, int, error), parse func(field []byte, i int) (float64, bool)) {
	const name = "fuzz.csv"
	got, n, err := read(data)
	oneLineErr(t, err, name)
	if n != len(got) {
		t.Fatalf("reader returned n = %d after %d callbacks", n, len(got))
	}
	if isGzip(data) {
		return // a (mostly broken) gzip stream: only no panic and one-line errors
	}
	if lines, ok := fzLines(data); ok {
		want, bad := refPairs(lines, parse)
		if (err != nil) != (bad != 0) {
			t.Fatalf("error = %v, reference's first bad line = %d", err, bad)
		}
		if bad != 0 {
			var le *datasets.LineError
			if !errors.As(err, &le) || le.Line != bad {
				t.Fatalf("error %v: want a LineError at line %d", err, bad)
			}
		}
		if !samePoints(got, want) {
			t.Fatalf("reader gave %v, reference %v", got, want)
		}
	}
	// The gzip copy must read exactly the same.
	zgot, zn, zerr := read(gzipped(t, data))
	oneLineErr(t, zerr, name)
	if zn != n || !samePoints(zgot, got) || (zerr == nil) != (err == nil) || (err != nil && zerr.Error() != err.Error()) {
		t.Fatalf("gzip copy read differently: (%v, %d, %v) vs plain (%v, %d, %v)", zgot, zn, zerr, got, n, err)
	}
}

func samePoints(a, b []fzPoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		// Bit equality: NaN never reaches the callback, and -0 must stay -0.
		if math.Float64bits(a[i].a) != math.Float64bits(b[i].a) || math.Float64bits(a[i].b) != math.Float64bits(b[i].b) {
			return false
		}
	}
	return true
}

func pointSeeds(f *testing.F) {
	for _, s := range []string{
		"", "\n", "48.85,2.35\n", "48.85,2.35", "48.85,2.35\r\n37.7,-122.4\r\n",
		"\xef\xbb\xbf48.85,2.35\n", "48.85,2.35\n\xef\xbb\xbf1,2\n",
		" 48.85 , 2.35 \n", "48.85,2.35,1\n", "48.85\n", "NaN,1\n", "1,Inf\n", "-90,-180\n90,180\n",
		"90.0000001,0\n", "1e400,0\n", "0x1p-2,1_0\n", "1,2\n\n3,4\n", "-0,-0\n", "\x1f\x8b\x08\x00",
		"1,2\r\r\n", "\r\n",
	} {
		f.Add([]byte(s))
	}
}

// FuzzReadPoints: ReadPoints never panics, its errors are one line naming
// the input, it reads exactly what the reference parser reads and stops at
// the same first bad line, and a gzip copy reads identically.
func FuzzReadPoints(f *testing.F) {
	pointSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(d []byte) ([]fzPoint, int, error) {
			var got []fzPoint
			n, err := datasets.ReadPoints(bytes.NewReader(d), "fuzz.csv", func(lat, lon float64) error {
				if math.IsNaN(lat) || lat < -90 || lat > 90 || math.IsNaN(lon) || lon < -180 || lon > 180 {
					t.Fatalf("point (%v, %v) outside the documented ranges", lat, lon)
				}
				got = append(got, fzPoint{lat, lon})
				return nil
			})
			return got, n, err
		}
		checkPairs(t, data, read, func(field []byte, i int) (float64, bool) {
			return refCoord(field, []float64{90, 180}[i])
		})
	})
}

// FuzzReadCells: as FuzzReadPoints for "row,col" files of non-negative
// integers.
func FuzzReadCells(f *testing.F) {
	for _, s := range []string{
		"", "0,0\n", "10,14\n3,7", "-1,0\n", "1,-0\n", " 6 , 3 \r\n", "1.5,2\n", "1,2,3\n",
		"9223372036854775807,0\n", "9223372036854775808,0\n", "+1,2\n", "0x1,2\n", "\xef\xbb\xbf1,1\n",
		"1,1\n,\n", "\x1f\x8b",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(d []byte) ([]fzPoint, int, error) {
			var got []fzPoint
			n, err := datasets.ReadCells(bytes.NewReader(d), "fuzz.csv", func(c datasets.Cell) error {
				if c.Row < 0 || c.Col < 0 {
					t.Fatalf("cell %+v has a negative index", c)
				}
				got = append(got, fzPoint{float64(c.Row), float64(c.Col)})
				return nil
			})
			return got, n, err
		}
		checkPairs(t, data, read, func(field []byte, _ int) (float64, bool) {
			v, ok := refIndex(field)
			return float64(v), ok
		})
	})
}

// refCheckin applies the documented SNAP line rules; ok false = malformed.
func refCheckin(line []byte) (lat, lon float64, ok bool) {
	f := bytes.Split(line, []byte("\t"))
	if len(f) != 5 {
		return 0, 0, false
	}
	if _, err := strconv.ParseInt(string(bytes.TrimSpace(f[0])), 10, 64); err != nil {
		return 0, 0, false
	}
	if len(bytes.TrimSpace(f[1])) == 0 {
		return 0, 0, false
	}
	lat, ok1 := refCoord(f[2], 90)
	lon, ok2 := refCoord(f[3], 180)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if _, err := strconv.ParseInt(string(bytes.TrimSpace(f[4])), 10, 64); err != nil {
		return 0, 0, false
	}
	return lat, lon, true
}

// FuzzFilterSNAP: FilterSNAP never panics; an invalid box is an error; the
// line, malformed and kept counts and the kept check-ins are those of the
// reference; the examples are the first malformed lines; "nothing kept" is
// the only other error; errors are one line.
func FuzzFilterSNAP(f *testing.F) {
	paris := []float64{48.8, 48.92, 2.25, 2.42}
	for _, s := range []string{
		"", "1\t2010-10-19T23:55:27Z\t48.85\t2.35\t22847\n",
		"1\t2010-10-19T23:55:27Z\t48.85\t2.35\t22847\n2\tt\t37.7\t-122.4\t1\n",
		"1\t\t48.85\t2.35\t1\n", "x\tt\t48.85\t2.35\t1\n", "1\tt\tNaN\t2.35\t1\n", "1\tt\t48.85\t2.35\n",
		"1\tt\t48.85\t2.35\t1\t\n", "1\tt\t48.8\t2.25\t1\r\n1\tt\t48.92\t2.42\t1", "\xef\xbb\xbf1\tt\t48.85\t2.35\t1\n",
		"bad\nbad\nbad\nbad\nbad\nbad\nbad\n1\tt\t48.85\t2.35\t1\n",
	} {
		f.Add([]byte(s), paris[0], paris[1], paris[2], paris[3])
	}
	f.Add([]byte("1\tt\t0\t0\t1\n"), math.NaN(), 1.0, 0.0, 1.0)
	f.Add([]byte("1\tt\t0\t0\t1\n"), 1.0, 0.0, 0.0, 1.0)
	f.Add([]byte("1\tt\t0\t0\t1\n"), -91.0, 0.0, 0.0, 1.0)
	f.Add([]byte("1\tt\t0\t0\t1\n"), 0.0, 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, data []byte, latMin, latMax, lonMin, lonMax float64) {
		const name = "snap.txt"
		box := datasets.Box{LatMin: latMin, LatMax: latMax, LonMin: lonMin, LonMax: lonMax}
		var got []fzPoint
		st, err := datasets.FilterSNAP(bytes.NewReader(data), name, box, func(c *datasets.Checkin) error {
			if !box.Contains(c.Lat, c.Lon) {
				t.Fatalf("check-in (%v, %v) outside the box %v was passed on", c.Lat, c.Lon, box)
			}
			got = append(got, fzPoint{c.Lat, c.Lon})
			return nil
		})
		if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("error is not one line: %q", err)
		}
		if box.Validate() != nil {
			if err == nil {
				t.Fatalf("invalid box %v accepted", box)
			}
			return
		}
		if err != nil && !strings.HasPrefix(err.Error(), name) {
			t.Fatalf("error %q does not name the input", err)
		}
		if st.Kept != len(got) {
			t.Fatalf("Kept = %d, %d check-ins passed on", st.Kept, len(got))
		}
		if (err != nil) != (st.Kept == 0) {
			t.Fatalf("error = %v with %d kept: an error must mean nothing was kept", err, st.Kept)
		}
		if st.Malformed < len(st.Examples) || len(st.Examples) > datasets.MaxExamples || st.Malformed > st.Lines {
			t.Fatalf("inconsistent stats %+v", st)
		}
		for i, e := range st.Examples {
			if e.Line < 1 || e.Line > st.Lines || (i > 0 && e.Line <= st.Examples[i-1].Line) {
				t.Fatalf("example %d at line %d (of %d, after %v)", i, e.Line, st.Lines, st.Examples[:i])
			}
		}
		if isGzip(data) {
			return
		}
		lines, ok := fzLines(data)
		if !ok {
			return
		}
		var want []fzPoint
		var badLines []int
		for i, line := range lines {
			lat, lon, ok := refCheckin(line)
			if !ok {
				badLines = append(badLines, i+1)
				continue
			}
			if box.Contains(lat, lon) {
				want = append(want, fzPoint{lat, lon})
			}
		}
		if st.Lines != len(lines) || st.Malformed != len(badLines) {
			t.Fatalf("stats %d lines, %d malformed; reference %d lines, %d malformed", st.Lines, st.Malformed, len(lines), len(badLines))
		}
		for i, e := range st.Examples {
			if e.Line != badLines[i] {
				t.Fatalf("example %d at line %d, reference's malformed line %d", i, e.Line, badLines[i])
			}
		}
		if !samePoints(got, want) {
			t.Fatalf("kept %v, reference %v", got, want)
		}
	})
}

// fzRow is one point of a points file with its weight.
type fzRow struct {
	lat, lon, w float64
}

// fzDialect is how FuzzScanPoints reads its input: the header and weight
// switches, the delimiter (0: detect), the decimal separator and whether
// the format (CSV or SNAP) is told from the content.
type fzDialect struct {
	header, weight, detect bool
	delim, decimal         byte
}

// refNumber is the documented number rule: spaces trimmed; with a
// decimal comma the field holds no '.' and its one ',' reads as '.';
// strconv's syntax; out-of-range values are ±Inf or 0.
func refNumber(s string, decimal byte) (float64, bool) {
	s = strings.TrimSpace(s)
	if decimal == ',' {
		if strings.Contains(s, ".") {
			return 0, false
		}
		s = strings.Replace(s, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// refDelimiter is the documented detection: the first of tab, ';', '|'
// and ',' (never the decimal separator) that occurs outside double
// quotes in the first line, else ','.
func refDelimiter(first []byte, decimal byte) byte {
	for _, d := range []byte{'\t', ';', '|', ','} {
		quoted := false
		for _, c := range first {
			if c == '"' {
				quoted = !quoted
			} else if c == d && !quoted && d != decimal {
				return d
			}
		}
	}
	return ','
}

// refFind is the documented column rule: the exact name, else the one
// name equal but for case.
func refFind(names []string, want string) int {
	folded := -1
	for i, n := range names {
		if n == want {
			return i
		}
		if strings.EqualFold(n, want) {
			if folded >= 0 {
				return -1
			}
			folded = i
		}
	}
	return folded
}

// refScanPoints reads a points file as experiments/README.md documents
// it. Records are cut by encoding/csv (RFC 4180; the reader streams the
// same package in constant memory, the reference reads the whole input),
// everything else is modelled here: the BOM, detection of the format and
// the delimiter from the first non-blank line, blank records, the header
// (columns lat, lon and, with weights, w; else 0, 1 and 2), coordinates
// within range, weights that are finite numbers in [0, 2^40], the total
// at most 2^53. bad is the line of the first bad record, -1 for a file
// without its header line, -2 for a file that is neither CSV nor SNAP (or
// empty, when detecting), 0 when all is well; snap says it was read as
// SNAP (rows then counts the malformed lines skipped).
func refScanPoints(data []byte, o fzDialect) (got []fzRow, bad int, snap bool, malformed int) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var first, from []byte
	rest := data
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		if line = bytes.TrimSuffix(line, []byte("\r")); len(bytes.TrimSpace(line)) > 0 {
			first, from = line, rest
			break
		}
		rest = after
	}
	if o.detect {
		if first == nil {
			return nil, -2, false, 0
		}
		if _, _, ok := refCheckin(first); ok {
			lines, _ := fzLines(data)
			for _, line := range lines {
				if a, b, ok := refCheckin(line); ok {
					got = append(got, fzRow{a, b, 1})
				} else {
					malformed++
				}
			}
			return got, 0, true, malformed
		}
		text := utf8.Valid(first)
		for _, c := range first {
			if c < 0x20 && c != '\t' || c == 0x7f {
				text = false
			}
		}
		d := o.delim
		if d == 0 {
			d = refDelimiter(first, o.decimal)
		}
		// CSV: text whose first record, from the first line on, is well
		// formed with 2 or more fields.
		r := csv.NewReader(bytes.NewReader(from))
		r.Comma, r.FieldsPerRecord, r.TrimLeadingSpace = rune(d), -1, d != '\t'
		rec, err := r.Read()
		if !text || err != nil || len(rec) < 2 {
			return nil, -2, false, 0
		}
	}
	delim := o.delim
	if delim == 0 {
		delim = refDelimiter(first, o.decimal)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord, r.TrimLeadingSpace = rune(delim), -1, delim != '\t'
	lat, lon, w := 0, 1, 2
	named := !o.header
	total := 0.0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return got, pe.StartLine, false, 0
			}
			return got, -3, false, 0
		}
		no, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if !named {
			names := make([]string, len(rec))
			for i, n := range rec {
				names[i] = strings.TrimSpace(n)
			}
			lat, lon, w = refFind(names, "lat"), refFind(names, "lon"), refFind(names, "w")
			if lat < 0 || lon < 0 || o.weight && w < 0 {
				return got, no, false, 0
			}
			named = true
			continue
		}
		need := max(lat, lon) + 1
		if o.weight {
			need = max(need, w+1)
		}
		if len(rec) < need {
			return got, no, false, 0
		}
		a, ok1 := refNumber(rec[lat], o.decimal)
		if !ok1 || math.IsNaN(a) || a < -90 || a > 90 {
			line, _ := r.FieldPos(lat)
			return got, line, false, 0
		}
		b, ok2 := refNumber(rec[lon], o.decimal)
		if !ok2 || math.IsNaN(b) || b < -180 || b > 180 {
			line, _ := r.FieldPos(lon)
			return got, line, false, 0
		}
		k := 1.0
		if o.weight {
			v, ok := refNumber(rec[w], o.decimal)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1<<40 {
				line, _ := r.FieldPos(w)
				return got, line, false, 0
			}
			k = v
		}
		if k > 1<<53-total {
			return got, no, false, 0
		}
		total += k
		got = append(got, fzRow{a, b, k})
	}
	if !named {
		return got, -1, false, 0
	}
	return got, 0, false, 0
}

// FuzzScanPoints: ScanPoints on points files (CSV with or without a
// header and a weight column, any delimiter given or detected, decimal
// points or commas; or the format told from the content) never panics,
// its errors are one line naming the input, it passes on exactly what
// the reference parser reads and stops at the same first bad line, and a
// gzip copy reads identically.
func FuzzScanPoints(f *testing.F) {
	for _, s := range []string{
		"", "lat,lon,w\n", "lat,lon,w\n48.85,2.35,3\n", "w,lon,lat\r\n1,2.35,48.85\r\n", "\"lat\",\"lon\",w\n\"1\",\"2\",\"3\"\n",
		"lat,lon,w\n\n1,2,0\n  \n3,4,5\n", "lat,lon\n1,2\n", "lat,lat,lon,w\n1,2,3,4\n", "lon,w\n1,2\n",
		"lat,lon,w\n1,2\n", "lat,lon,w\n1,2,-1\n", "lat,lon,w\n1,2,1.0\n", "lat,lon,w\n1,2,1099511627777\n",
		"lat,lon,w\nNaN,1,1\n", "lat,lon,w\n90,180,1\n-90,-180,1\n", "\xef\xbb\xbflat,lon,w\n1,2,3\n",
		"48.85,2.35,1\n", "48.85,2.35\n", "1,2,3,4,5\n", "\x1f\x8b\x08\x00", "lat,lon,w\n\"1,2\",3,4\n",
		"Lat;LON;W\n48,85;2,35;0,5\n", "name;lat;lon;w\n\"Bad Wilsnack, Bhf\";52,95;11,94;2,25\n",
		"name,lat,lon,w\n\"Bad Wilsnack, Bhf\",52.95,11.94,2.25\n\"say \"\"hi\"\"\nthere\",1,2,3\n",
		"lat\tlon\tw\n1\t2\t3\n", "lat|lon|w\n1|2|0.5\n", "lat,lon,w\n1,\"2\" ,3\n", "lat,lon,w\n1,2\"x,3\n",
		"1\t2010-10-19T23:55:27Z\t48.85\t2.35\t22847\nbad\n", "{\"lat\": 1}\n", "\x00\x01\x02\n",
	} {
		for _, o := range []fzDialect{{true, true, false, 0, '.'}, {true, false, false, ';', ','}, {false, true, true, 0, 0}, {false, false, false, '|', '.'}} {
			f.Add([]byte(s), o.header, o.weight, o.detect, o.delim, o.decimal == ',')
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, header, weight, detect bool, delim byte, decimalComma bool) {
		const name = "fuzz.csv"
		o := fzDialect{header: header, weight: weight, detect: detect, decimal: '.'}
		if decimalComma {
			o.decimal = ','
		}
		if i := strings.IndexByte(datasets.Delimiters, delim); i >= 0 && delim != 0 && !(delim == ',' && decimalComma) {
			o.delim = delim
		}
		pf := datasets.PointsFormat{Detect: detect, Header: header, Delimiter: o.delim, Decimal: o.decimal,
			Lat: datasets.ColumnAt(0), Lon: datasets.ColumnAt(1)}
		if header {
			pf.Lat, pf.Lon = datasets.ColumnNamed("lat"), datasets.ColumnNamed("lon")
		}
		if weight {
			pf.HasWeight, pf.Weight = true, datasets.ColumnAt(2)
			if header {
				pf.Weight = datasets.ColumnNamed("w")
			}
		}
		read := func(d []byte) ([]fzRow, datasets.PointStats, error) {
			var got []fzRow
			st, err := datasets.ScanPoints(bytes.NewReader(d), name, pf, func(lat, lon, w float64) error {
				if math.IsNaN(lat) || lat < -90 || lat > 90 || math.IsNaN(lon) || lon < -180 || lon > 180 || !(w >= 0) || math.IsInf(w, 0) {
					t.Fatalf("row (%v, %v, %v) outside the documented ranges", lat, lon, w)
				}
				got = append(got, fzRow{lat, lon, w})
				return nil
			})
			return got, st, err
		}
		got, st, err := read(data)
		oneLineErr(t, err, name)
		sum := 0.0
		for _, r := range got {
			sum += r.w
		}
		if st.Rows != len(got) || st.Weight != sum {
			t.Fatalf("stats %+v after %d rows of weight %v", st, len(got), sum)
		}
		if isGzip(data) {
			return
		}
		if lines, ok := fzLines(data); ok && len(data) < fzMaxLine-8<<10 {
			if err == nil && st.Lines != len(lines) {
				t.Fatalf("%d lines read, the input has %d", st.Lines, len(lines))
			}
			want, bad, snap, malformed := refScanPoints(data, o)
			if (err != nil) != (bad != 0) {
				t.Fatalf("error = %v, reference's first bad line = %d", err, bad)
			}
			if st.SNAP != snap || st.Malformed != malformed {
				t.Fatalf("read as SNAP %v with %d malformed lines, the reference %v with %d", st.SNAP, st.Malformed, snap, malformed)
			}
			switch {
			case bad > 0:
				var le *datasets.LineError
				if !errors.As(err, &le) || le.Line != bad {
					t.Fatalf("error %v: want a LineError at line %d", err, bad)
				}
			case bad == -2 && !strings.Contains(err.Error(), "neither CSV") && !strings.Contains(err.Error(), "empty"):
				t.Fatalf("error %v: want neither CSV nor SNAP", err)
			}
			if len(got) != len(want) {
				t.Fatalf("reader gave %v, reference %v", got, want)
			}
			for i := range got {
				if math.Float64bits(got[i].lat) != math.Float64bits(want[i].lat) || math.Float64bits(got[i].lon) != math.Float64bits(want[i].lon) || got[i].w != want[i].w {
					t.Fatalf("row %d: reader %v, reference %v", i, got[i], want[i])
				}
			}
		}
		zgot, zst, zerr := read(gzipped(t, data))
		oneLineErr(t, zerr, name)
		if len(zgot) != len(got) || zst.Rows != st.Rows || zst.Weight != st.Weight || (zerr == nil) != (err == nil) || (err != nil && zerr.Error() != err.Error()) {
			t.Fatalf("gzip copy read differently: (%d rows, %v) vs plain (%d rows, %v)", len(zgot), zerr, len(got), err)
		}
	})
}
