package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/harness"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeManifest(t *testing.T, dir string, m harness.Manifest) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "manifest.json"), string(b))
}

func TestReportAssemblesSectionsClaimsSkippedAndRunFacts(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ba-vs-lap", "section.md"),
		"## Utility\n\n![Fig. 3a](fig3a.png) and [table](./utility.csv), [paper](https://example.org/x.png), [top](#claims)\n")
	writeFile(t, filepath.Join(dir, "ba-vs-lap", "claims.csv"),
		"claim,evidence,verdict\n\"BA beats LAP, sometimes\",\"beta = {0.6, 0.8}\",partly\n")
	writeFile(t, filepath.Join(dir, "elastic", "section.md"), "## Elastic\n\n<img src=\"fig2a.png\">\n")
	writeFile(t, filepath.Join(dir, "elastic", "claims.csv"), "claim,evidence,verdict\nelastic,\"P = 1% | 2%\",reproduced\n")
	writeFile(t, filepath.Join(dir, "datasets", "section.md"), "## Data\n")
	writeFile(t, filepath.Join(dir, "datasets", "skipped.csv"), "figure,reason\nfig6a,no raw points\n")
	writeFile(t, filepath.Join(dir, "zeta", "section.md"), "no heading here\n")
	writeFile(t, filepath.Join(dir, "alpha", "notes.txt"), "not an experiment")
	writeManifest(t, filepath.Join(dir, "ba-vs-lap"), harness.Manifest{Name: "ba-vs-lap", Kind: "ba-vs-lap", SpecHash: strings.Repeat("ab", 32), WallSeconds: 1.5,
		FinishSeconds: 0.25, JobsComputed: 2, Jobs: []harness.JobTiming{{Key: "a", Seconds: 1}, {Key: "b", Seconds: 2}}})
	// Two experiments of one kind sit together, in name order; a second
	// elastic experiment has a manifest nobody can read.
	writeManifest(t, filepath.Join(dir, "datasets"), harness.Manifest{Name: "datasets", Kind: "datasets"})
	writeManifest(t, filepath.Join(dir, "elastic"), harness.Manifest{Name: "elastic", Kind: "elastic"})
	writeManifest(t, filepath.Join(dir, "elastic-2"), harness.Manifest{Name: "elastic-2", Kind: "elastic"})
	writeFile(t, filepath.Join(dir, "zeta", "manifest.json"), "{not json")

	if err := Write(dir, []string{"datasets", "elastic", "ba-vs-lap"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	// The kinds' order, then experiments of no listed kind by name, each
	// under a heading that names it.
	order := []string{"### datasets: Data", "### elastic: Elastic", "### elastic-2", "### ba-vs-lap: Utility", "### zeta", "## Claims", "## Skipped figures", "## Run facts"}
	last := -1
	for _, h := range order {
		i := strings.Index(s, h)
		if i < 0 {
			t.Fatalf("%s lacks %q:\n%s", MarkdownFile, h, s)
		}
		if i < last {
			t.Errorf("%q out of order", h)
		}
		last = i
	}
	contains(t, MarkdownFile, s,
		// Links point into the experiments' directories; others stay.
		"](ba-vs-lap/fig3a.png)", "](ba-vs-lap/utility.csv)", "](https://example.org/x.png)", "](#claims)",
		`src="elastic/fig2a.png"`,
		"(This experiment wrote no section.md; its tables are in `elastic-2/`.)",
		"| `ba-vs-lap` | BA beats LAP, sometimes |  |  | beta = {0.6, 0.8} | **partly** |",
		`P = 1% \| 2%`, // a pipe inside a cell is escaped
		"2 claims checked: 1 reproduced, 1 partly, 0 not reproduced",
		"| `datasets` | fig6a | no raw points |",
		"| `ba-vs-lap` | ba-vs-lap | 2 (2 computed, 0 reused) | 1.5 | 3 | 0.25 | `abababababab` |",
		"manifest.json unreadable")
	if strings.Contains(s, "alpha") {
		t.Error("a directory without section.md or manifest.json was included")
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, HTMLFile, string(page), `<h2 id="claims">Claims</h2>`, `<img src="ba-vs-lap/fig3a.png" alt="Fig. 3a">`,
		`<a href="#claims">`, "<table>", "<code>ba-vs-lap</code>", "P = 1% | 2%")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// contains checks that text, the file called name, holds every want.
func contains(t *testing.T, name, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", name, w)
		}
	}
}

