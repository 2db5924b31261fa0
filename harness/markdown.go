package harness

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// This file holds the small pieces every kind's Finish uses to write its
// report files (section.md, claims.csv, skipped.csv) and to check its
// params, so that the kinds' reports share one spelling.

// MarkdownTable renders header and rows as a GitHub-flavoured Markdown
// table. A '|' inside a cell is escaped so that it cannot split the cell.
func MarkdownTable(header []string, rows [][]string) string {
	var b strings.Builder
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

// FormatSig formats v for prose and Markdown with digits significant
// digits (strconv 'g'; "NaN", "+Inf", "-Inf" spelled out). Unlike
// FormatFloat it rounds, so it is for reading, not for tables that are
// parsed back.
func FormatSig(v float64, digits int) string {
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// Verdicts allowed in claims.csv (CONTRACT: reproduced | partly | not
// reproduced); the report counts rows by these exact strings.
const (
	Reproduced    = "reproduced"
	Partly        = "partly"
	NotReproduced = "not reproduced"
)

// Claim is one row of claims.csv: a claim of the paper, the evidence of
// this run and the verdict (one of Reproduced, Partly, NotReproduced).
type Claim struct{ Claim, Evidence, Verdict string }

// WriteClaims writes claims.csv (header claim,evidence,verdict) into out.
func WriteClaims(out *Output, claims []Claim) error {
	rows := make([][]string, len(claims))
	for i, c := range claims {
		rows[i] = []string{c.Claim, c.Evidence, c.Verdict}
	}
	return out.WriteCSV("claims.csv", []string{"claim", "evidence", "verdict"}, rows)
}

// WriteCSV atomically writes the file rel as CSV: header, then rows (no
// check that rows match the header, unlike WriteTable, so report files
// such as claims.csv may hold free text). With no rows it still writes
// the header, so a rerun clears older rows.
func (o *Output) WriteCSV(rel string, header []string, rows [][]string) error {
	return o.Create(rel, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(header); err != nil {
			return err
		}
		// WriteAll flushes.
		if err := cw.WriteAll(rows); err != nil {
			return err
		}
		return cw.Error()
	})
}

// WriteText atomically writes text to the file rel (e.g. section.md).
func (o *Output) WriteText(rel, text string) error {
	return o.Create(rel, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
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

// QuoteJoin quotes every value and joins them with ", " (for error
// messages listing the allowed values).
func QuoteJoin(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// FigureDPI is the resolution every kind gives its PNG figures: enough for
// 9 pt text to stay crisp, with about half the pixels (and half the
// rendering and PNG encoding time) of the plots package's default 150 dpi.
const FigureDPI = 110

// Figure is what WriteFigure needs of a figure (plots.Figure has it; the
// harness does not import plots, which knows nothing of runs).
type Figure interface {
	SetDPI(dpi int) error
	Encode(w io.Writer, format string) error
}

// WriteFigure sets fig to FigureDPI and writes it as <base>.png and
// <base>.svg, one after the other (a figure is not safe for concurrent
// encoding; callers may write different figures concurrently).
func WriteFigure(out *Output, base string, fig Figure) error {
	if err := fig.SetDPI(FigureDPI); err != nil {
		return fmt.Errorf("figure %s: %w", base, err)
	}
	for _, format := range []string{"png", "svg"} {
		if err := out.Create(base+"."+format, func(w io.Writer) error { return fig.Encode(w, format) }); err != nil {
			return fmt.Errorf("figure %s.%s: %w", base, format, err)
		}
	}
	return nil
}
