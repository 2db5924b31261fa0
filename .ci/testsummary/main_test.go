package main

import (
	"os"
	"strings"
	"testing"
)

// testdata/sample.json is `go test -json ./...` (timestamps removed) on a
// scratch module with a passing package holding a data skip and a skipped
// subtest, a package with a failing test, one that does not build and one
// without tests.
func readSample(t *testing.T) (*summary, *strings.Builder) {
	t.Helper()
	f, err := os.Open("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	s := newSummary(&out)
	if err := s.read(f); err != nil {
		t.Fatal(err)
	}
	return s, &out
}

func TestSummary(t *testing.T) {
	for _, data := range []bool{false, true} {
		s, out := readSample(t)
		if s.report(data) {
			t.Errorf("data=%v: a run with a failing test and a build failure passed", data)
		}
		got := out.String()
		for _, want := range []string{
			"ok  \texample.com/ts/a\t",
			"?   \texample.com/ts/d\t[no test files]",
			"c/c_test.go:5:33: undefined: undefined",
			"b_test.go:5: got 1, want 2",
			"--- FAIL: TestFail",
			"== tests: 4 passed, 1 failed, 2 skipped (7 tests and subtests, 5 top-level, in 4 packages)",
			"== skipped: 2\n",
			"  example.com/ts/a TestSkipData: a_test.go:6: SKIPPING: needs ../shared next to the module root\n",
			"  example.com/ts/a TestSub/two: a_test.go:9: not on this platform\n",
			"== did not build: example.com/ts/c",
			"== failed packages: example.com/ts/c, example.com/ts/b",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("data=%v: output lacks %q:\n%s", data, want, got)
			}
		}
		for _, hidden := range []string{"=== RUN", "noise that plain go test hides", "--- PASS"} {
			if strings.Contains(got, hidden) {
				t.Errorf("data=%v: output shows %q, which plain go test hides:\n%s", data, hidden, got)
			}
		}
		dataFail := strings.Contains(got, "1 data tests skipped although the shared data directory exists")
		if dataFail != data {
			t.Errorf("data=%v: data skip reported as a failure: %v\n%s", data, dataFail, got)
		}
	}
}

// TestSummaryPasses: a stream of passes and a skip that does not need the
// shared data passes, with or without -data; a data skip fails only with
// -data.
func TestSummaryPasses(t *testing.T) {
	lines := []string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: REASON\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}`,
		`{"Action":"pass","Package":"p"}`,
		`go: downloading example.com/x v1.0.0`,
	}
	for _, tc := range []struct {
		reason string
		data   bool
		pass   bool
	}{
		{"needs a C compiler", false, true},
		{"needs a C compiler", true, true},
		{"the city data needs ../shared", false, true},
		{"the city data needs ../shared", true, false},
	} {
		var out strings.Builder
		s := newSummary(&out)
		in := strings.ReplaceAll(strings.Join(lines, "\n"), "REASON", tc.reason)
		if err := s.read(strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		if got := s.report(tc.data); got != tc.pass {
			t.Errorf("%q data=%v: passed %v, want %v\n%s", tc.reason, tc.data, got, tc.pass, out.String())
		}
		for _, want := range []string{"ok  \tp\t0.1s\n", "go: downloading", "p TestB: b_test.go:3: " + tc.reason, "1 passed, 0 failed, 1 skipped"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: output lacks %q:\n%s", tc.reason, want, out.String())
			}
		}
	}
}