func TestReportMissingDir(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "nope"), nil); err == nil {
		t.Error("Write of a missing directory succeeded")
	}
}

// TestReportNamesMalformedFiles: a report file of the wrong shape is named
// in the run facts, and the rest of the experiment is still reported.
func TestReportNamesMalformedFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x", "section.md"), "## X\n")
	writeFile(t, filepath.Join(dir, "x", "skipped.csv"), "city,reason\nparis,none\n")
	writeManifest(t, filepath.Join(dir, "x"), harness.Manifest{Name: "x", Kind: "k"})
	if err := Write(dir, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if !strings.Contains(string(b), "skipped.csv: want header figure,reason") || !strings.Contains(string(b), "### x: X") {
		t.Errorf("malformed skipped.csv not reported:\n%s", b)
	}
}

// TestClaimsMergedAcrossExperiments: a claim that several experiments
// check on the same data with the same rule, evidence (the dataset's
// name set aside) and verdict is one row listing them; a check that
// disagrees is a row of its own; undecided verdicts carry their reason;
// the count names every verdict.
func TestClaimsMergedAcrossExperiments(t *testing.T) {
	dir := t.TempDir()
	header := "claim,data,rule,simulations,evidence,verdict,reason\n"
	writeFile(t, filepath.Join(dir, "counts", "claims.csv"), header+
		"A is elastic,Paris (counts file),r1,none,\"Paris (counts file) island prior: 13.6% vs 59.5%\",reproduced,\n"+
		"B is near,Paris (counts file),r2,none,e2,undecided,\"too few, to tell\"\n")
	writeFile(t, filepath.Join(dir, "elastic", "claims.csv"), header+
		"A is elastic,Paris,r1,none,\"Paris island prior: 13.6% vs 59.5%\",reproduced,\n"+
		"B is near,Paris,r2,none,e2,partly,\n")
	writeFile(t, filepath.Join(dir, "elastic-metric", "claims.csv"), header+
		"A is elastic,Paris,r1,none,\"Paris island prior: 13.6% vs 59.5%\",reproduced,\n")
	for _, n := range []string{"counts", "elastic", "elastic-metric"} {
		writeManifest(t, filepath.Join(dir, n), harness.Manifest{Name: n, Kind: "elastic"})
	}
	if err := Write(dir, []string{"elastic"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	contains(t, MarkdownFile, s,
		"| `counts`, `elastic`, `elastic-metric` | A is elastic | Paris (counts file); Paris | r1 |",
		"| `counts` | B is near | Paris (counts file) | r2 | e2 | **undecided** (too few, to tell) |",
		"| `elastic` | B is near | Paris | r2 | e2 | **partly** |",
		"3 claims checked: 1 reproduced, 1 partly, 0 not reproduced, 1 undecided (5 checks by the experiments")
	if strings.Count(s, "| A is elastic |") != 1 {
		t.Error("the agreeing checks are not merged into one row")
	}
}

// The report is titled as the paper's regenerated only when some
// experiment ran on one of the paper's datasets (a preset's title among
// its manifest's datasets); a report of other data has a title and an
// introduction of its own.
func TestReportTitleFollowsTheData(t *testing.T) {
	const paperTitle = "# PRIVIC: the paper's figures, tables and claims, regenerated\n"
	for _, tc := range []struct {
		name     string
		datasets []string
		paper    bool
	}{
		{"own data", []string{"My check-ins (Turin, 500 m cells)"}, false},
		{"no datasets", nil, false},
		{"a preset's counts file", []string{"Paris (counts file)"}, false},
		{"Paris", []string{"Paris"}, true},
		{"San Francisco beside own data", []string{"Mine", "San Francisco"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			experimentAt(t, dir, "exp", "elastic", "specs/exp.toml", "## Elastic\n\nText.\n", tc.datasets...)
			if err := Write(dir, nil); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
			if err != nil {
				t.Fatal(err)
			}
			md := string(b)
			if got := strings.HasPrefix(md, paperTitle); got != tc.paper {
				t.Errorf("paper title %v, want %v:\n%s", got, tc.paper, md[:strings.Index(md, "## Contents")])
			}
			if !tc.paper && strings.Contains(strings.ToLower(md[:strings.Index(md, "## Contents")]), "paper") {
				t.Errorf("the introduction of a report on other data names the paper:\n%s", md[:strings.Index(md, "## Contents")])
			}
		})
	}
}
