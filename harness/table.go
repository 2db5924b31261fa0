package harness

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// NewTable starts a table with the given columns, in the order they are
// written; Add appends its rows by column name.
func NewTable(name string, header ...string) *Table {
	return &Table{Name: name, Header: header}
}

// Row is one row of a table by column name. Each value is formatted for
// the table: a string as it is, a float64 with FormatFloat, an int or
// int64 in decimal.
type Row map[string]any

// Add appends one row, given by column name in one or more parts (say a
// kind's own columns and the columns a helper measures), and writes it
// in the header's order. The parts together must give every column of
// the table exactly once and no other: a row that misses a column, names
// one the table lacks, gives one twice or holds a value of another type
// is refused. The table keeps the first refusal (Err), and the harness
// refuses to store a table that has one, so that a refused row never
// leaves a partial result behind.
func (t *Table) Add(parts ...Row) {
	if t.err != nil {
		return
	}
	row, err := t.lay(parts)
	if err != nil {
		t.err = fmt.Errorf("table %s row %d: %w", t.Name, len(t.Rows), err)
		return
	}
	t.Rows = append(t.Rows, row)
}

// Err is the first refusal of Add, or nil.
func (t *Table) Err() error { return t.err }

// lay formats parts as a row in the header's order.
func (t *Table) lay(parts []Row) ([]string, error) {
	row := make([]string, len(t.Header))
	given := make([]bool, len(t.Header))
	for _, part := range parts {
		for _, name := range slices.Sorted(maps.Keys(part)) {
			i := slices.Index(t.Header, name)
			switch {
			case i < 0:
				return nil, fmt.Errorf("unknown column %q (the columns are %s)", name, strings.Join(t.Header, ","))
			case given[i]:
				return nil, fmt.Errorf("column %q given twice", name)
			}
			cell, err := formatCell(part[name])
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", name, err)
			}
			row[i], given[i] = cell, true
		}
	}
	if i := slices.Index(given, false); i >= 0 {
		return nil, fmt.Errorf("missing column %q", t.Header[i])
	}
	return row, nil
}

// formatCell formats a value of a Row.
func formatCell(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		return FormatFloat(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	return "", fmt.Errorf("cannot format a %T (use a string, float64, int or int64)", v)
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
