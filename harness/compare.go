package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Volatile is implemented by kinds whose tables hold values that are not
// a function of the spec and the seed: timings, the machine's load,
// measurements of the machine, LP solves cut by a time limit. Compare
// leaves those parts out of the comparison and lists them.
type Volatile interface {
	// Volatile returns the parts to leave out, given the tables of the
	// sides compared (a part that is volatile on one side is left out of
	// both, for example the rows of a job that hit a time limit in one run
	// only).
	Volatile(sides ...TableSet) []Exclusion
}

// TableSet holds the tables of one experiment directory, by name.
type TableSet map[string]*Table

// Exclusion is a part of a table that Compare leaves out.
type Exclusion struct {
	// Table is the table's name; "*" is every table.
	Table string
	// Columns are the columns left out; nil means whole rows (those that
	// Rows selects), or the whole table when Rows is nil too.
	Columns []string
	// Rows selects the rows concerned (their cells by column name); nil
	// means every row.
	Rows func(row map[string]string) bool
	// Why says in a few words why the part is not a function of the spec
	// and seed ("timings", "LP solves cut by a time limit").
	Why string
}

// ColumnRule returns an Exclusion of columns in every row.
func ColumnRule(table, why string, columns ...string) Exclusion {
	return Exclusion{Table: table, Columns: columns, Why: why}
}

// DefaultTolerance is Compare's relative tolerance on numbers: the
// committed tables are deterministic, so any difference above it is a
// change of the computation (across CPUs, a fused multiply-add may move
// a last digit).
const DefaultTolerance = 1e-9

// Difference is one table that differs between the two directories.
type Difference struct {
	Table string // file name, e.g. "frontier.csv"
	// What says how: missing on one side, other columns, other rows, or
	// the largest difference of each column that differs.
	What string
}

// Comparison is what Compare found for one experiment.
type Comparison struct {
	Name     string
	Tables   int          // tables compared
	Cells    int          // cells compared
	Within   int          // cells whose text differs but whose numbers agree within the tolerance
	Diffs    []Difference // tables that differ beyond the tolerance
	Excluded []string     // parts left out, "table: columns (why)"
	Stale    []string     // warnings: the committed result's code differs from HEAD
}

// OK reports whether nothing differs beyond the tolerance.
func (c Comparison) OK() bool { return len(c.Diffs) == 0 }

// CompareOptions configure Compare.
type CompareOptions struct {
	// Tolerance is the largest relative difference |a-b| / max(|a|, |b|)
	// of two numbers taken as equal; 0 means DefaultTolerance.
	Tolerance float64
	// Kinds looks up the kind of an experiment by the name its manifest
	// records (for its Volatile parts); nil compares every column.
	Kinds func(name string) (Kind, error)
	// Uncommitted, if set, tells the tables that are never committed (the
	// committed directory's path of a table the fresh run wrote, such as a
	// git-ignored per-cell table of 10^4 rows): they are listed as left
	// out instead of counted as missing.
	Uncommitted func(path string) bool
}

