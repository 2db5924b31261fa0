package harness_test

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/harness"
)

// TestTableAddWritesByName writes rows given by column name, in parts
// and in any order, and checks the bytes of the CSV against a
// hand-written file: header order, number formatting and CSV quoting.
func TestTableAddWritesByName(t *testing.T) {
	tb := harness.NewTable("runs", "city", "beta", "sims", "seconds", "note")
	tb.Add(harness.Row{"note": `a "quoted", note`, "city": "paris"}, harness.Row{"seconds": int64(12), "sims": 3, "beta": 0.1})
	tb.Add(harness.Row{"city": "sf", "beta": math.NaN(), "sims": 0, "seconds": math.Copysign(0, -1), "note": ""})
	tb.Add(harness.Row{"sims": -2, "city": "x", "note": "two\nlines", "seconds": 2.5e-7, "beta": 1e21})
	if err := tb.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}
	dir := t.TempDir()
	out, err := harness.NewOutput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.WriteTable(*tb); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "city,beta,sims,seconds,note\n" +
		"paris,0.1,3,12,\"a \"\"quoted\"\", note\"\n" +
		"sf,NaN,0,0,\n" +
		"x,1e+21,-2,2.5e-07,\"two\nlines\"\n"
	if string(got) != want {
		t.Errorf("runs.csv:\n%s\nwant\n%s", got, want)
	}
}

// TestTableAddRefuses checks that a row missing a column, naming an
// unknown one, giving one twice or holding an unformattable value is
// refused with an error naming the table, the row and the column; that
// the table keeps its first refusal; and that it is not written.
func TestTableAddRefuses(t *testing.T) {
	for _, c := range []struct {
		what  string
		parts []harness.Row
		want  string
	}{
		{"missing", []harness.Row{{"city": "paris", "beta": 0.5}},
			`table frontier row 1: missing column "emd"`},
		{"unknown", []harness.Row{{"city": "paris", "beta": 0.5, "emd": 0.25, "emdd": 0.25}},
			`table frontier row 1: unknown column "emdd" (the columns are city,beta,emd)`},
		{"twice", []harness.Row{{"city": "paris", "beta": 0.5}, {"beta": 0.5, "emd": 0.25}},
			`table frontier row 1: column "beta" given twice`},
		{"type", []harness.Row{{"city": "paris", "beta": true, "emd": 0.25}},
			`table frontier row 1: column "beta": cannot format a bool (use a string, float64, int or int64)`},
		{"no parts", nil, `table frontier row 1: missing column "city"`},
	} {
		tb := harness.NewTable("frontier", "city", "beta", "emd")
		tb.Add(harness.Row{"city": "sf", "beta": 1.0, "emd": 2.0})
		tb.Add(c.parts...)
		if err := tb.Err(); err == nil || err.Error() != c.want {
			t.Errorf("%s: Err = %v, want %s", c.what, err, c.want)
		}
		tb.Add(harness.Row{"city": "sf", "beta": 2.0, "emd": 1.0})
		if err := tb.Err(); err == nil || err.Error() != c.want {
			t.Errorf("%s: after a good row, Err = %v, want the first refusal %s", c.what, err, c.want)
		}
		if len(tb.Rows) != 1 {
			t.Errorf("%s: %d rows, want the 1 before the refusal", c.what, len(tb.Rows))
		}
		dir := t.TempDir()
		out, err := harness.NewOutput(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := out.WriteTable(*tb); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: WriteTable = %v, want the refusal %s", c.what, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "frontier.csv")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: frontier.csv written despite the refusal (stat: %v)", c.what, err)
		}
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
