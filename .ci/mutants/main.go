// Command mutants summarises one gremlins run (its -o JSON report) on one
// package: efficacy, counts by status, and the mutants that survived,
// split into those the package's survivors file explains and new ones.
//
// The survivors file (<pkg>/testdata/mutation-survivors.txt) lists one
// known equivalent mutant per line,
//
//	<file>:<line>:<col> <MUTATOR_TYPE> <reason>
//
// where the reason says why no test can tell the mutant from the original
// (for example "changes only the pivot order, not the result"). Lines
// starting with # and blank lines are ignored. Entries that no longer
// survive are reported as stale, so the file follows the code.
//
// With -summary FILE, the run's line in that table (one line per scope:
// a package, or a package restricted to some files, as PKG:GLOBS) is added
// or replaced.
//
//	go run ./.ci/mutants [-survivors FILE] [-summary FILE] [-scope SCOPE] -pkg PKG REPORT.json
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"privic/internal/atomicfile"
)

// report is the part of gremlins' JSON output used here.
type report struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
	ElapsedTime float64 `json:"elapsed_time"`
}

// mutant identifies a mutation: the position of the mutated token and the
// mutator.
type mutant struct {
	File      string
	Line, Col int
	Type      string
}

func (m mutant) String() string { return fmt.Sprintf("%s:%d:%d %s", m.File, m.Line, m.Col, m.Type) }

// Gremlins' statuses.
const (
	killed     = "KILLED"
	lived      = "LIVED"
	timedOut   = "TIMED OUT"
	notCovered = "NOT COVERED"
	notViable  = "NOT VIABLE"
)

// result is one package's run.
type result struct {
	pkg     string
	counts  map[string]int
	byFile  map[string]map[string]int // file -> status -> count
	files   int
	lived   []mutant
	elapsed time.Duration
}

// efficacy is killed / (killed + lived) in percent, gremlins' definition
// (mutants that time out count for neither).
func efficacy(counts map[string]int) float64 {
	k, l := counts[killed], counts[lived]
	if k+l == 0 {
		return 100
	}
	return 100 * float64(k) / float64(k+l)
}

func (r *result) efficacy() float64 { return efficacy(r.counts) }

func parseReport(rd io.Reader, pkg string) (*result, error) {
	var rep report
	if err := json.NewDecoder(rd).Decode(&rep); err != nil {
		return nil, fmt.Errorf("gremlins report: %w", err)
	}
	r := &result{pkg: pkg, counts: make(map[string]int), byFile: make(map[string]map[string]int),
		files: len(rep.Files), elapsed: time.Duration(rep.ElapsedTime * float64(time.Second))}
	for _, f := range rep.Files {
		name := filepath.ToSlash(f.Name)
		if r.byFile[name] == nil {
			r.byFile[name] = make(map[string]int)
		}
		for _, m := range f.Mutations {
			r.counts[m.Status]++
			r.byFile[name][m.Status]++
			if m.Status == lived {
				r.lived = append(r.lived, mutant{name, m.Line, m.Column, m.Type})
			}
		}
	}
	sort.Slice(r.lived, func(i, j int) bool {
		a, b := r.lived[i], r.lived[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Type < b.Type
	})
	return r, nil
}

// parseSurvivors reads a survivors file: mutant -> reason. A missing file
// is an empty list.
func parseSurvivors(path string) (map[mutant]string, error) {
	known := make(map[mutant]string)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return known, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		bad := func(why string) error {
			return fmt.Errorf("%s:%d: %s; want <file>:<line>:<col> <MUTATOR_TYPE> <reason>", path, i+1, why)
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, bad("too few fields")
		}
		pos := strings.Split(f[0], ":")
		if len(pos) != 3 {
			return nil, bad(fmt.Sprintf("position %q", f[0]))
		}
		ln, err1 := strconv.Atoi(pos[1])
		col, err2 := strconv.Atoi(pos[2])
		if err1 != nil || err2 != nil || ln < 1 || col < 1 {
			return nil, bad(fmt.Sprintf("position %q", f[0]))
		}
		if strings.ToUpper(f[1]) != f[1] {
			return nil, bad(fmt.Sprintf("mutator type %q", f[1]))
		}
		m := mutant{pos[0], ln, col, f[1]}
		if _, dup := known[m]; dup {
			return nil, bad(m.String() + " listed twice")
		}
		known[m] = strings.Join(f[2:], " ")
	}
	return known, nil
}

// sourceLine returns line n of file (1-based), trimmed, or "".
func sourceLine(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return strings.TrimSpace(sc.Text())
		}
	}
	return ""
}

