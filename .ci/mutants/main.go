// Command mutants summarises one gremlins run (its -o JSON report) on one
// package: efficacy, counts by status, and the mutants that survived,
// split into those the package's survivors file explains and new ones.
//
// The survivors file (<pkg>/testdata/mutation-survivors.txt) lists one
// known equivalent mutant per line,
//
//	<function> <MUTATOR_TYPE> "<expression>"[#<n>] <file>:<line>:<col> <reason>
//	binomialBTRD CONDITIONALS_BOUNDARY "km < 0" binomial.go:110:9 km = 0 negated is 0: the same km
//
// The key is the part before the position: the declaration the mutated
// token lies in, the mutator, the token's expression or statement as gofmt
// prints it and, if the declaration holds that text more than once, which
// one; CONTRIBUTING.md (Mutation testing) spells it out. The package's
// source maps each lived mutant's position to its key, so entries still
// match after lines are added or removed elsewhere, or their function
// moves to another file of the package; the position is a hint for the
// reader (MOVED when it is out of date). Lines starting with # and blank
// lines are ignored.
//
// Entries that did not survive a run that covered their file, and entries
// whose function or expression is gone from the package, are reported as
// STALE, so the file follows the code; -check reports the latter without a
// run, and -check -hints rewrites the positions of moved entries. A new
// survivor is printed as an entry without its reason, to paste.
//
// With -summary FILE, the run's line in that table (one line per scope:
// a package, or a package restricted to some files, as PKG:GLOBS) is added
// or replaced. -convert rewrites a file of <file>:<line>:<col> entries (the
// form before keys) from the source they were written against (-src).
//
//	go run ./.ci/mutants [-survivors FILE] [-summary FILE] [-scope SCOPE] -pkg PKG REPORT.json
//	go run ./.ci/mutants [-survivors FILE] -check [-hints] -pkg PKG
//	go run ./.ci/mutants [-survivors FILE] -convert [-src DIR] -pkg PKG
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

// mutant is a mutation as gremlins reports it: the position of the
// mutated token and the mutator.
type mutant struct {
	At   pos
	Type string
}

func (m mutant) String() string { return m.At.String() + " " + m.Type }

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
				r.lived = append(r.lived, mutant{pos{name, m.Line, m.Column}, m.Type})
			}
		}
	}
	sort.Slice(r.lived, func(i, j int) bool {
		a, b := r.lived[i], r.lived[j]
		if a.At != b.At {
			return a.At.less(b.At)
		}
		return a.Type < b.Type
	})
	return r, nil
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

