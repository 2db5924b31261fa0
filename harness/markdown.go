package harness

import (
	"io"
	"strconv"
	"strings"
)

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

// FormatList formats numbers as "a, b, c" with FormatSig.
func FormatList(v []float64, digits int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = FormatSig(x, digits)
	}
	return strings.Join(s, ", ")
}

// WriteText atomically writes text to the file rel (e.g. a Markdown
// version of a table).
func (o *Output) WriteText(rel, text string) error {
	return o.Create(rel, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}