// print writes the package's summary and tells whether every survivor is
// explained by the survivors file.
func (r *result) print(w io.Writer, known map[mutant]string, dir string) (newCount int) {
	fmt.Fprintf(w, "%s: efficacy %.1f%% (killed %d, lived %d, timed out %d, not covered %d, not viable %d; %d files, %s)\n",
		r.pkg, r.efficacy(), r.counts[killed], r.counts[lived], r.counts[timedOut], r.counts[notCovered],
		r.counts[notViable], r.files, r.elapsed.Round(time.Second))
	names := make([]string, 0, len(r.byFile))
	for f := range r.byFile {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		c := r.byFile[f]
		fmt.Fprintf(w, "  %-24s efficacy %5.1f%% (killed %d, lived %d, timed out %d, not covered %d)\n",
			f, efficacy(c), c[killed], c[lived], c[timedOut], c[notCovered])
	}
	alive := make(map[mutant]bool)
	var fresh []mutant
	for _, m := range r.lived {
		alive[m] = true
		if _, ok := known[m]; !ok {
			fresh = append(fresh, m)
		}
	}
	listed := len(r.lived) - len(fresh)
	k := r.counts[killed]
	fmt.Fprintf(w, "  survivors: %d listed as equivalent, %d new; efficacy without the listed ones %.1f%%\n",
		listed, len(fresh), 100*float64(k)/float64(max(1, k+len(fresh))))
	for _, m := range fresh {
		fmt.Fprintf(w, "  NEW %s\t%s\n", m, sourceLine(filepath.Join(dir, m.File), m.Line))
	}
	var stale []mutant
	for m := range known {
		// A run on some of the package's files says nothing of the others.
		if _, ran := r.byFile[m.File]; ran && !alive[m] {
			stale = append(stale, m)
		}
	}
	sort.Slice(stale, func(i, j int) bool { return stale[i].String() < stale[j].String() })
	for _, m := range stale {
		fmt.Fprintf(w, "  STALE %s (listed, but did not survive this run: killed, moved or not run)\n", m)
	}
	return len(fresh)
}

// summaryHeader heads the summary table.
const summaryHeader = "scope\tefficacy\tkilled\tlived\tnew\ttimed-out\tnot-covered\tfiles\ttime\tdate"

// summaryLine is the run's row in the summary table.
func (r *result) summaryLine(scope string, fresh int, date string) string {
	return fmt.Sprintf("%s\t%.1f%%\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s", scope, r.efficacy(), r.counts[killed],
		r.counts[lived], fresh, r.counts[timedOut], r.counts[notCovered], r.files, r.elapsed.Round(time.Second), date)
}

// updateSummary adds or replaces the scope's line in the summary table.
func updateSummary(path, line, scope string) error {
	var rows []string
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	replaced := false
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") || l == summaryHeader {
			continue
		}
		if strings.Split(l, "\t")[0] == scope {
			l, replaced = line, true
		}
		rows = append(rows, l)
	}
	if !replaced {
		rows = append(rows, line)
	}
	sort.Strings(rows)
	out := "# ./run.sh mutate: gremlins v0.6.0 per package (or PKG:GLOBS, some of its files); efficacy = killed / (killed + lived);\n" +
		"# new = survivors not listed in <package>/testdata/mutation-survivors.txt\n" +
		summaryHeader + "\n" + strings.Join(rows, "\n") + "\n"
	return atomicfile.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, out); return err })
}

func main() {
	pkg := flag.String("pkg", "", "the package directory, relative to the module root (e.g. kernels/emd)")
	survivors := flag.String("survivors", "", "survivors file (default <pkg>/testdata/mutation-survivors.txt)")
	summary := flag.String("summary", "", "summary table to update with the run's line")
	scope := flag.String("scope", "", "the run's name in the summary table (default PKG; PKG:GLOBS for a run on some files)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mutants -pkg PKG [-survivors FILE] [-summary FILE] [-scope SCOPE] REPORT.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *pkg == "" || flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *survivors == "" {
		*survivors = filepath.Join(*pkg, "testdata", "mutation-survivors.txt")
	}
	if *scope == "" {
		*scope = *pkg
	}
	if err := run(os.Stdout, flag.Arg(0), *pkg, *scope, *survivors, *summary); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, reportPath, pkg, scope, survivorsPath, summaryPath string) error {
	f, err := os.Open(reportPath)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := parseReport(f, pkg)
	if err != nil {
		return fmt.Errorf("%s: %w", reportPath, err)
	}
	known, err := parseSurvivors(survivorsPath)
	if err != nil {
		return err
	}
	fresh := r.print(w, known, pkg)
	if summaryPath != "" {
		return updateSummary(summaryPath, r.summaryLine(scope, fresh, time.Now().UTC().Format("2006-01-02")), scope)
	}
	return nil
}
