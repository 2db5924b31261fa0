package harness_test

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
	// want[digits] maps numbers to their spelling with that many digits.
	want := map[int]map[float64]string{
		2: {0.0001234: "0.00012"},
		3: {1.23456: "1.23", 123456: "1.23e+05", 100: "100", 0.5: "0.5", math.Inf(-1): "-Inf"},
	}
	for digits, m := range want {
		for v, s := range m {
			if got := harness.FormatSig(v, digits); got != s {
				t.Errorf("FormatSig(%v, %d) = %q, want %q", v, digits, got, s)
			}
		}
	}
	if got := harness.FormatSig(math.NaN(), 3); got != "NaN" {
		t.Errorf("FormatSig(NaN) = %q", got)
	}
	if got := harness.FormatList([]float64{1, 0.25, 1e6}, 3); got != "1, 0.25, 1e+06" {
		t.Errorf("FormatList = %q", got)
	}
	if got := harness.FormatPct(0.1234); got != "12.3%" {
		t.Errorf("FormatPct = %q", got)
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

func TestWriteFigures(t *testing.T) {
	dir := t.TempDir()
	out, err := harness.NewOutput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.WriteFigures(harness.NamedFigure{Base: "fig1", Fig: &fakeFigure{}}, harness.NamedFigure{Base: "fig2", Fig: &fakeFigure{}}); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"fig1", "fig2"} {
		for _, format := range []string{"png", "svg"} {
			b, err := os.ReadFile(filepath.Join(dir, base+"."+format))
			if err != nil {
				t.Fatal(err)
			}
			if want := format + "@110"; string(b) != want {
				t.Errorf("%s.%s = %q, want %q", base, format, b, want)
			}
		}
	}
	if err := out.WriteFigures(harness.NamedFigure{Base: "../fig3", Fig: &fakeFigure{}}); err == nil {
		t.Error("a figure outside the directory: no error")
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
