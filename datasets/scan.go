package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Column names a column of a CSV points file: by its name in the header,
// or by its 0-based number in a file without one.
type Column struct {
	Name  string
	Index int
	// ByName says which of the two it is.
	ByName bool
}

// ColumnNamed and ColumnAt make the two kinds of Column.
func ColumnNamed(name string) Column { return Column{Name: name, ByName: true} }

// ColumnAt is the column of 0-based number i.
func ColumnAt(i int) Column { return Column{Index: i} }

// String is the column as a spec writes it: "lat" or 0.
func (c Column) String() string {
	if c.ByName {
		return strconv.Quote(c.Name)
	}
	return strconv.Itoa(c.Index)
}

// Delimiters are the field separators of CSV points files, in the order
// in which detection prefers them: tab, semicolon, vertical bar, comma.
const Delimiters = "\t;|,"

// PointsFormat says how a file of check-in points is laid out.
type PointsFormat struct {
	// Detect tells CSV from SNAP by the file's first non-blank line: a
	// well-formed SNAP line makes it SNAP, a line of two or more fields
	// separated by one of Delimiters CSV (read with the fields below);
	// anything else is refused, naming both formats. SNAP is then
	// ignored.
	Detect bool
	// SNAP is the SNAP check-in format of Gowalla and Brightkite: tab-
	// separated user, time, latitude, longitude, location id, one check-in
	// a line; malformed lines are skipped and counted. Otherwise the file
	// is CSV and the fields below apply.
	SNAP bool
	// Header says that the first line names the columns; Lat, Lon and
	// Weight then name columns by name, else by number. A name matches a
	// column of the same name, else the one column whose name differs
	// only in case.
	Header bool
	// Delimiter separates the fields: one of Delimiters, or 0 to take
	// the first of them found in the first non-blank line outside double
	// quotes (a comma when there is none, and never a comma when Decimal
	// is one).
	Delimiter byte
	// Decimal separates a number's integer and fractional parts: '.' (or
	// 0) or ','.
	Decimal byte
	Lat     Column
	Lon     Column
	// Weight, when HasWeight, is a column holding a non-negative number
	// of check-ins for the row (aggregated data; fractions allowed, see
	// Decl); otherwise every row is one check-in.
	Weight    Column
	HasWeight bool
}

// maxWeight bounds one row's weight and maxCheckins the total, so that
// sums of weights stay exact in float64 and counts cannot overflow.
const (
	maxWeight   = 1 << 40
	maxCheckins = 1 << 53
)

// PointStats counts what a scan of a points file read.
type PointStats struct {
	Lines     int // lines read (the header and blank lines included)
	Rows      int // data rows (or well-formed SNAP lines) passed on
	Malformed int // SNAP lines skipped as malformed
	// Weight is the sum of the rows' weights (Rows without a weight
	// column), and Fractional says that some weight is not a whole
	// number.
	Weight     float64
	Fractional bool
	// SNAP says the file was read as SNAP (given or detected); Delimiter
	// is a CSV file's delimiter (given or detected).
	SNAP      bool
	Delimiter byte
	// Examples are the first malformed SNAP lines.
	Examples []*LineError
}

// Dialect describes how the file was read: "snap", or "csv" with its
// delimiter and decimal separator when they are not the defaults
// ("csv, ';'-separated, decimal ','").
func (st PointStats) Dialect(decimal byte) string {
	if st.SNAP {
		return "snap"
	}
	s := "csv"
	if st.Delimiter != ',' && st.Delimiter != 0 {
		s += ", " + DelimiterName(st.Delimiter) + "-separated"
	}
	if decimal == ',' {
		s += ", decimal ','"
	}
	return s
}

// DelimiterName names a delimiter in messages: "tab" or the character
// in quotes.
func DelimiterName(d byte) string {
	if d == '\t' {
		return "tab"
	}
	return strconv.QuoteRune(rune(d))
}

