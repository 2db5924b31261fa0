package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	list := "# comment\n\n" +
		"one\tkernels/a.go\tx <= y\tx < y\tgo test ./kernels/\n" +
		`two	kernels/b.go	a\tb\nc\\d	e	go test -run TestX ./kernels/` + "\n"
	bugs, err := parseList("l.tsv", []byte(list))
	if err != nil {
		t.Fatal(err)
	}
	if len(bugs) != 2 || bugs[0].name != "one" || bugs[0].find != "x <= y" || bugs[0].replace != "x < y" ||
		bugs[0].line != 3 || bugs[1].find != "a\tb\nc\\d" || bugs[1].command != "go test -run TestX ./kernels/" {
		t.Errorf("parsed %+v", bugs)
	}
	for _, tc := range []struct{ line, want string }{
		{"one\ta.go\tx\ty", "4 tab-separated fields, want 5"},
		{"one two\ta.go\tx\ty\tgo test", `name "one two"`},
		{"one\t/abs/a.go\tx\ty\tgo test", `file "/abs/a.go"`},
		{"one\t../a.go\tx\ty\tgo test", `file "../a.go"`},
		{"one\ta.go\t\ty\tgo test", "empty find text"},
		{"one\ta.go\tx\tx\tgo test", "replacement equals the find text"},
		{"one\ta.go\tx\ty\t ", "empty command"},
		{"one\ta.go\tx\\q\ty\tgo test", `find: unknown escape \q`},
		{"one\ta.go\tx\ty\\\tgo test", `replace: trailing \`},
		{"one\ta.go\tx\ty\tgo test\none\ta.go\tz\ty\tgo test", `l.tsv:2: name "one" already used on line 1`},
	} {
		_, err := parseList("l.tsv", []byte(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "l.tsv:") {
			t.Errorf("%q: error %v, want l.tsv:LINE: ...%s", tc.line, err, tc.want)
		}
	}
}

// TestReplay runs the outcomes on a scratch module whose test checks that
// min3 returns the smallest of three numbers.
func TestReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a scratch module (a few seconds); skipped in -short mode")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module scratch\n\ngo 1.22\n")
	write("m/m.go", "package m\n\nfunc min3(a, b, c int) int {\n\tm := a\n\tif b < m {\n\t\tm = b\n\t}\n\tif c < m {\n\t\tm = c\n\t}\n\treturn m\n}\n")
	write("m/m_test.go", "package m\n\nimport \"testing\"\n\nfunc TestMin3(t *testing.T) {\n\tif min3(3, 1, 2) != 1 || min3(3, 2, 1) != 1 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n")
	r := &replayer{dir: dir, log: &strings.Builder{}, baseline: make(map[string]string)}
	const test = "go test ./m"
	for _, tc := range []struct {
		b    bug
		want string
	}{
		{bug{name: "second-ignored", file: "m/m.go", find: "if b < m", replace: "if false && b < m", command: test}, caught},
		{bug{name: "tie-break", file: "m/m.go", find: "if c < m", replace: "if c <= m", command: test}, notCaught},
		{bug{name: "gone", file: "m/m.go", find: "if d < m", replace: "if d <= m", command: test}, missing},
		{bug{name: "no-file", file: "m/n.go", find: "x", replace: "y", command: test}, missing},
		{bug{name: "twice", file: "m/m.go", find: "< m", replace: "> m", command: test}, ambiguous + " (2 matches)"},
		{bug{name: "syntax", file: "m/m.go", find: "return m", replace: "return m +", command: test}, noBuild},
		{bug{name: "bad-command", file: "m/m.go", find: "if b < m", replace: "if b > m", command: "go test ./nowhere"}, baseFails},
	} {
		got, err := r.replay(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.b.name, got, tc.want)
		}
	}
	// Every file is restored.
	if b, _ := os.ReadFile(filepath.Join(dir, "m/m.go")); !strings.Contains(string(b), "if b < m {\n\t\tm = b") || strings.Contains(string(b), "false") {
		t.Errorf("m.go not restored:\n%s", b)
	}
}
