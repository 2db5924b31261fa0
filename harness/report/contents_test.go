package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// experimentAt writes an experiment directory: its section and a
// manifest (written as JSON text, as a run writes it) naming its kind,
// spec file and datasets.
func experimentAt(t *testing.T, dir, name, kind, specFile, section string, datasets ...string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, name, "section.md"), section)
	ds := "[]"
	if len(datasets) > 0 {
		ds = `["` + strings.Join(datasets, `","`) + `"]`
	}
	writeFile(t, filepath.Join(dir, name, "manifest.json"), fmt.Sprintf(
		`{"format": 1, "name": %q, "kind": %q, "description": "what %s shows", "spec_file": %q, "datasets": %s}`,
		name, kind, name, specFile, ds))
}

// TestReportContentsPartsAndHeadings builds the report of experiments
// from the paper's specs, the extensions, the examples, the study at
// finer resolution and elsewhere, several of one kind (whose sections
// share a heading), and checks the report's structure: a table of
// contents first whose every link reaches a heading of REPORT.html, no
// level-2 heading twice, the parts in order, and each experiment under a
// heading that names it and its datasets.
func TestReportContentsPartsAndHeadings(t *testing.T) {
	dir := t.TempDir()
	elastic := "## Elastic location privacy (Sec. III-A, Fig. 2)\n\n### Figures\n\n![a](fig2a.png)\n\n```\n## not a heading\n```\n"
	experimentAt(t, dir, "elastic", "elastic", "experiments/elastic.toml", elastic, "Paris")
	experimentAt(t, dir, "fine-sf-elastic", "elastic", "experiments/extended/fine/fine-sf-elastic.toml", elastic, "San Francisco, 100 m cells")
	experimentAt(t, dir, "elastic-metric", "elastic", "./experiments/extended/elastic-metric.toml", elastic, "Paris")
	experimentAt(t, dir, "counts", "elastic", "/home/me/privic/experiments/examples/counts.toml", elastic, "Paris counts")
	experimentAt(t, dir, "ba-vs-lap", "ba-vs-lap", "experiments/ba-vs-lap.toml", "## Statistical utility: BA vs LAP\n\n### Claims\n\nA section's own claims.\n", "Paris", "San Francisco")
	experimentAt(t, dir, "mine", "ba-vs-lap", "/tmp/my-specs/mine.toml", "## Statistical utility: BA vs LAP\n", "My check-ins")
	experimentAt(t, dir, "fine-resolution", "resolution", "experiments/extended/fine/fine-resolution.toml", "## At finer resolution\n")
	if err := Write(dir, []string{"elastic", "ba-vs-lap", "resolution"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	var h2 []string
	fenced := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if h, ok := strings.CutPrefix(l, "## "); ok && !fenced {
			if slices.Contains(h2, h) {
				t.Errorf("level-2 heading %q repeated", h)
			}
			h2 = append(h2, h)
		}
	}
	want := []string{"Contents", "The paper's reproduction", "Extensions", "Examples", "Studies at finer resolution", "Other experiments",
		"Claims", "Skipped figures", "Run facts"}
	if !slices.Equal(h2, want) {
		t.Errorf("level-2 headings %q, want %q", h2, want)
	}
	// Experiments in their parts, the kinds' order within a part, each
	// heading naming the experiment and its datasets.
	order := []string{
		"## Contents",
		"## The paper's reproduction",
		"### elastic on Paris: Elastic location privacy (Sec. III-A, Fig. 2)",
		"### ba-vs-lap on Paris and San Francisco: Statistical utility: BA vs LAP",
		"## Extensions",
		"### elastic-metric on Paris: Elastic location privacy (Sec. III-A, Fig. 2)",
		"## Examples",
		"### counts on Paris counts: Elastic location privacy",
		"## Studies at finer resolution",
		"### fine-sf-elastic on San Francisco, 100 m cells: Elastic",
		"### fine-resolution: At finer resolution",
		"## Other experiments",
		"### mine on My check-ins: Statistical utility",
		"## Claims",
	}
	last := -1
	for _, s := range order {
		i := strings.Index(md, "\n"+s)
		if i < 0 {
			t.Fatalf("%s lacks %q:\n%s", MarkdownFile, s, md)
		}
		if i < last {
			t.Errorf("%q out of order", s)
		}
		last = i
	}
	contains(t, MarkdownFile, md,
		"*Spec `experiments/elastic.toml`: what elastic shows.*",
		"#### Figures",               // a section's subheading, one level below its experiment's
		"```\n## not a heading\n```", // code is left alone
		"](elastic/fig2a.png)")
	// The table of contents, with GitHub's anchors: a section's own
	// "Claims" heading comes first, so the report's is claims-1.
	contains(t, MarkdownFile, md,
		"- [The paper's reproduction](#the-papers-reproduction)\n"+
			"  - [elastic on Paris: Elastic location privacy (Sec. III-A, Fig. 2)](#elastic-on-paris-elastic-location-privacy-sec-iii-a-fig-2)\n"+
			"  - [ba-vs-lap on Paris and San Francisco: Statistical utility: BA vs LAP](#ba-vs-lap-on-paris-and-san-francisco-statistical-utility-ba-vs-lap)\n"+
			"- [Extensions](#extensions)\n",
		"  - [fine-sf-elastic on San Francisco, 100 m cells: Elastic location privacy (Sec. III-A, Fig. 2)](#fine-sf-elastic-on-san-francisco-100-m-cells-elastic-location-privacy-sec-iii-a-fig-2)\n",
		"- [Claims](#claims-1)\n- [Skipped figures](#skipped-figures)\n- [Run facts](#run-facts)\n")
	// The opening's link to the claims follows the anchor.
	if intro := md[:strings.Index(md, "## Contents")]; !strings.Contains(intro, "](#claims-1)") || strings.Contains(intro, "](#claims)") {
		t.Errorf("the opening's links miss the report's claims:\n%s", intro)
	}
	if strings.Index(md, "## Contents") > strings.Index(md, "## The paper's reproduction") {
		t.Error("the table of contents does not open the report")
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`<h[1-6] id="([^"]+)"`).FindAllStringSubmatch(string(page), -1) {
		ids[m[1]] = true
	}
	toc := md[strings.Index(md, "## Contents"):strings.Index(md, "## The paper's reproduction")]
	links := regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(toc, -1)
	if len(links) != 8+7 {
		t.Errorf("the contents have %d links, want 8 parts and sections and 7 experiments:\n%s", len(links), toc)
	}
	for _, l := range links {
		if !ids[l[1]] {
			t.Errorf("contents link #%s reaches no heading of %s", l[1], HTMLFile)
		}
	}
	contains(t, HTMLFile, string(page), `<h2 id="contents">Contents</h2>`, `<h2 id="claims-1">Claims</h2>`, `<h4 id="figures">Figures</h4>`)
}

// TestSlugLikeGitHub: anchors as GitHub makes them, checked against
// anchors GitHub gives such headings: lower case, punctuation and
// symbols dropped (not '-' or '_'), each space a '-', Greek letters kept,
// link targets dropped, repeats numbered.
func TestSlugLikeGitHub(t *testing.T) {
	var s slugger
	for _, c := range []struct{ text, want string }{
		{"PRIVIC: final EMD against β (Sec. V, Fig. 10)", "privic-final-emd-against-β-sec-v-fig-10"},
		{"PRIVIC convergence (Sec. V, Fig. 7–9, Tables III–IV)", "privic-convergence-sec-v-fig-79-tables-iiiiv"},
		{"β = 0.5 — Paris", "β--05--paris"},
		{"`ba-vs-lap` and [the paper](https://example.org/x)", "ba-vs-lap-and-the-paper"},
		{"snake_case and **bold**", "snake_case-and-bold"},
		{"Claims", "claims"},
		{"Claims", "claims-1"},
		{"Claims 1", "claims-1-1"},
		{"Claims", "claims-2"},
	} {
		if got := s.next(c.text); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestReportOnly: WriteWith with Only reports the experiments named, in
// the files asked for, and refuses a name that is no experiment.
func TestReportOnly(t *testing.T) {
	dir := t.TempDir()
	experimentAt(t, dir, "a", "k", "experiments/a.toml", "## A things\n")
	experimentAt(t, dir, "b", "k", "experiments/b.toml", "## B things\n")
	if err := WriteWith(dir, Options{Only: []string{"b"}, Markdown: "part.md", HTML: "part.html"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "part.md"))
	if err != nil {
		t.Fatal(err)
	}
	if md := string(b); !strings.Contains(md, "### b: B things") || strings.Contains(md, "A things") {
		t.Errorf("report of b alone:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "part.html")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkdownFile)); err == nil {
		t.Errorf("WriteWith wrote %s though asked for part.md", MarkdownFile)
	}
	err = WriteWith(dir, Options{Only: []string{"b", "c"}})
	if err == nil || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("Only of an unknown experiment: %v, want an error naming it and the experiments", err)
	}
}
