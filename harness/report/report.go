package paper

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"privic/harness"
)

// reportOrder is the fixed order of known experiments in REPORT.md; other
// experiment directories follow in name order.
var reportOrder = []string{"datasets", "elastic", "ba-vs-lap", "privic-convergence", "beta-sweep",
	"adversarial", "runtime", "mechanisms"}

// reportFile is the assembled report's name inside the results directory.
const reportFile = "REPORT.md"

// experimentDir is what Report gathers from one results/<name>/.
type experimentDir struct {
	name     string
	section  string // section.md, links rewritten; "" when absent
	claims   [][3]string
	skipped  [][2]string
	manifest *harness.Manifest
	problems []string // unreadable files, reported in the run facts
}

// Report assembles resultsDir/REPORT.md from every experiment directory in
// resultsDir (one holding a section.md or a manifest.json): the sections in
// a fixed order (datasets, elastic, ba-vs-lap, privic-convergence,
// beta-sweep, adversarial, runtime, mechanisms, then the others by name),
// with their relative links rewritten to point into the experiment's
// directory; then a table of every claim checked (claims.csv), the
// figures skipped and why (skipped.csv), and the run facts from each
// manifest.json. The file is written atomically.
func Report(resultsDir string) error {
	entries, err := os.ReadDir(resultsDir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var exps []*experimentDir
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		x, err := readExperimentDir(filepath.Join(resultsDir, e.Name()), e.Name())
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if x != nil {
			exps = append(exps, x)
		}
	}
	sort.SliceStable(exps, func(i, j int) bool {
		ri, rj := rank(exps[i].name), rank(exps[j].name)
		if ri != rj {
			return ri < rj
		}
		return exps[i].name < exps[j].name
	})
	md := renderReport(exps)
	return writeAtomic(filepath.Join(resultsDir, reportFile), []byte(md))
}

func rank(name string) int {
	if i := slices.Index(reportOrder, name); i >= 0 {
		return i
	}
	return len(reportOrder)
}

// readExperimentDir reads one directory; it returns nil for directories
// that are not experiments (neither section.md nor manifest.json).
func readExperimentDir(dir, name string) (*experimentDir, error) {
	x := &experimentDir{name: name}
	found := false
	if b, err := os.ReadFile(filepath.Join(dir, "section.md")); err == nil {
		found = true
		x.section = rewriteLinks(string(b), name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s/section.md: %w", name, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		found = true
		var m harness.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			x.problems = append(x.problems, fmt.Sprintf("manifest.json unreadable: %v", err))
		} else {
			x.manifest = &m
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s/manifest.json: %w", name, err)
	}
	if !found {
		return nil, nil
	}
	rows, err := readCSVFile(filepath.Join(dir, "claims.csv"), []string{"claim", "evidence", "verdict"})
	if err != nil {
		x.problems = append(x.problems, err.Error())
	}
	for _, r := range rows {
		x.claims = append(x.claims, [3]string{r[0], r[1], r[2]})
	}
	rows, err = readCSVFile(filepath.Join(dir, "skipped.csv"), []string{"figure", "reason"})
	if err != nil {
		x.problems = append(x.problems, err.Error())
	}
	for _, r := range rows {
		x.skipped = append(x.skipped, [2]string{r[0], r[1]})
	}
	return x, nil
}

// readCSVFile reads a small CSV with the given header; a missing file
// gives no rows and no error.
func readCSVFile(path string, header []string) ([][]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = len(header)
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], header) {
		return nil, fmt.Errorf("%s: want header %s", filepath.Base(path), strings.Join(header, ","))
	}
	return recs[1:], nil
}

// linkRE matches the target of a Markdown link or image, "](target" up to
// whitespace or ')', and an HTML src/href attribute.
var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)`)
	attrRE = regexp.MustCompile(`(src|href)="([^"]+)"`)
)

// rewriteLinks makes a section's relative links relative to the results
// directory: "fig3a.png" in results/ba-vs-lap/section.md becomes
// "ba-vs-lap/fig3a.png". Absolute URLs, absolute paths and anchors stay.
func rewriteLinks(md, name string) string {
	fix := func(target string) string {
		if target == "" || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "/") ||
			strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			return target
		}
		return name + "/" + strings.TrimPrefix(target, "./")
	}
	md = linkRE.ReplaceAllStringFunc(md, func(m string) string {
		return "](" + fix(m[2:])
	})
	return attrRE.ReplaceAllStringFunc(md, func(m string) string {
		sub := attrRE.FindStringSubmatch(m)
		return sub[1] + `="` + fix(sub[2]) + `"`
	})
}