// ScanPoints streams a points file (plain or gzip, told apart by its
// magic bytes) in constant memory and calls fn with every row's latitude,
// longitude and weight (1 without a weight column).
//
// A CSV file is read by RFC 4180's rules (encoding/csv): fields may be
// enclosed in double quotes, and a quoted field may hold the delimiter,
// line breaks and quotes written twice; spaces around a field are
// trimmed (before an opening quote too, except in tab-separated files);
// blank lines are skipped; a UTF-8 byte order mark is dropped. The scan
// stops at the first malformed row with a *LineError naming the file, the
// line and what is wrong: bad quoting, a missing column, a coordinate
// that is not a number or lies outside [-90, 90] (latitude) or [-180,
// 180] (longitude), a weight that is not a finite number >= 0, a record
// longer than 64 KiB. A SNAP file skips and counts malformed lines
// (ScanSNAP). An error from fn stops the scan.
func ScanPoints(r io.Reader, name string, f PointsFormat, fn func(lat, lon, w float64) error) (PointStats, error) {
	dr, closeFn, err := decompress(r)
	if err != nil {
		return PointStats{}, fmt.Errorf("%s: %w", name, err)
	}
	defer closeFn()
	br := newLineReader(dr).br
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	if f.Detect || (!f.SNAP && f.Delimiter == 0) {
		first, no, err := firstLine(br)
		if err != nil {
			return PointStats{}, fmt.Errorf("%s: %w", name, err)
		}
		if !f.SNAP && f.Delimiter == 0 {
			f.Delimiter = detectDelimiter(first.line, f.Decimal)
		}
		if f.Detect {
			if first.line == nil {
				return PointStats{}, fmt.Errorf("%s: empty: no line to read", name)
			}
			f.SNAP = isSNAPLine(first.line)
			if why := first.notCSV(f.Delimiter); !f.SNAP && why != "" {
				return PointStats{}, fmt.Errorf("%s: neither CSV (%s) nor SNAP (tab-separated user, time, latitude, longitude, location id): line %d is %s; set format = \"csv\" or \"snap\" to read it as one of them",
					name, why, no, clip(first.line))
			}
		}
	}
	if f.SNAP {
		st, err := scanPlainSNAP(br, name, func(c *Checkin) error { return fn(c.Lat, c.Lon, 1) })
		return PointStats{Lines: st.Lines, Rows: st.Kept, Malformed: st.Malformed, Weight: float64(st.Kept), SNAP: true, Examples: st.Examples}, err
	}
	return scanCSV(br, name, f, fn)
}

// scanCSV reads a CSV points file whose delimiter is known.
func scanCSV(br *bufio.Reader, name string, f PointsFormat, fn func(lat, lon, w float64) error) (PointStats, error) {
	st := PointStats{Delimiter: f.Delimiter}
	in := &recordLimit{r: br}
	cr := csv.NewReader(in)
	cr.Comma = rune(f.Delimiter)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = f.Delimiter != '\t'
	cols := csvColumns{f: f}
	if !f.Header {
		cols.resolveNumbers()
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			st.Lines = in.lines
			return st, csvError(name, err, in, &st)
		}
		no, _ := cr.FieldPos(0)
		st.Lines = no
		bad := func(field int, format string, a ...any) error {
			line, _ := cr.FieldPos(field)
			return &LineError{File: name, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of spaces
		}
		if f.Header && !cols.named {
			if err := cols.resolveNames(rec); err != nil {
				return st, bad(0, "%v", err)
			}
			continue
		}
		if len(rec) < cols.need {
			return st, bad(0, "%d fields, want at least %d (columns %s; fields separated by %s)", len(rec), cols.need, cols.describe(), DelimiterName(f.Delimiter))
		}
		lat, msg := parseCoordText(rec[cols.lat], "latitude", 90, f.Decimal)
		if msg != "" {
			return st, bad(cols.lat, "%s", msg)
		}
		lon, msg := parseCoordText(rec[cols.lon], "longitude", 180, f.Decimal)
		if msg != "" {
			return st, bad(cols.lon, "%s", msg)
		}
		w := 1.0
		if f.HasWeight {
			if w, msg = parseWeight(rec[cols.weight], f.Decimal); msg != "" {
				return st, bad(cols.weight, "%s", msg)
			}
			if w != math.Trunc(w) {
				st.Fractional = true
			}
		}
		// The headroom is exact while the sum is (at most 2^53), where
		// the sum itself would round 2^53 + 1 down.
		if w > maxCheckins-st.Weight {
			return st, bad(0, "more than %d check-ins in all", int64(maxCheckins))
		}
		st.Rows++
		st.Weight += w
		if err := fn(lat, lon, w); err != nil {
			return st, fmt.Errorf("%s:%d: %w", name, no, err)
		}
	}
	st.Lines = in.lines
	if f.Header && !cols.named {
		return st, fmt.Errorf("%s: empty: no header line naming the columns %s", name, cols.describe())
	}
	return st, nil
}

