// Command testsummary reads `go test -json` output on stdin, prints what
// plain `go test` would (one line per package, and the output of failing
// tests), and ends with the count of tests run and every skipped test
// with its reason, so that a skip is never silent.
//
// A skip whose reason mentions "../shared" belongs to a test that needs
// the project's shared data directory. With -data (run.sh passes it when
// that directory exists) such a skip is a failure: the data was there, so
// the test should have run.
//
// The exit status is 1 when a package failed or did not build, or when a
// data test skipped under -data, and 0 otherwise.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

// dataMarker marks the reason of a skip caused by missing shared data.
const dataMarker = "../shared"

func main() {
	data := flag.Bool("data", false, "the shared data directory exists: a test that skips for want of it fails")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go test -json ./... | testsummary [-data]")
		flag.PrintDefaults()
	}
	flag.Parse()
	s := newSummary(os.Stdout)
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if !s.report(*data) {
		os.Exit(1)
	}
}

// result is the outcome of one test or subtest.
type result struct {
	pkg, test string
	action    string   // pass, fail or skip
	output    []string // its output lines, in order
}

type pkgState struct {
	out   []string // package-level output (no test)
	tests map[string]*result
	order []string
}

type summary struct {
	w        io.Writer
	pkgs     map[string]*pkgState
	results  []*result // finished tests, in completion order
	failed   []string  // packages that failed
	builds   []string  // packages that did not build
	building map[string][]string
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, pkgs: make(map[string]*pkgState), building: make(map[string][]string)}
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{tests: make(map[string]*result)}
		s.pkgs[name] = p
	}
	return p
}

// read consumes the event stream. Lines that are not JSON (go command
// messages such as module downloads) are printed as they come.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(s.w, string(line))
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		s.building[e.ImportPath] = append(s.building[e.ImportPath], e.Output)
		return
	case "build-fail":
		fmt.Fprint(s.w, strings.Join(s.building[e.ImportPath], ""))
		s.builds = append(s.builds, e.ImportPath)
		return
	}
	if e.Package == "" {
		return
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		switch e.Action {
		case "output":
			p.out = append(p.out, e.Output)
		case "pass", "skip":
			// "ok  pkg 1.2s" or "?   pkg [no test files]".
			for _, l := range p.out {
				if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") {
					fmt.Fprint(s.w, l)
				}
			}
		case "fail":
			s.failed = append(s.failed, e.Package)
			for _, name := range p.order {
				if t := p.tests[name]; t.action == "fail" {
					fmt.Fprint(s.w, strings.Join(quiet(t.output), ""))
				}
			}
			fmt.Fprint(s.w, strings.Join(quiet(p.out), ""))
		}
		return
	}
	t := p.tests[e.Test]
	if t == nil {
		t = &result{pkg: e.Package, test: e.Test}
		p.tests[e.Test] = t
		p.order = append(p.order, e.Test)
	}
	switch e.Action {
	case "output":
		t.output = append(t.output, e.Output)
	case "pass", "fail", "skip":
		t.action = e.Action
		s.results = append(s.results, t)
	}
}

// quiet drops the progress lines of -v output that plain go test does not
// print.
func quiet(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "PASS") || strings.HasPrefix(strings.TrimSpace(l), "--- PASS") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// reason is the skip message of a skipped test: its log lines without the
// progress lines, joined on one line.
func (r *result) reason() string {
	var parts []string
	for _, l := range r.output {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// report prints the totals and the skipped tests, and tells whether the
// run passed.
func (s *summary) report(data bool) bool {
	var pass, fail, top int
	var skips, dataSkips []*result
	for _, r := range s.results {
		if !strings.Contains(r.test, "/") {
			top++
		}
		switch r.action {
		case "pass":
			pass++
		case "fail":
			fail++
		case "skip":
			skips = append(skips, r)
			if strings.Contains(r.reason(), dataMarker) {
				dataSkips = append(dataSkips, r)
			}
		}
	}
	sort.SliceStable(skips, func(i, j int) bool {
		if skips[i].pkg != skips[j].pkg {
			return skips[i].pkg < skips[j].pkg
		}
		return skips[i].test < skips[j].test
	})
	fmt.Fprintf(s.w, "== tests: %d passed, %d failed, %d skipped (%d tests and subtests, %d top-level, in %d packages)\n",
		pass, fail, len(skips), len(s.results), top, len(s.pkgs))
	if len(skips) == 0 {
		fmt.Fprintln(s.w, "== skipped: none")
	} else {
		fmt.Fprintf(s.w, "== skipped: %d\n", len(skips))
		for _, r := range skips {
			fmt.Fprintf(s.w, "  %s %s: %s\n", r.pkg, r.test, r.reason())
		}
	}
	ok := len(s.failed) == 0 && len(s.builds) == 0 && fail == 0
	if len(s.builds) > 0 {
		fmt.Fprintf(s.w, "== did not build: %s\n", strings.Join(s.builds, ", "))
	}
	if len(s.failed) > 0 {
		fmt.Fprintf(s.w, "== failed packages: %s\n", strings.Join(s.failed, ", "))
	}
	if data && len(dataSkips) > 0 {
		ok = false
		fmt.Fprintf(s.w, "== %d data tests skipped although the shared data directory exists (a skip is a failure here):\n", len(dataSkips))
		for _, r := range dataSkips {
			fmt.Fprintf(s.w, "  %s %s\n", r.pkg, r.test)
		}
	}
	return ok
}