// print writes the package's summary and tells how many survivors the
// survivors file does not list. A lived mutant is matched to an entry by
// the key of the token at its position in the package's source (src),
// so the source must be the code the report was made on.
func (r *result) print(w io.Writer, list *survivors, src *source) (newCount int) {
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
	matched := make(map[*entry]pos)
	var fresh []string
	for _, m := range r.lived {
		s := src.at[m.At]
		if s == nil || !applies(s.Tok, m.Type) {
			fresh = append(fresh, fmt.Sprintf("%s (%s has no token that %s mutates there: is the report older than the code?)",
				m, src.dir, m.Type))
			continue
		}
		if e := list.find(s, m.Type); e != nil {
			matched[e] = m.At
			continue
		}
		fresh = append(fresh, fmt.Sprintf("%s %s\t%s", s.key(m.Type), m.At, sourceLine(filepath.Join(src.dir, m.At.File), m.At.Line)))
	}
	k := r.counts[killed]
	fmt.Fprintf(w, "  survivors: %d listed as equivalent, %d new; efficacy without the listed ones %.1f%%\n",
		len(matched), len(fresh), 100*float64(k)/float64(max(1, k+len(fresh))))
	for _, f := range fresh {
		fmt.Fprintf(w, "  NEW %s\n", f)
	}
	for _, e := range list.entries {
		if at, ok := matched[e]; ok {
			if at != e.Hint {
				fmt.Fprintf(w, "  MOVED %s: now at %s (the position is a hint; update it at leisure)\n", e, at)
			}
			continue
		}
		s, why := src.resolve(e)
		if s == nil {
			fmt.Fprintf(w, "  STALE %s: %s\n", e, why)
		} else if _, ran := r.byFile[s.At.File]; ran {
			// A run on some of the package's files says nothing of the others.
			fmt.Fprintf(w, "  STALE %s: did not survive this run (killed, or not run) at %s\n", e, s.At)
		}
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
	return writeFile(path, out)
}

func main() {
	pkg := flag.String("pkg", "", "the package directory, relative to the module root (e.g. kernels/emd)")
	survivors := flag.String("survivors", "", "survivors file (default <pkg>/testdata/mutation-survivors.txt)")
	summary := flag.String("summary", "", "summary table to update with the run's line")
	scope := flag.String("scope", "", "the run's name in the summary table (default PKG; PKG:GLOBS for a run on some files)")
	check := flag.Bool("check", false, "without a report: list the entries whose code is gone from the package")
	hints := flag.Bool("hints", false, "with -check: rewrite the positions of moved entries")
	convert := flag.Bool("convert", false, "rewrite a survivors file of <file>:<line>:<col> entries into keyed ones")
	srcDir := flag.String("src", "", "with -convert: the package's source the positions refer to (default PKG)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mutants -pkg PKG [-survivors FILE] [-summary FILE] [-scope SCOPE] REPORT.json\n"+
			"       mutants -pkg PKG [-survivors FILE] -check [-hints]\n"+
			"       mutants -pkg PKG [-survivors FILE] -convert [-src DIR]")
		flag.PrintDefaults()
	}
	flag.Parse()
	reports := 1
	if *check || *convert {
		reports = 0
	}
	if *pkg == "" || flag.NArg() != reports || (*check && *convert) {
		flag.Usage()
		os.Exit(2)
	}
	if *survivors == "" {
		*survivors = filepath.Join(*pkg, "testdata", "mutation-survivors.txt")
	}
	if *scope == "" {
		*scope = *pkg
	}
	var err error
	switch {
	case *check:
		var stale int
		if stale, err = checkSurvivors(os.Stdout, *pkg, *survivors, *hints); err == nil && stale > 0 {
			err = fmt.Errorf("%s: %d stale entries", *survivors, stale)
		}
	case *convert:
		if *srcDir == "" {
			*srcDir = *pkg
		}
		err = convertFile(*srcDir, *survivors)
	default:
		err = run(os.Stdout, flag.Arg(0), *pkg, *scope, *survivors, *summary)
	}
	if err != nil {
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
	list, err := parseSurvivors(survivorsPath)
	if err != nil {
		return err
	}
	src, err := loadSource(pkg)
	if err != nil {
		return err
	}
	fresh := r.print(w, list, src)
	if summaryPath != "" {
		return updateSummary(summaryPath, r.summaryLine(scope, fresh, time.Now().UTC().Format("2006-01-02")), scope)
	}
	return nil
}

// checkSurvivors reports the entries whose site is gone from the package's
// source, one line each, and counts them. With hints, it rewrites the
// positions of the entries that moved.
func checkSurvivors(w io.Writer, pkg, survivorsPath string, hints bool) (int, error) {
	list, err := parseSurvivors(survivorsPath)
	if err != nil {
		return 0, err
	}
	src, err := loadSource(pkg)
	if err != nil {
		return 0, err
	}
	stale := 0
	moved := make(map[int]string) // line -> the entry with its new position
	for _, e := range list.entries {
		s, why := src.resolve(e)
		switch {
		case s == nil:
			stale++
			fmt.Fprintf(w, "STALE %s: %s\n", e, why)
		case s.At != e.Hint:
			fmt.Fprintf(w, "MOVED %s: now at %s\n", e, s.At)
			moved[e.line] = e.key() + " " + s.At.String() + " " + e.Reason
		}
	}
	if !hints || len(moved) == 0 {
		return stale, nil
	}
	b, err := os.ReadFile(survivorsPath)
	if err != nil {
		return stale, err
	}
	lines := strings.Split(string(b), "\n")
	for n, l := range moved {
		lines[n-1] = l
	}
	return stale, writeFile(survivorsPath, strings.Join(lines, "\n"))
}

// writeFile replaces path's content through a temporary file.
func writeFile(path, content string) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, content)
		return err
	})
}

// convertFile converts a survivors file to keyed entries in place, naming
// each entry from the source in dir.
func convertFile(dir, survivorsPath string) error {
	src, err := loadSource(dir)
	if err != nil {
		return err
	}
	out, err := convertLegacy(survivorsPath, src)
	if err != nil {
		return err
	}
	if _, err := parseSurvivorsText(survivorsPath, out); err != nil { // two old entries with one key
		return fmt.Errorf("converted file does not parse: %w", err)
	}
	return writeFile(survivorsPath, out)
}