// errRecordTooLong stops a CSV record that grows past maxLine bytes: a
// corrupt file, or a double quote that is never closed, must not grow the
// reader's memory with the file.
var errRecordTooLong = errors.New("datasets: record too long")

// recordLimit feeds the CSV reader. It counts lines, and follows the
// double quotes to know where records end (a newline outside quotes; a
// quote written twice toggles twice), so that it can stop a record
// longer than maxLine bytes, blank lines between records not counted.
type recordLimit struct {
	r      io.Reader
	lines  int  // newlines read, and a last line without one
	start  int  // the line on which the record being read starts
	run    int  // bytes of that record read so far
	quoted bool // inside a quoted field
	last   byte
}

func (l *recordLimit) Read(p []byte) (int, error) {
	k, err := l.r.Read(p)
	for chunk := p[:k]; len(chunk) > 0; {
		// Up to the next double quote, the chunk's newlines end records
		// unless inside quotes; the quote toggles.
		seg, rest, quote := bytes.Cut(chunk, []byte{'"'})
		if n := bytes.Count(seg, []byte{'\n'}); n > 0 && !l.quoted {
			l.lines += n
			l.run = len(seg) - bytes.LastIndexByte(seg, '\n') - 1
			if l.run > 0 {
				l.start = l.lines + 1
			}
		} else {
			l.lines += n
			if l.run == 0 && len(seg) > 0 {
				l.start = l.lines + 1
			}
			l.run += len(seg)
		}
		if !quote {
			break
		}
		if l.run == 0 {
			l.start = l.lines + 1
		}
		l.run++
		l.quoted = !l.quoted
		chunk = rest
	}
	if k > 0 {
		l.last = p[k-1]
	}
	if err == io.EOF && l.last != '\n' && (k > 0 || l.lines > 0 || l.run > 0) {
		l.lines++
		l.last = '\n'
	}
	if l.run > maxLine {
		return k, errRecordTooLong
	}
	return k, err
}

// csvError turns an error of the CSV reader into one naming the file and
// the line.
func csvError(name string, err error, in *recordLimit, st *PointStats) error {
	var pe *csv.ParseError
	switch {
	case errors.As(err, &pe):
		st.Lines = pe.Line
		what := "an unclosed or stray double quote in a quoted field (a quoted field ends at a delimiter or the end of the line; a quote inside it is written twice)"
		if errors.Is(pe.Err, csv.ErrBareQuote) {
			what = "a double quote inside an unquoted field (enclose the field in double quotes and write the quote twice)"
		}
		return &LineError{File: name, Line: pe.StartLine, Msg: what}
	case errors.Is(err, errRecordTooLong):
		st.Lines = in.start
		return &LineError{File: name, Line: in.start, Msg: fmt.Sprintf("a record longer than %d bytes (a double quote never closed?)", maxLine)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return err // a truncated gzip stream; the caller names it
	}
	return fmt.Errorf("%s:%d: %w", name, in.lines, err)
}

// head is the first line holding more than spaces (its terminator cut)
// and what follows it within the bytes peeked.
type head struct {
	line, rest []byte
	full       bool // the bytes peeked filled the reader's buffer
}

// firstLine returns the first line holding more than spaces and its
// number, peeking at most maxLine bytes without consuming them; a nil
// line when the input has none, an error when the first maxLine bytes
// are blank.
func firstLine(br *bufio.Reader) (head, int, error) {
	buf, err := br.Peek(maxLine)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return head{}, 0, err
	}
	full := len(buf) == maxLine
	for no := 1; len(buf) > 0; no++ {
		line, rest, _ := bytes.Cut(buf, []byte{'\n'})
		if l := bytes.TrimSuffix(line, []byte{'\r'}); len(bytes.TrimSpace(l)) > 0 {
			return head{line: l, rest: buf, full: full}, no, nil
		}
		buf = rest
	}
	if full {
		return head{}, 0, fmt.Errorf("the first %d bytes hold no line of data", maxLine)
	}
	return head{}, 0, nil
}

