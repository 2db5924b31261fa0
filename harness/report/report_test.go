package paper

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	m := harness.Manifest{Name: "ba-vs-lap", Kind: "ba-vs-lap", SpecHash: strings.Repeat("ab", 32), WallSeconds: 1.5,
		FinishSeconds: 0.25, JobsComputed: 2, Jobs: []harness.JobTiming{{Key: "a", Seconds: 1}, {Key: "b", Seconds: 2}}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "ba-vs-lap", "manifest.json"), string(b))
	writeFile(t, filepath.Join(dir, "elastic", "manifest.json"), "{not json")

	if err := Report(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	// Fixed order: datasets, elastic, ba-vs-lap, then others by name.
	order := []string{"## Data", "## Elastic", "## Utility", "## zeta", "## Claims", "## Skipped figures", "## Run facts"}
	last := -1
	for _, h := range order {
		i := strings.Index(s, h)
		if i < 0 {
			t.Fatalf("REPORT.md lacks %q:\n%s", h, s)
		}
		if i < last {
			t.Errorf("%q out of order", h)
		}
		last = i
	}
	for _, want := range []string{
		"](ba-vs-lap/fig3a.png)", "](ba-vs-lap/utility.csv)", "](https://example.org/x.png)", "](#claims)",
		`src="elastic/fig2a.png"`,
		"| `ba-vs-lap` | BA beats LAP, sometimes | beta = {0.6, 0.8} | **partly** |",
		`P = 1% \| 2%`, // a pipe inside a cell is escaped
		"2 claims checked: 1 reproduced, 1 partly, 0 not reproduced",
		"| `datasets` | fig6a | no raw points |",
		"| `ba-vs-lap` | ba-vs-lap | 2 (2 computed, 0 reused) | 1.5 | 3 | 0.25 | `abababababab` |",
		"manifest.json unreadable",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if strings.Contains(s, "alpha") {
		t.Error("a directory without section.md or manifest.json was included")
	}
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

func TestReportMissingDir(t *testing.T) {
	if err := Report(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("Report of a missing directory succeeded")
	}
}

// TestEndToEndSmallSpecs runs every kind through the harness on reduced
// parameters, then the report, and checks the files each promises.
func TestEndToEndSmallSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING end-to-end run in -short mode")
	}
	reg, err := harness.NewRegistry(Kinds()...)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]string{
		"elastic":     "kind = \"elastic\"\n[params]\nbeta = [0.2, 0.8]\n",
		"ba-vs-lap":   "kind = \"ba-vs-lap\"\n[params]\ncities = [\"paris\"]\nbeta = [0.6, 3]\nsims = 2\n",
		"adversarial": "kind = \"adversarial\"\n[params]\nbeta = [0.6]\nfractions = [0, 0.1, 0.2]\nfigure_fractions = [[0, 0.1, 0.2]]\n",
		"runtime":     "kind = \"runtime\"\n[params]\ncities = [\"paris\"]\nba_iterations = {paris = 8}\nibu_iterations = {paris = 10}\nrepeats = 1\n",
		"datasets":    "kind = \"datasets\"\n[params]\ncities = [\"paris\"]\nscatter_max_points = 500\n",
	}
	var loaded []*harness.Spec
	for name, text := range specs {
		s, err := reg.Parse(name+".toml", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		loaded = append(loaded, s)
	}
	out := t.TempDir()
	if _, err := harness.Run(context.Background(), loaded, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		dir := filepath.Join(out, k.Name())
		for _, f := range k.Outputs() {
			if strings.Contains(f, "<") {
				continue
			}
			if k.Name() == "ba-vs-lap" && strings.HasPrefix(f, "fig3b") {
				continue // SF not in this small spec
			}
			if k.Name() == "adversarial" && strings.HasPrefix(f, "fig11b") {
				continue // one beta only
			}
			if k.Name() == "datasets" && strings.HasPrefix(f, "fig6a") {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					// Only acceptable when the run recorded the skip.
					b, _ := os.ReadFile(filepath.Join(dir, "skipped.csv"))
					if !strings.Contains(string(b), "fig6a") {
						t.Errorf("%s/%s neither written nor listed in skipped.csv", k.Name(), f)
					} else {
						t.Logf("NOTE: %s skipped: %s", f, strings.TrimSpace(string(b)))
					}
				}
				continue
			}
			st, err := os.Stat(filepath.Join(dir, f))
			if err != nil || st.Size() == 0 {
				t.Errorf("%s/%s missing or empty (%v)", k.Name(), f, err)
			}
		}
		sec, err := os.ReadFile(filepath.Join(dir, "section.md"))
		if err != nil || !strings.HasPrefix(string(sec), "## ") {
			t.Errorf("%s/section.md must start with a level-2 heading (%v)", k.Name(), err)
		}
		if f, err := os.Open(filepath.Join(dir, "claims.csv")); err == nil {
			recs, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil || len(recs) < 2 || !slices.Equal(recs[0], []string{"claim", "evidence", "verdict"}) {
				t.Errorf("%s/claims.csv malformed: %v", k.Name(), err)
			}
			for _, r := range recs[1:] {
				if !slices.Contains([]string{reproduced, partly, notReproduced}, r[2]) {
					t.Errorf("%s: verdict %q", k.Name(), r[2])
				}
			}
		}
	}
	if err := Report(out); err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"](elastic/fig2a.png)", "](ba-vs-lap/fig3a.png)", "](adversarial/fig11a.png)", "](datasets/fig1.png)", "## Claims", "## Run facts"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
}

// TestDatasetsSkipsFig6aWithoutPoints runs the datasets kind where no raw
// check-ins can be found (outside the module, $PRIVIC_DATA empty): the run
// must succeed and list Fig. 6a in skipped.csv with the reason.
func TestDatasetsSkipsFig6aWithoutPoints(t *testing.T) {
	reg, err := harness.NewRegistry(Kinds()...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := reg.Parse("datasets.toml", []byte("kind = \"datasets\"\n[params]\ncities = [\"paris\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	t.Chdir(work)
	t.Setenv("PRIVIC_DATA", t.TempDir())
	if _, err := harness.Run(context.Background(), []*harness.Spec{s}, harness.RunOptions{Out: filepath.Join(work, "results")}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "results", "datasets")
	b, err := os.ReadFile(filepath.Join(dir, "skipped.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "fig6a") || !strings.Contains(string(b), "paris_checkins.csv") {
		t.Errorf("skipped.csv does not list fig6a with its reason:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "fig6a.png")); err == nil {
		t.Error("fig6a.png written without points")
	}
	for _, f := range []string{"fig1.png", "fig6b.png", "section.md", "grids.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s missing: %v", f, err)
		}
	}
	if err := Report(filepath.Join(work, "results")); err != nil {
		t.Fatal(err)
	}
	rep, _ := os.ReadFile(filepath.Join(work, "results", "REPORT.md"))
	if !strings.Contains(string(rep), "| `datasets` | fig6a (Paris) |") {
		t.Error("REPORT.md does not list the skipped figure")
	}
}
