package paper

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
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

// oneOf checks that v is one of allowed, naming key otherwise.
func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("params.%s = %q: allowed values are %s", key, v, quoteJoin(allowed))
}

func quoteJoin(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// positiveFinite checks a float parameter.
func positiveFinite(key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("params.%s = %v: must be finite and > 0", key, v)
	}
	return nil
}

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
		g.Go(func() error {
			if err := f.fig.SetDPI(figureDPI); err != nil {
				return fmt.Errorf("figure %s: %w", f.base, err)
			}
			for _, format := range []string{"png", "svg"} {
				if err := out.Create(f.base+"."+format, func(w io.Writer) error { return f.fig.Encode(w, format) }); err != nil {
					return fmt.Errorf("figure %s.%s: %w", f.base, format, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// figureDPI is the resolution of the PNG figures: enough for 9 pt text to
// stay crisp, and about half the pixels (and half the rendering and PNG
// encoding time) of 150 dpi.
const figureDPI = 110

// Verdicts allowed in claims.csv.
const (
	reproduced    = "reproduced"
	partly        = "partly"
	notReproduced = "not reproduced"
)

// claim is one row of claims.csv.
type claim struct{ Claim, Evidence, Verdict string }

// writeClaims writes claims.csv (header claim,evidence,verdict).
func writeClaims(out *harness.Output, claims []claim) error {
	return out.Create("claims.csv", func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write([]string{"claim", "evidence", "verdict"}); err != nil {
			return err
		}
		for _, c := range claims {
			if err := cw.Write([]string{c.Claim, c.Evidence, c.Verdict}); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeSkipped writes skipped.csv (header figure,reason); with no rows it
// still writes the header so a rerun that now finds the data clears an
// older entry.
func writeSkipped(out *harness.Output, rows [][2]string) error {
	return out.Create("skipped.csv", func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write([]string{"figure", "reason"}); err != nil {
			return err
		}
		for _, r := range rows {
			if err := cw.Write(r[:]); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeSection writes section.md.
func writeSection(out *harness.Output, md string) error {
	return out.Create("section.md", func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	})
}

// mdTable renders a Markdown table.
func mdTable(header []string, rows [][]string) string {
	var b bytes.Buffer
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, h := range header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, v := range r {
			b.WriteString(" " + esc(v) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// meanSD returns the mean and the sample standard deviation (n-1
// denominator; 0 for a single value).
func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// fmtG formats a number for prose and Markdown tables with a few
// significant digits.
func fmtG(v float64, digits int) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.*g", digits, v), ".")
}

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