// Compare compares the CSV tables of two experiment directories (the
// committed results and a fresh run of the same spec), column by column:
// the same tables, the same header, the same number of rows, and cell by
// cell the same text or, for numbers, values within the tolerance. Parts
// that the kind declares volatile are left out on both sides.
//
// A standard deviation is compared relative to the mean it goes with: a
// column whose name has the word "sd" (sd, emd_sd, emd_sd_m) is paired
// with the column that has "mean" in its place (mean, emd_mean,
// emd_mean_m), when the table has one, and two deviations agree when they
// differ by at most the tolerance times the larger of the four magnitudes.
// The deviation of nearly equal samples is a difference of nearly equal
// numbers, so a last-digit change of the samples moves it far more than
// the tolerance relative to itself.
func Compare(committed, fresh string, opt CompareOptions) (Comparison, error) {
	tol := opt.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	c := Comparison{Name: filepath.Base(committed)}
	old, err := readTableSet(committed)
	if err != nil {
		return c, err
	}
	cur, err := readTableSet(fresh)
	if err != nil {
		return c, err
	}
	var rules []Exclusion
	if opt.Kinds != nil {
		if kindName, err := manifestKind(committed); err == nil {
			if k, err := opt.Kinds(kindName); err == nil {
				if v, ok := k.(Volatile); ok {
					rules = v.Volatile(old, cur)
				}
			}
		}
	}
	for _, r := range rules {
		what := "all columns"
		switch {
		case r.Columns != nil:
			what = strings.Join(r.Columns, ", ")
		case r.Rows != nil:
			what = "some rows"
		}
		table := r.Table
		if table != "*" {
			table += ".csv"
		}
		c.Excluded = append(c.Excluded, fmt.Sprintf("%s: %s (%s)", table, what, r.Why))
	}
	names := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, s := range []TableSet{old, cur} {
			for n := range s {
				if !seen[n] {
					seen[n] = true
					if !yield(n) {
						return
					}
				}
			}
		}
	})
	for _, name := range names {
		a, b := old[name], cur[name]
		file := name + ".csv"
		switch {
		case a == nil && opt.Uncommitted != nil && opt.Uncommitted(filepath.Join(committed, file)):
			c.Excluded = append(c.Excluded, file+": all columns (never committed)")
			continue
		case a == nil:
			c.Diffs = append(c.Diffs, Difference{file, "not committed, but written by the fresh run"})
			continue
		case b == nil:
			c.Diffs = append(c.Diffs, Difference{file, "committed, but not written by the fresh run"})
			continue
		}
		c.Tables++
		if what := compareTable(a, b, rulesFor(rules, name), tol, &c); what != "" {
			c.Diffs = append(c.Diffs, Difference{file, what})
		}
	}
	return c, nil
}

func rulesFor(rules []Exclusion, table string) []Exclusion {
	var out []Exclusion
	for _, r := range rules {
		if r.Table == table || r.Table == "*" {
			out = append(out, r)
		}
	}
	return out
}

// compareTable compares two versions of a table and says how they differ
// beyond tol ("" when they agree).
func compareTable(a, b *Table, rules []Exclusion, tol float64, c *Comparison) string {
	for _, r := range rules {
		if r.Columns == nil && r.Rows == nil {
			return "" // the whole table is volatile
		}
	}
	if !slices.Equal(a.Header, b.Header) {
		return fmt.Sprintf("columns differ: committed %s; fresh %s", strings.Join(a.Header, ","), strings.Join(b.Header, ","))
	}
	rowsA, rowsB := keptRows(a, rules), keptRows(b, rules)
	if len(rowsA) != len(rowsB) {
		return fmt.Sprintf("%d rows committed, %d fresh (volatile rows left out)", len(rowsA), len(rowsB))
	}
	skip := map[int]bool{}
	for _, r := range rules {
		if r.Columns != nil && r.Rows == nil {
			for i, h := range a.Header {
				if slices.Contains(r.Columns, h) {
					skip[i] = true
				}
			}
		}
	}
	type worst struct {
		rel      float64
		line     int
		old, new string
		text     bool
	}
	bad := map[int]*worst{}
	mean := meanColumns(a.Header)
	for k := range rowsA {
		ra, rb := a.Rows[rowsA[k]], b.Rows[rowsB[k]]
		for j := range a.Header {
			if skip[j] || rowVolatileCell(a, rowsA[k], j, rules) || rowVolatileCell(b, rowsB[k], j, rules) {
				continue
			}
			c.Cells++
			x, y := cell(ra, j), cell(rb, j)
			if x == y {
				continue
			}
			rel, numeric := relDiff(x, y)
			if m, ok := mean[j]; ok && numeric && rel > tol {
				rel = spreadDiff(x, y, cell(ra, m), cell(rb, m))
			}
			if numeric && rel <= tol {
				c.Within++
				continue
			}
			w := bad[j]
			if w == nil {
				w = &worst{rel: -1}
				bad[j] = w
			}
			if !numeric {
				if !w.text {
					*w = worst{rel: math.Inf(1), line: rowsA[k] + 2, old: x, new: y, text: true}
				}
			} else if !w.text && rel > w.rel {
				*w = worst{rel: rel, line: rowsA[k] + 2, old: x, new: y}
			}
		}
	}
	if len(bad) == 0 {
		return ""
	}
	var parts []string
	for j, h := range a.Header {
		w := bad[j]
		if w == nil {
			continue
		}
		if w.text {
			parts = append(parts, fmt.Sprintf("%s: line %d %q -> %q", h, w.line, clip(w.old), clip(w.new)))
		} else {
			parts = append(parts, fmt.Sprintf("%s: up to %.3g relative (line %d: %s -> %s)", h, w.rel, w.line, w.old, w.new))
		}
	}
	return strings.Join(parts, "; ")
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func cell(row []string, j int) string {
	if j < len(row) {
		return row[j]
	}
	return ""
}

// relDiff is |a-b| / max(|a|, |b|) when both cells are numbers (0 for
// equal numbers, including equal infinities and two NaN), and reports
// whether they are.
func relDiff(x, y string) (float64, bool) {
	a, errA := ParseFloat(x)
	b, errB := ParseFloat(y)
	if errA != nil || errB != nil {
		return 0, false
	}
	switch {
	case a == b, math.IsNaN(a) && math.IsNaN(b):
		return 0, true
	case math.IsNaN(a), math.IsNaN(b), math.IsInf(a, 0), math.IsInf(b, 0):
		return math.Inf(1), true
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b)), true
}