// notCSV says why the first line cannot start a CSV points file with
// delimiter d ("" when it can): it is not text, or its first record
// (RFC 4180, possibly running over several lines) is malformed or has
// fewer than 2 fields.
func (h head) notCSV(d byte) string {
	if !isText(h.line) {
		return "text of 2 or more fields separated by ',', ';', tab or '|': its first line holds control characters or is not UTF-8"
	}
	r := csv.NewReader(bytes.NewReader(h.rest))
	r.Comma, r.FieldsPerRecord, r.TrimLeadingSpace = rune(d), -1, d != '\t'
	rec, err := r.Read()
	switch {
	case err != nil && !h.full:
		return "its first record is malformed: " + quoteWords(err)
	case err == nil && len(rec) < 2:
		return "a first line of 2 or more fields separated by ',', ';', tab or '|'"
	}
	return ""
}

// quoteWords says what is wrong with a record's double quotes.
func quoteWords(err error) string {
	if errors.Is(err, csv.ErrBareQuote) {
		return "a double quote inside an unquoted field"
	}
	return "an unclosed or stray double quote"
}

// detectDelimiter is the first of Delimiters found in line outside
// double quotes (a comma when none is; never the decimal separator).
func detectDelimiter(line []byte, decimal byte) byte {
	for _, d := range []byte(Delimiters) {
		if d != decimal && countFields(line, d) > 1 {
			return d
		}
	}
	return ','
}

// countFields counts the fields of line separated by d outside double
// quotes.
func countFields(line []byte, d byte) int {
	n, quoted := 1, false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case c == d && !quoted:
			n++
		}
	}
	return n
}

// isSNAPLine reports whether line is a well-formed SNAP check-in.
func isSNAPLine(line []byte) bool {
	var f [5][]byte
	var c Checkin
	return parseCheckin(line, f[:], &c) == ""
}

