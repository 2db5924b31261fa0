package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// testdata/pkg is a small package (a.go, b.go, c.go); testdata/report.json
// is a gremlins report on it: a.go has one killed, three lived and one
// timed-out mutant, b.go two killed and one not covered, c.go was not
// run. testdata/survivors.txt lists two of the lived mutants, one that was
// killed, one in a function that no longer exists and one in c.go.
func TestRun(t *testing.T) {
	var out strings.Builder
	summary := filepath.Join(t.TempDir(), "summary.tsv")
	if err := run(&out, "testdata/report.json", "testdata/pkg", "testdata/pkg", "testdata/survivors.txt", summary); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	hasLines(t, got,
		// 3 killed, 3 lived: 50%; the timed-out and not-covered mutants count for neither.
		"testdata/pkg: efficacy 50.0% (killed 3, lived 3, timed out 1, not covered 1, not viable 0; 2 files, 1m15s)\n",
		"  a.go                     efficacy  25.0% (killed 1, lived 3, timed out 1, not covered 0)\n",
		"  b.go                     efficacy 100.0% (killed 2, lived 0, timed out 0, not covered 1)\n",
		"  survivors: 2 listed as equivalent, 1 new; efficacy without the listed ones 75.0%\n",
		// A new survivor comes as an entry to paste, with its source line.
		"  NEW f CONDITIONALS_NEGATION \"x < 3\" a.go:4:11\treturn x < 3\n",
		"  STALE (*sum).add INCREMENT_DECREMENT \"i++\" b.go:6:27: did not survive this run (killed, or not run) at b.go:6:27\n",
		"  STALE gone CONDITIONALS_BOUNDARY \"a < b\" a.go:20:3: gone is not declared in testdata/pkg (removed, renamed or moved to another package)\n",
	)
	// c.go is not in the report (a run on some files): its entry is
	// neither matched nor stale; the listed mutants are not new.
	for _, bad := range []string{"STALE k ", "NEW g ", "MOVED"} {
		if strings.Contains(got, bad) {
			t.Errorf("output has %q:\n%s", bad, got)
		}
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
	if len(rows) != 2 || !strings.HasPrefix(rows[0], "other:a*.go\t50.0%\t3\t3\t1\t1\t1\t2\t1m15s\t") ||
		!strings.HasPrefix(rows[1], "testdata/pkg\t50.0%\t") {
		t.Errorf("summary rows:\n%s", strings.Join(rows, "\n"))
	}
}

// hasLines reports each wanted piece that the output lacks.
func hasLines(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// copyPkg copies testdata/pkg into a temporary directory, with text
// inserted after the package clause of a.go.
func copyPkg(t *testing.T, insert string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.go", "b.go", "c.go"} {
		b, err := os.ReadFile(filepath.Join("testdata/pkg", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "a.go" {
			b = []byte(strings.Replace(string(b), "package pkg\n", "package pkg\n"+insert, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeReport writes a gremlins report with the given mutants.
func writeReport(t *testing.T, dir string, muts ...mutantStatus) string {
	t.Helper()
	type mut struct {
		Type   string `json:"type"`
		Status string `json:"status"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
	}
	byFile := make(map[string][]mut)
	for _, m := range muts {
		byFile[m.At.File] = append(byFile[m.At.File], mut{m.Type, m.Status, m.At.Line, m.At.Col})
	}
	var files []any
	for name, ms := range byFile {
		files = append(files, map[string]any{"file_name": name, "mutations": ms})
	}
	b, err := json.Marshal(map[string]any{"files": files})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "report.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type mutantStatus struct {
	mutant
	Status string
}

// Inserting lines above listed survivors (here a function with an
// expression of the same text, x > y, and a comment) moves them; the
// entries still match, at their new positions, and are not stale.
func TestEntryMatchesAfterLinesInsertedAbove(t *testing.T) {
	const insert = "\n// unrelated code, added later\nfunc before(x, y int) bool { return x > y }\n"
	dir := copyPkg(t, insert)
	// testdata/report.json's mutants of a.go where a gremlins run on the
	// edited code finds them: three lines further down. The new function's
	// mutant was killed.
	at := func(line, col int) pos { return pos{"a.go", line + 3, col} }
	rep := writeReport(t, t.TempDir(),
		mutantStatus{mutant{at(4, 11), "CONDITIONALS_BOUNDARY"}, killed},
		mutantStatus{mutant{at(4, 11), "CONDITIONALS_NEGATION"}, lived},
		mutantStatus{mutant{at(9, 12), "ARITHMETIC_BASE"}, lived},
		mutantStatus{mutant{at(11, 7), "CONDITIONALS_BOUNDARY"}, lived},
		mutantStatus{mutant{pos{"a.go", 4, 39}, "CONDITIONALS_BOUNDARY"}, killed})
	var out strings.Builder
	if err := run(&out, rep, dir, "pkg", "testdata/survivors.txt", ""); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	hasLines(t, got,
		"pkg: efficacy 40.0% (killed 2, lived 3,",
		"  survivors: 2 listed as equivalent, 1 new;",
		"  NEW f CONDITIONALS_NEGATION \"x < 3\" a.go:7:11\t",
		"  MOVED g ARITHMETIC_BASE \"x * y\" a.go:9:12: now at a.go:12:12 (the position is a hint; update it at leisure)\n",
		"  MOVED g CONDITIONALS_BOUNDARY \"x > y\"#2 a.go:11:7: now at a.go:14:7 (",
	)
	if strings.Contains(got, "STALE g ") || strings.Contains(got, "NEW g ") || strings.Contains(got, "NEW before ") {
		t.Errorf("a moved entry is reported as stale or new:\n%s", got)
	}
}

// Moving a function to another file of the package keeps its entries.
func TestEntryMatchesAfterItsFunctionMovesFile(t *testing.T) {
	dir := copyPkg(t, "")
	b, err := os.ReadFile(filepath.Join(dir, "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	a, g, _ := strings.Cut(string(b), "func g(")
	for name, text := range map[string]string{"a.go": a, "d.go": "package pkg\n\nfunc g(" + g} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// g's listed mutants, now in d.go at lines 5 and 7.
	rep := writeReport(t, t.TempDir(),
		mutantStatus{mutant{pos{"d.go", 5, 12}, "ARITHMETIC_BASE"}, lived},
		mutantStatus{mutant{pos{"d.go", 7, 7}, "CONDITIONALS_BOUNDARY"}, lived})
	var out strings.Builder
	if err := run(&out, rep, dir, "pkg", "testdata/survivors.txt", ""); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	hasLines(t, got,
		"  survivors: 2 listed as equivalent, 0 new;",
		"  MOVED g ARITHMETIC_BASE \"x * y\" a.go:9:12: now at d.go:5:12 (",
		"  MOVED g CONDITIONALS_BOUNDARY \"x > y\"#2 a.go:11:7: now at d.go:7:7 (",
	)
}

// An entry whose function is gone is stale whatever the run covered, with
// one line that says why; so is one whose expression left its function.
func TestCheckReportsGoneFunctionAsStale(t *testing.T) {
	dir := copyPkg(t, "")
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package pkg\n\ntype sum struct{ s int }\n\nfunc (t *sum) add(v []int) {\n\tfor _, x := range v {\n\t\tt.s += x\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	stale, err := checkSurvivors(&out, dir, "testdata/survivors.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	want := "STALE (*sum).add INCREMENT_DECREMENT \"i++\" b.go:6:27: (*sum).add has no \"i++\" that INCREMENT_DECREMENT mutates\n" +
		"STALE gone CONDITIONALS_BOUNDARY \"a < b\" a.go:20:3: gone is not declared in " + dir + " (removed, renamed or moved to another package)\n"
	if got := out.String(); stale != 2 || got != want {
		t.Errorf("check: %d stale, output\n%s\nwant 2 stale, output\n%s", stale, got, want)
	}
}

// -check -hints rewrites the positions of the entries that moved, and
// nothing else.
func TestCheckRewritesMovedHints(t *testing.T) {
	dir := copyPkg(t, "\n// two lines added\n")
	b, err := os.ReadFile("testdata/survivors.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if stale, err := checkSurvivors(&out, dir, p, true); err != nil || stale != 1 {
		t.Fatalf("check: %d stale, %v; want 1 (gone)", stale, err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(" a.go:9:12 ", " a.go:11:12 ", " a.go:11:7 ", " a.go:13:7 ").Replace(string(b))
	if string(got) != want {
		t.Errorf("rewritten file:\n%s\nwant\n%s", got, want)
	}
}

// The conversion from positions to keys maps each old entry to one new
// entry, and on a report in which every mutant of the package survived,
// the old entries (matched by position) and the new ones (matched by key)
// list the same mutants.
func TestConvertKeepsTheListedMutants(t *testing.T) {
	src, err := loadSource("testdata/pkg")
	if err != nil {
		t.Fatal(err)
	}
	text, err := convertLegacy("testdata/survivors-legacy.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("testdata/survivors-legacy.txt")
	if err != nil {
		t.Fatal(err)
	}
	oldLines, newLines := strings.Split(string(old), "\n"), strings.Split(text, "\n")
	if len(oldLines) != len(newLines) {
		t.Fatalf("%d lines converted to %d:\n%s", len(oldLines), len(newLines), text)
	}
	listedBefore := make(map[mutant]bool)
	for i, l := range oldLines {
		if l == "" || strings.HasPrefix(l, "#") {
			if newLines[i] != l {
				t.Errorf("line %d: %q became %q", i+1, l, newLines[i])
			}
			continue
		}
		f := strings.Fields(l)
		p, err := parsePos(f[0])
		if err != nil {
			t.Fatal(err)
		}
		listedBefore[mutant{p, f[1]}] = true
	}
	if want := `g CONDITIONALS_BOUNDARY "x > y"#2 a.go:11:7 the second of two equal tests`; newLines[2] != want {
		t.Errorf("line 3 converted to %q, want %q", newLines[2], want)
	}
	p := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := parseSurvivors(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.entries) != len(listedBefore) || len(list.byKey) != len(listedBefore) {
		t.Errorf("%d entries with %d keys from %d old entries", len(list.entries), len(list.byKey), len(listedBefore))
	}
	var all []mutant
	for at, s := range src.at {
		for _, typ := range mutatorsOf[s.Tok] {
			all = append(all, mutant{at, typ})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	if len(all) != 19 { // 11 tokens, 8 of them with two mutators
		t.Fatalf("%d mutants in testdata/pkg, want 19", len(all))
	}
	matched := 0
	for _, m := range all {
		e := list.find(src.at[m.At], m.Type)
		if (e != nil) != listedBefore[m] {
			t.Errorf("%s: listed by position %v, by key %v", m, listedBefore[m], e != nil)
		}
		if e != nil {
			matched++
			if e.Hint != m.At || e.Type != m.Type {
				t.Errorf("%s matched by %s", m, e)
			}
		}
	}
	if matched != len(listedBefore) {
		t.Errorf("%d mutants matched, want %d", matched, len(listedBefore))
	}
	// A position with no token its mutator changes is refused, naming the line.
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("a.go:4:11 ARITHMETIC_BASE no + there\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := convertLegacy(bad, src); err == nil || !strings.Contains(err.Error(), "bad.txt:1: a.go:4:11 ARITHMETIC_BASE: no token") {
		t.Errorf("conversion of a wrong position: %v", err)
	}
}

func TestParseSurvivorsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"f ARITHMETIC_BASE\n", "too few fields"},
		{"a.go:1:2 ARITHMETIC_BASE why\n", "an entry by position, the form before keys (convert the file with -convert)"},
		{"f arithmetic \"x + 1\" a.go:1:2 why\n", `mutator type "arithmetic"`},
		{"f ARITHMETIC_BASE x+1 a.go:1:2 why\n", "no quoted expression"},
		{"f ARITHMETIC_BASE \"x + 1\"#1 a.go:1:2 why\n", `occurrence "#1"`},
		{"f ARITHMETIC_BASE \"x + 1\"#x a.go:1:2 why\n", `occurrence "#x"`},
		{"f ARITHMETIC_BASE \"x + 1\"a.go:1:2 why\n", "no space after the expression"},
		{"f ARITHMETIC_BASE \"x + 1\" a.go:1 why\n", `position "a.go:1"`},
		{"f ARITHMETIC_BASE \"x + 1\" a.go:0:2 why\n", `position "a.go:0:2"`},
		{"f ARITHMETIC_BASE \"x + 1\" a.go:1:2\n", "no reason"},
		{"f ARITHMETIC_BASE \"x + 1\" a.go:1:2 why\nf ARITHMETIC_BASE \"x + 1\" a.go:9:2 again\n", "listed twice (also on line 2)"},
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
	if list, err := parseSurvivors(filepath.Join(dir, "absent.txt")); err != nil || len(list.entries) != 0 {
		t.Errorf("absent survivors file: %v, %v; want an empty list", list, err)
	}
}