// meanColumns maps the index of each standard-deviation column of header
// to that of its mean (see Compare).
func meanColumns(header []string) map[int]int {
	out := map[int]int{}
	for j, h := range header {
		words := strings.Split(h, "_")
		i := slices.Index(words, "sd")
		if i < 0 {
			continue
		}
		words[i] = "mean"
		if m := slices.Index(header, strings.Join(words, "_")); m >= 0 {
			out[j] = m
		}
	}
	return out
}

// spreadDiff is the difference of two deviations x and y relative to the
// largest magnitude among them and their means mx and my (+Inf when a
// mean is not a finite number).
func spreadDiff(x, y, mx, my string) float64 {
	a, _ := ParseFloat(x)
	b, _ := ParseFloat(y)
	ma, errA := ParseFloat(mx)
	mb, errB := ParseFloat(my)
	scale := max(math.Abs(a), math.Abs(b), math.Abs(ma), math.Abs(mb))
	if errA != nil || errB != nil || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return math.Inf(1)
	}
	return math.Abs(a-b) / scale
}

// keptRows lists the rows of t that no whole-row rule removes.
func keptRows(t *Table, rules []Exclusion) []int {
	var out []int
	for i := range t.Rows {
		drop := false
		for _, r := range rules {
			if r.Columns == nil && r.Rows != nil && r.Rows(rowMap(t, i)) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, i)
		}
	}
	return out
}

// rowVolatileCell reports whether a rule with both columns and rows
// leaves out cell (i, j) of t.
func rowVolatileCell(t *Table, i, j int, rules []Exclusion) bool {
	for _, r := range rules {
		if r.Columns != nil && r.Rows != nil && slices.Contains(r.Columns, t.Header[j]) && r.Rows(rowMap(t, i)) {
			return true
		}
	}
	return false
}

func rowMap(t *Table, i int) map[string]string {
	m := make(map[string]string, len(t.Header))
	for j, h := range t.Header {
		m[h] = cell(t.Rows[i], j)
	}
	return m
}

// readTableSet reads every <name>.csv of an experiment directory.
func readTableSet(dir string) (TableSet, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	set := TableSet{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".csv")
		if !ok || e.IsDir() {
			continue
		}
		t, err := readCSV(filepath.Join(dir, e.Name()), name)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		set[name] = t
	}
	return set, nil
}

// manifestKind reads the kind recorded in an experiment directory's
// manifest.
func manifestKind(dir string) (string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return "", err
	}
	return m.Kind, nil
}

// ReadManifest reads the manifest.json of an experiment directory.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s", dir, manifestFile)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifestFile), err)
	}
	return &m, nil
}