// isText reports whether line is UTF-8 text without control characters
// other than tabs.
func isText(line []byte) bool {
	if !utf8.Valid(line) {
		return false
	}
	for _, c := range line {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// clip quotes the start of a line for a message.
func clip(line []byte) string {
	const n = 60
	if len(line) > n {
		return strconv.Quote(string(line[:n])) + "..."
	}
	return strconv.Quote(string(line))
}

// csvColumns are the field positions of a CSV points file.
type csvColumns struct {
	f                PointsFormat
	lat, lon, weight int
	need             int  // fields a row must have
	named            bool // the header has been read
}

func (c *csvColumns) resolveNumbers() {
	c.lat, c.lon, c.weight = c.f.Lat.Index, c.f.Lon.Index, c.f.Weight.Index
	c.need = max(c.lat, c.lon) + 1
	if c.f.HasWeight {
		c.need = max(c.need, c.weight+1)
	}
}

// resolveNames finds the named columns in the header record: the column
// of that exact name, else the one whose name differs only in case.
func (c *csvColumns) resolveNames(rec []string) error {
	names := make([]string, len(rec))
	for i, n := range rec {
		names[i] = strings.TrimSpace(n)
	}
	listed := func() string {
		s := "its columns are " + strings.Join(quoteAll(names), ", ")
		if looksLikeData(names) {
			s += " (the first line looks like data: set header = false and number the columns from 0)"
		}
		return s
	}
	find := func(col Column, what string) (int, error) {
		folded := -1
		for i, n := range names {
			if n == col.Name {
				return i, nil
			}
			if strings.EqualFold(n, col.Name) {
				if folded >= 0 {
					return 0, fmt.Errorf("no column %q (%s) in the header, and %q and %q match it but for case; %s", col.Name, what, names[folded], n, listed())
				}
				folded = i
			}
		}
		if folded >= 0 {
			return folded, nil
		}
		return 0, fmt.Errorf("no column %q (%s) in the header; %s", col.Name, what, listed())
	}
	var err error
	if c.lat, err = find(c.f.Lat, "lat_column"); err != nil {
		return err
	}
	if c.lon, err = find(c.f.Lon, "lon_column"); err != nil {
		return err
	}
	if c.lat == c.lon {
		return fmt.Errorf("lat_column %v and lon_column %v are the same column %q", c.f.Lat, c.f.Lon, names[c.lat])
	}
	c.need = max(c.lat, c.lon) + 1
	if c.f.HasWeight {
		if c.weight, err = find(c.f.Weight, "weight_column"); err != nil {
			return err
		}
		c.need = max(c.need, c.weight+1)
	}
	c.named = true
	return nil
}

// looksLikeData reports whether every name of a header parses as a
// number.
func looksLikeData(names []string) bool {
	for _, n := range names {
		if _, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", "."), 64); err != nil {
			return false
		}
	}
	return len(names) > 0
}

func (c *csvColumns) describe() string {
	s := "lat " + c.f.Lat.String() + ", lon " + c.f.Lon.String()
	if c.f.HasWeight {
		s += ", weight " + c.f.Weight.String()
	}
	return s
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return q
}

// number parses a CSV field as a float with the given decimal separator
// (',' or '.'); ok is false when it is not one.
func number(s string, decimal byte) (v float64, ok bool) {
	if decimal == ',' {
		if strings.Contains(s, ".") {
			return 0, false
		}
		s = strings.Replace(s, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		return v, errors.As(err, &ne) && ne.Err == strconv.ErrRange
	}
	return v, true
}

// decimalHint says what to do about a number written with a decimal comma
// in a file read with decimal points.
func decimalHint(s string, decimal byte) string {
	if decimal != ',' && strings.Count(s, ",") == 1 {
		if _, ok := number(s, ','); ok {
			return " (a decimal comma? set decimal = \",\")"
		}
	}
	return ""
}

// parseCoordText parses a latitude (limit 90) or longitude (limit 180)
// field. The message, when not empty, says what is wrong.
func parseCoordText(field, what string, limit float64, decimal byte) (float64, string) {
	s := strings.TrimSpace(field)
	v, ok := number(s, decimal)
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s %q is not a number%s", what, s, decimalHint(s, decimal))
	case math.IsNaN(v):
		return 0, fmt.Sprintf("%s is NaN", what)
	case v < -limit || v > limit: // also catches ±Inf
		return 0, fmt.Sprintf("%s %s outside [%g, %g]", what, s, -limit, limit)
	}
	return v, ""
}

// parseWeight parses a weight: a finite number in [0, maxWeight].
func parseWeight(field string, decimal byte) (float64, string) {
	s := strings.TrimSpace(field)
	v, ok := number(s, decimal)
	switch {
	case !ok || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Sprintf("weight %q is not a number%s: want a number of check-ins >= 0", s, decimalHint(s, decimal))
	case v < 0:
		return 0, fmt.Sprintf("weight %q is negative: want a number of check-ins >= 0", s)
	case v > maxWeight:
		return 0, fmt.Sprintf("weight %s is larger than %d", s, int64(maxWeight))
	}
	return v, ""
}
