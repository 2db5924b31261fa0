package harness_test

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/harness"
)

func TestMarkdownTable(t *testing.T) {
	got := harness.MarkdownTable([]string{"a", "b|c"}, [][]string{{"1", "x|y"}, {"", "2"}})
	want := "| a | b\\|c |\n|---|---|\n| 1 | x\\|y |\n|  | 2 |\n"
	if got != want {
		t.Errorf("MarkdownTable:\n%q\nwant\n%q", got, want)
	}
	if got := harness.MarkdownTable([]string{"h"}, nil); got != "| h |\n|---|\n" {
		t.Errorf("MarkdownTable with no rows = %q", got)
	}
}

func TestFormatSig(t *testing.T) {
	for _, c := range []struct {
		v      float64
		digits int
		want   string
	}{
		{1.23456, 3, "1.23"},
		{0.0001234, 2, "0.00012"},
		{123456, 3, "1.23e+05"},
		{100, 3, "100"},
		{0.5, 3, "0.5"},
		{math.NaN(), 3, "NaN"},
		{math.Inf(-1), 3, "-Inf"},
	} {
		if got := harness.FormatSig(c.v, c.digits); got != c.want {
			t.Errorf("FormatSig(%v, %d) = %q, want %q", c.v, c.digits, got, c.want)
		}
	}
}

func TestReportFiles(t *testing.T) {
	dir := t.TempDir()
	out, err := harness.NewOutput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	claims := []harness.Claim{
		{Claim: "EMD falls, as in \"Fig. 9\"", Evidence: "1, 2", Verdict: harness.Reproduced},
		{Claim: "c2", Evidence: "e2", Verdict: harness.NotReproduced},
	}
	if err := harness.WriteClaims(out, claims); err != nil {
		t.Fatal(err)
	}
	if err := out.WriteCSV("skipped.csv", []string{"figure", "reason"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := out.WriteText("section.md", "## S\n"); err != nil {
		t.Fatal(err)
	}
	// RFC 4180 quoting: fields with ',' or '"' are quoted, '"' doubled.
	for name, want := range map[string]string{
		"claims.csv":  "claim,evidence,verdict\n\"EMD falls, as in \"\"Fig. 9\"\"\",\"1, 2\",reproduced\nc2,e2,not reproduced\n",
		"skipped.csv": "figure,reason\n",
		"section.md":  "## S\n",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if err := out.WriteText("../escape.md", "x"); err == nil {
		t.Error("WriteText outside the directory: no error")
	}
}

func TestColumns(t *testing.T) {
	tb := &harness.Table{Name: "t", Header: []string{"x", "y", "z"}}
	col, err := harness.Columns(tb, "z", "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(col) != 2 || col["z"] != 2 || col["x"] != 0 {
		t.Errorf("Columns = %v, want map[x:0 z:2]", col)
	}
	if _, err := harness.Columns(tb, "x", "w"); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("Columns with a missing column: err = %v, want one naming \"w\"", err)
	}
}

func TestParamChecks(t *testing.T) {
	if got := harness.QuoteJoin([]string{"a", `b"c`}); got != `"a", "b\"c"` {
		t.Errorf("QuoteJoin = %s", got)
	}
	if err := harness.OneOf("mode", "b", "a", "b"); err != nil {
		t.Errorf("OneOf allowed value: %v", err)
	}
	err := harness.OneOf("mode", "c", "a", "b")
	if err == nil || err.Error() != `params.mode = "c": allowed values are "a", "b"` {
		t.Errorf("OneOf bad value: err = %v", err)
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if harness.PositiveFinite("beta", v) == nil {
			t.Errorf("PositiveFinite(%v): no error", v)
		}
	}
	if err := harness.PositiveFinite("beta", 1e-300); err != nil {
		t.Errorf("PositiveFinite(1e-300): %v", err)
	}
}

// fakeFigure records the DPI it was given and writes it with the format.
type fakeFigure struct{ dpi int }

func (f *fakeFigure) SetDPI(dpi int) error { f.dpi = dpi; return nil }
func (f *fakeFigure) Encode(w io.Writer, format string) error {
	_, err := fmt.Fprintf(w, "%s@%d", format, f.dpi)
	return err
}

func TestWriteFigure(t *testing.T) {
	dir := t.TempDir()
	out, err := harness.NewOutput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.WriteFigure(out, "fig1", &fakeFigure{}); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"png", "svg"} {
		b, err := os.ReadFile(filepath.Join(dir, "fig1."+format))
		if err != nil {
			t.Fatal(err)
		}
		if want := format + "@110"; string(b) != want {
			t.Errorf("fig1.%s = %q, want %q", format, b, want)
		}
	}
}

func TestIntIn(t *testing.T) {
	if err := harness.IntIn("sims", 3, 1, 10); err != nil {
		t.Errorf("3 in [1, 10]: %v", err)
	}
	for _, v := range []int{0, 11} {
		err := harness.IntIn("sims", v, 1, 10)
		want := fmt.Sprintf("params.sims = %d: must lie in [1, 10]", v)
		if err == nil || err.Error() != want {
			t.Errorf("IntIn(%d): %v, want %q", v, err, want)
		}
	}
}
