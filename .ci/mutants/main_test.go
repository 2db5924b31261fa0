package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/report.json is a hand-written gremlins report: a.go has one
// killed, two lived and one timed-out mutant, b.go two killed and one not
// covered; survivors.txt explains one of the lived mutants, lists one
// that is gone and one in a file the report does not cover.
func TestRun(t *testing.T) {
	var out strings.Builder
	summary := filepath.Join(t.TempDir(), "summary.tsv")
	if err := run(&out, "testdata/report.json", "testdata/pkg", "testdata/pkg", "testdata/survivors.txt", summary); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		// 3 killed, 2 lived: 60%; the timed-out and not-covered mutants count for neither.
		"testdata/pkg: efficacy 60.0% (killed 3, lived 2, timed out 1, not covered 1, not viable 0; 2 files, 1m15s)\n",
		"  a.go                     efficacy  33.3% (killed 1, lived 2, timed out 1, not covered 0)\n",
		"  b.go                     efficacy 100.0% (killed 2, lived 0, timed out 0, not covered 1)\n",
		"survivors: 1 listed as equivalent, 1 new; efficacy without the listed ones 75.0%\n",
		"NEW a.go:3:7 CONDITIONALS_NEGATION\tfunc f(x int) bool {\n",
		"STALE b.go:9:1 INCREMENT_DECREMENT",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// c.go is not in the report (a run on some files): its entry is not stale.
	if strings.Contains(got, "STALE c.go") {
		t.Errorf("a survivor of a file the run did not cover is reported as stale:\n%s", got)
	}
	if strings.Contains(got, "NEW a.go:4:9") {
		t.Errorf("a listed survivor is reported as new:\n%s", got)
	}
	// A second package's run adds a line; a rerun of the first replaces its own.
	if err := run(&out, "testdata/report.json", "testdata/pkg", "other:a*.go", "testdata/survivors.txt", summary); err != nil {
		t.Fatal(err)
	}
	if err := run(&out, "testdata/report.json", "testdata/pkg", "testdata/pkg", "testdata/survivors.txt", summary); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "#") && l != summaryHeader {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2 || !strings.HasPrefix(rows[0], "other:a*.go\t60.0%\t3\t2\t1\t1\t1\t2\t1m15s\t") ||
		!strings.HasPrefix(rows[1], "testdata/pkg\t60.0%\t") {
		t.Errorf("summary rows:\n%s", strings.Join(rows, "\n"))
	}
}

func TestParseSurvivorsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"a.go:1:2 ARITHMETIC_BASE\n", "too few fields"},
		{"a.go:1 ARITHMETIC_BASE why\n", `position "a.go:1"`},
		{"a.go:x:2 ARITHMETIC_BASE why\n", `position "a.go:x:2"`},
		{"a.go:0:2 ARITHMETIC_BASE why\n", `position "a.go:0:2"`},
		{"a.go:1:2 arithmetic why\n", `mutator type "arithmetic"`},
		{"a.go:1:2 ARITHMETIC_BASE why\na.go:1:2 ARITHMETIC_BASE again\n", "listed twice"},
	} {
		p := filepath.Join(dir, "s.txt")
		if err := os.WriteFile(p, []byte("# header\n"+tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := parseSurvivors(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.txt:") {
			t.Errorf("%q: error %v, want one naming the file, line and %q", tc.text, err, tc.want)
		}
	}
	if known, err := parseSurvivors(filepath.Join(dir, "absent.txt")); err != nil || len(known) != 0 {
		t.Errorf("absent survivors file: %v, %v; want an empty list", known, err)
	}
}