func renderReport(exps []*experimentDir) string {
	var b strings.Builder
	b.WriteString("# PRIVIC: the paper's figures, tables and claims, regenerated\n\n")
	b.WriteString("Assembled by `privic report` from the experiment directories next to this file. " +
		"Each section shows our figures and tables beside the numbers the paper gives in its text and tables; " +
		"the claims of the paper, with the measured evidence and a verdict, are collected in [Claims](#claims), " +
		"figures that could not be drawn in [Skipped figures](#skipped-figures), and where and how long each experiment ran in [Run facts](#run-facts).\n\n")
	var names []string
	for _, x := range exps {
		names = append(names, "`"+x.name+"`")
	}
	if len(names) > 0 {
		b.WriteString("Experiments: " + strings.Join(names, ", ") + ".\n\n")
	} else {
		b.WriteString("No experiment results were found.\n\n")
	}
	for _, x := range exps {
		s := strings.TrimSpace(x.section)
		if s == "" {
			fmt.Fprintf(&b, "## %s\n\n(This experiment wrote no section.md; its tables are in `%s/`.)\n\n", x.name, x.name)
			continue
		}
		if !strings.HasPrefix(s, "## ") {
			fmt.Fprintf(&b, "## %s\n\n", x.name)
		}
		b.WriteString(s + "\n\n")
	}

	b.WriteString("## Claims\n\n")
	var rows [][]string
	count := map[string]int{}
	for _, x := range exps {
		for _, c := range x.claims {
			count[c[2]]++
			rows = append(rows, []string{"`" + x.name + "`", oneLineMD(c[0]), oneLineMD(c[1]), "**" + c[2] + "**"})
		}
	}
	if len(rows) == 0 {
		b.WriteString("No experiment checked a claim.\n\n")
	} else {
		fmt.Fprintf(&b, "%d claims checked: %d reproduced, %d partly, %d not reproduced",
			len(rows), count[reproduced], count[partly], count[notReproduced])
		if other := len(rows) - count[reproduced] - count[partly] - count[notReproduced]; other > 0 {
			fmt.Fprintf(&b, ", %d with another verdict", other)
		}
		b.WriteString(".\n\n")
		b.WriteString(mdTable([]string{"experiment", "claim", "evidence", "verdict"}, rows))
		b.WriteString("\n")
	}

	b.WriteString("## Skipped figures\n\n")
	rows = nil
	for _, x := range exps {
		for _, s := range x.skipped {
			rows = append(rows, []string{"`" + x.name + "`", s[0], oneLineMD(s[1])})
		}
	}
	if len(rows) == 0 {
		b.WriteString("None: every figure was drawn.\n\n")
	} else {
		b.WriteString(mdTable([]string{"experiment", "figure", "reason"}, rows))
		b.WriteString("\n")
	}

	b.WriteString("## Run facts\n\n")
	rows = nil
	total, totalJobs := 0.0, 0.0
	var env *harness.Manifest
	for _, x := range exps {
		m := x.manifest
		if m == nil {
			note := "no manifest.json"
			if len(x.problems) > 0 {
				note += "; " + strings.Join(x.problems, "; ")
			}
			rows = append(rows, []string{"`" + x.name + "`", "-", "-", "-", "-", "-", "-", oneLineMD(note)})
			continue
		}
		if env == nil {
			env = m
		}
		jobSum := 0.0
		for _, j := range m.Jobs {
			jobSum += j.Seconds
		}
		total += m.WallSeconds
		totalJobs += jobSum
		hash := m.SpecHash
		if len(hash) > 12 {
			hash = hash[:12]
		}
		note := strings.Join(x.problems, "; ")
		rows = append(rows, []string{"`" + x.name + "`", m.Kind, fmt.Sprintf("%d (%d computed, %d reused)", len(m.Jobs), m.JobsComputed, m.JobsReused),
			fmtG(m.WallSeconds, 3), fmtG(jobSum, 3), fmtG(m.FinishSeconds, 3), "`" + hash + "`", oneLineMD(note)})
	}
	if len(rows) == 0 {
		b.WriteString("No manifests found.\n")
	} else {
		b.WriteString("Seconds are wall-clock times of the run that wrote each manifest; job seconds are summed over jobs (jobs run in parallel, and reused jobs report the time of the run that computed them).\n\n")
		b.WriteString(mdTable([]string{"experiment", "kind", "jobs", "wall s", "job s (sum)", "finish s", "spec hash", "notes"}, rows))
		fmt.Fprintf(&b, "\nTotal wall time of the experiments: %s s (job time summed: %s s).\n", fmtG(total, 3), fmtG(totalJobs, 3))
		if env != nil {
			dirty := ""
			if env.GitDirty != nil && *env.GitDirty {
				dirty = " (with uncommitted changes)"
			}
			fmt.Fprintf(&b, "Machine: %s, %d CPUs, %s %s/%s; commit %s%s.\n", env.CPU, env.NumCPU, env.GoVersion, env.GOOS, env.GOARCH, env.GitCommit, dirty)
		}
	}
	return b.String()
}

// oneLineMD keeps a table cell on one line.
func oneLineMD(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// writeAtomic writes path through a temporary file in the same directory
// and a rename, so readers see the old report or the new one, never a
// partial file.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
