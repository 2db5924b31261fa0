package paper

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
	"privic/plots"

	"golang.org/x/sync/errgroup"
)

// ff formats a number for a table cell (machine-independent bytes).
func ff(v float64) string { return harness.FormatFloat(v) }

// itoa formats an integer for a table cell.
func itoa(v int) string { return fmt.Sprint(v) }

// cellParam is a grid cell given in a spec as [row, col], in the grid's own
// indexing (row 0 north, column 0 east).
type cellParam []int

func (c cellParam) validate(key string) error {
	if len(c) != 2 {
		return fmt.Errorf("params.%s = %v: want [row, col]", key, []int(c))
	}
	if c[0] < 0 || c[1] < 0 {
		return fmt.Errorf("params.%s = %v: row and col must be >= 0", key, []int(c))
	}
	return nil
}

// index returns the cell's row-major index in g (the cell is given in g's
// absolute coordinates), or an error naming key when it lies outside g.
func (c cellParam) index(g kernels.Grid, key string) (int, error) {
	i := g.IndexOf(c[0], c[1])
	if i < 0 {
		return 0, fmt.Errorf("params.%s = %v lies outside the grid %v", key, []int(c), g)
	}
	return i, nil
}

// Short names for the shared parameter checks, used throughout the kinds
// (functions, not package variables: no mutable globals).
func oneOf(key, v string, allowed ...string) error { return harness.OneOf(key, v, allowed...) }
func quoteJoin(s []string) string                  { return harness.QuoteJoin(s) }
func positiveFinite(key string, v float64) error   { return harness.PositiveFinite(key, v) }

// betasOK checks a beta list: non-empty, every value finite and > 0,
// no duplicates (duplicates would give two jobs the same key).
func betasOK(key string, vals []float64) error {
	if len(vals) == 0 {
		return fmt.Errorf("params.%s: empty; give at least one value", key)
	}
	seen := map[float64]bool{}
	for i, v := range vals {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("params.%s[%d] = %v: beta must be finite and > 0", key, i, v)
		}
		if seen[v] {
			return fmt.Errorf("params.%s[%d] = %v: duplicate value", key, i, v)
		}
		seen[v] = true
	}
	return nil
}

// table is a small builder for harness.Table.
type table struct{ harness.Table }

func newTable(name string, header ...string) *table {
	return &table{harness.Table{Name: name, Header: header}}
}

// add appends a row; a row whose length differs from the header's is
// refused by the harness when the job's tables are stored.
func (t *table) add(vals ...string) { t.Rows = append(t.Rows, vals) }

// columns maps the requested column names to their positions in t.
func columns(t *harness.Table, names ...string) (map[string]int, error) {
	return harness.Columns(t, names...)
}

// num parses a numeric cell, naming the table, row and column on error.
func num(t *harness.Table, row []string, col map[string]int, name string, line int) (float64, error) {
	v, err := harness.ParseFloat(row[col[name]])
	if err != nil {
		return 0, fmt.Errorf("table %s row %d column %s: %w", t.Name, line+1, name, err)
	}
	return v, nil
}

// namedFigure is a figure and the base name of its files.
type namedFigure struct {
	base string
	fig  *plots.Figure
}

// saveFigures writes every figure as PNG and SVG. Different figures are
// encoded concurrently (rendering dominates a kind's Finish, and Finish
// often runs when the other cores have nothing left to do); the two files
// of one figure are encoded one after the other.
func saveFigures(out *harness.Output, figs []namedFigure) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, f := range figs {
		g.Go(func() error { return harness.WriteFigure(out, f.base, f.fig) })
	}
	return g.Wait()
}

// Verdicts allowed in claims.csv.
const (
	reproduced    = harness.Reproduced
	partly        = harness.Partly
	notReproduced = harness.NotReproduced
)

// claim is one row of claims.csv.
type claim = harness.Claim

// writeClaims writes claims.csv (header claim,evidence,verdict).
func writeClaims(out *harness.Output, claims []claim) error { return harness.WriteClaims(out, claims) }

// writeSkipped writes skipped.csv (header figure,reason); with no rows it
// still writes the header so a rerun that now finds the data clears an
// older entry.
func writeSkipped(out *harness.Output, rows [][2]string) error {
	r := make([][]string, len(rows))
	for i := range rows {
		r[i] = rows[i][:]
	}
	return out.WriteCSV("skipped.csv", []string{"figure", "reason"}, r)
}

// writeSection writes section.md.
func writeSection(out *harness.Output, md string) error { return out.WriteText("section.md", md) }

// mdTable renders a Markdown table.
func mdTable(header []string, rows [][]string) string { return harness.MarkdownTable(header, rows) }

// meanSD returns the mean and the sample standard deviation (n-1
// denominator; 0 for a single value).
func meanSD(v []float64) (mean, sd float64) { return harness.MeanSD(v) }

// fmtG formats a number for prose and Markdown tables with a few
// significant digits.
func fmtG(v float64, digits int) string { return harness.FormatSig(v, digits) }

// fmtList formats numbers as "a, b, c".
func fmtList(v []float64, digits int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmtG(x, digits)
	}
	return strings.Join(s, ", ")
}

// pct formats a probability as a percentage.
func pct(p float64) string { return fmtG(100*p, 3) + "%" }

// defaultRange is harness.SweepRange for constant defaults; a bad constant
// leaves the sweep empty, which Validate then reports.
func defaultRange(start, stop, step float64) harness.Sweep {
	s, err := harness.SweepRange(start, stop, step)
	if err != nil {
		return harness.Sweep{}
	}
	return s
}

// checkCells verifies that the named cells lie inside city's grid.
func checkCells(city string, rows datasets.RowPolicy, cells map[string]cellParam) error {
	ds, err := datasets.Load(city, datasets.LoadOptions{Rows: rows})
	if err != nil {
		return fmt.Errorf("params.city: %w", err)
	}
	for _, key := range []string{"a", "b"} {
		if c, ok := cells[key]; ok {
			if _, err := c.index(ds.Grid, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// citiesOK checks params.cities: non-empty, every name a known city, no
// duplicates (a duplicate would give two jobs the same key).
func citiesOK(cities []string) error {
	if len(cities) == 0 {
		return fmt.Errorf("params.cities: empty; give at least one of %s", quoteJoin(datasets.CityNames()))
	}
	seen := map[string]bool{}
	for i, c := range cities {
		if _, err := datasets.Lookup(c); err != nil {
			return fmt.Errorf("params.cities[%d]: %w", i, err)
		}
		if seen[c] {
			return fmt.Errorf("params.cities[%d] = %q: duplicate", i, c)
		}
		seen[c] = true
	}
	return nil
}

// islandABOK checks params.island, params.a and params.b, and that A and B
// lie inside city's grid (the kinds that draw the island around A).
func islandABOK(city string, rows datasets.RowPolicy, island islandParams, a, b cellParam) error {
	if err := island.validate("island"); err != nil {
		return err
	}
	if err := a.validate("a"); err != nil {
		return err
	}
	if err := b.validate("b"); err != nil {
		return err
	}
	return checkCells(city, rows, map[string]cellParam{"a": a, "b": b})
}
