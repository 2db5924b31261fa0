package harness

import (
	"fmt"
	"strconv"
	"strings"
)

// NewTable starts a table with the given columns; Add appends its rows.
func NewTable(name string, header ...string) *Table {
	return &Table{Name: name, Header: header}
}

// Add appends a row. Each value is formatted for the table: a string as
// it is, a float64 with FormatFloat, an integer in decimal; a []string
// contributes its elements. A row whose length differs from the header's
// is refused when the table is stored.
func (t *Table) Add(vals ...any) {
	row := make([]string, 0, len(t.Header))
	for _, v := range vals {
		switch x := v.(type) {
		case string:
			row = append(row, x)
		case float64:
			row = append(row, FormatFloat(x))
		case int:
			row = append(row, strconv.Itoa(x))
		case int64:
			row = append(row, strconv.FormatInt(x, 10))
		case []string:
			row = append(row, x...)
		default:
			panic(fmt.Sprintf("table %s: cannot format a %T", t.Name, v))
		}
	}
	t.Rows = append(t.Rows, row)
}

// Columns maps the requested column names to their positions in t, or
// fails naming the first missing one and the columns t has.
func Columns(t *Table, names ...string) (map[string]int, error) {
	pos := map[string]int{}
	for i, h := range t.Header {
		pos[h] = i
	}
	out := map[string]int{}
	for _, n := range names {
		i, ok := pos[n]
		if !ok {
			return nil, fmt.Errorf("table %s: no column %q (have %s)", t.Name, n, strings.Join(t.Header, ","))
		}
		out[n] = i
	}
	return out, nil
}

// Reader reads a table's cells by row index and column name, parsing
// numbers. The first error sticks: later reads return zero values, and
// Err reports it naming the table, the line and the column.
type Reader struct {
	t   *Table
	col map[string]int
	err error
}

// Reader checks that t has the named columns and returns a reader of its
// cells.
func (t *Table) Reader(names ...string) (*Reader, error) {
	if _, err := Columns(t, names...); err != nil {
		return nil, err
	}
	col := make(map[string]int, len(t.Header))
	for i, h := range t.Header {
		col[h] = i
	}
	return &Reader{t: t, col: col}, nil
}

// Err is the first error of a read, or nil.
func (r *Reader) Err() error { return r.err }

// Str returns the cell of row i in column name.
func (r *Reader) Str(i int, name string) string {
	c, ok := r.col[name]
	if !ok || i < 0 || i >= len(r.t.Rows) || c >= len(r.t.Rows[i]) {
		r.fail(i, name, fmt.Errorf("no such cell"))
		return ""
	}
	return r.t.Rows[i][c]
}

// Float parses the cell of row i in column name (see ParseFloat).
func (r *Reader) Float(i int, name string) float64 {
	s := r.Str(i, name)
	if r.err != nil {
		return 0
	}
	v, err := ParseFloat(s)
	if err != nil {
		r.fail(i, name, err)
	}
	return v
}

// Int parses the cell of row i in column name as a decimal integer.
func (r *Reader) Int(i int, name string) int {
	s := r.Str(i, name)
	if r.err != nil {
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		r.fail(i, name, fmt.Errorf("%q is not an integer", s))
	}
	return v
}

func (r *Reader) fail(i int, name string, err error) {
	if r.err == nil {
		// Line 1 of the file is the header.
		r.err = fmt.Errorf("table %s line %d column %s: %w", r.t.Name, i+2, name, err)
	}
}
