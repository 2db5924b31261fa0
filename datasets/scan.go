package datasets

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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

// PointsFormat says how a file of check-in points is laid out.
type PointsFormat struct {
	// SNAP is the SNAP check-in format of Gowalla and Brightkite: tab-
	// separated user, time, latitude, longitude, location id, one check-in
	// a line; malformed lines are skipped and counted. Otherwise the file
	// is CSV and the fields below apply.
	SNAP bool
	// Header says that the first line names the columns; Lat, Lon and
	// Weight then name columns by name, else by number.
	Header bool
	Lat    Column
	Lon    Column
	// Weight, when HasWeight, is a column holding a non-negative integer
	// number of check-ins for the row (aggregated data); otherwise every
	// row is one check-in.
	Weight    Column
	HasWeight bool
}

// maxWeight bounds one row's weight and maxCheckins the total, so that
// sums of int counts cannot overflow.
const (
	maxWeight   = 1 << 40
	maxCheckins = 1 << 53
)

// PointStats counts what a scan of a points file read.
type PointStats struct {
	Lines     int // lines read (the header included)
	Rows      int // data rows (or well-formed SNAP lines) passed on
	Malformed int // SNAP lines skipped as malformed
	Checkins  int // check-ins passed on: the sum of the rows' weights
	// Examples are the first malformed SNAP lines.
	Examples []*LineError
}

// ScanPoints streams a points file (plain or gzip, told apart by its
// magic bytes) in constant memory and calls fn with every row's latitude,
// longitude and weight (1 without a weight column). A CSV file stops at
// the first malformed line with a *LineError naming the file, the line
// and what is wrong: a missing column, a coordinate that is not a number
// or lies outside [-90, 90] (latitude) or [-180, 180] (longitude), a
// weight that is not a non-negative integer. Blank lines are skipped. CSV
// fields are separated by commas and may be enclosed in double quotes;
// a field cannot itself hold a comma. A SNAP file skips and counts
// malformed lines (ScanSNAP). An error from fn stops the scan.
func ScanPoints(r io.Reader, name string, f PointsFormat, fn func(lat, lon float64, w int) error) (PointStats, error) {
	if f.SNAP {
		st, err := ScanSNAP(r, name, func(c *Checkin) error { return fn(c.Lat, c.Lon, 1) })
		return PointStats{Lines: st.Lines, Rows: st.Kept, Malformed: st.Malformed, Checkins: st.Kept, Examples: st.Examples}, err
	}
	var st PointStats
	cols := csvColumns{f: f}
	if !f.Header {
		cols.resolveNumbers()
	}
	fields := make([][]byte, cols.need)
	err := eachLine(r, name, func(line []byte, tooLong bool, no int) error {
		st.Lines++
		bad := func(format string, a ...any) error {
			return &LineError{File: name, Line: no, Msg: fmt.Sprintf(format, a...)}
		}
		if tooLong {
			return bad("line longer than %d bytes", maxLine)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		if f.Header && !cols.named {
			if err := cols.resolveNames(line); err != nil {
				return bad("%v", err)
			}
			fields = make([][]byte, cols.need)
			return nil
		}
		if k := splitFields(line, ',', fields); k < cols.need {
			return bad("%d fields, want at least %d (columns %s)", k, cols.need, cols.describe())
		}
		lat, msg := parseCoord(unquote(fields[cols.lat]), "latitude", 90)
		if msg != "" {
			return bad("%s", msg)
		}
		lon, msg := parseCoord(unquote(fields[cols.lon]), "longitude", 180)
		if msg != "" {
			return bad("%s", msg)
		}
		w := 1
		if f.HasWeight {
			if w, msg = parseWeight(unquote(fields[cols.weight])); msg != "" {
				return bad("%s", msg)
			}
		}
		st.Rows++
		st.Checkins += w
		if st.Checkins > maxCheckins {
			return bad("more than %d check-ins in all", int64(maxCheckins))
		}
		if err := fn(lat, lon, w); err != nil {
			return fmt.Errorf("%s:%d: %w", name, no, err)
		}
		return nil
	})
	if err == nil && f.Header && !cols.named {
		err = fmt.Errorf("%s: empty: no header line naming the columns %s", name, cols.describe())
	}
	return st, err
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

// resolveNames finds the named columns in the header line.
func (c *csvColumns) resolveNames(line []byte) error {
	var names []string
	for f := range bytes.SplitSeq(line, []byte{','}) {
		names = append(names, string(unquote(f)))
	}
	find := func(col Column, what string) (int, error) {
		for i, n := range names {
			if n == col.Name {
				return i, nil
			}
		}
		return 0, fmt.Errorf("no column %q (%s) in the header; its columns are %s", col.Name, what, strings.Join(quoteAll(names), ", "))
	}
	var err error
	if c.lat, err = find(c.f.Lat, "lat_column"); err != nil {
		return err
	}
	if c.lon, err = find(c.f.Lon, "lon_column"); err != nil {
		return err
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

// unquote trims spaces and one pair of enclosing double quotes.
func unquote(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = bytes.TrimSpace(b[1 : len(b)-1])
	}
	return b
}

// parseWeight parses a non-negative integer weight.
func parseWeight(b []byte) (int, string) {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err == nil && v >= 0 && v <= maxWeight {
		return int(v), ""
	}
	if err == nil && v > maxWeight {
		return 0, fmt.Sprintf("weight %d is larger than %d", v, int64(maxWeight))
	}
	if f, ferr := strconv.ParseFloat(string(b), 64); ferr == nil && !math.IsNaN(f) {
		if f < 0 {
			return 0, fmt.Sprintf("weight %q is negative: want a non-negative integer number of check-ins", b)
		}
		return 0, fmt.Sprintf("weight %q is not an integer: want a non-negative integer number of check-ins", b)
	}
	return 0, fmt.Sprintf("weight %q is not a non-negative integer", b)
}
