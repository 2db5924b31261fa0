package kinds_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"privic/harness"
	"privic/harness/kinds"
	"privic/harness/report"
)

// paperWords matches what only a section about the paper's datasets may
// say: the source of its data (Gowalla), its cities (by title, and "sf",
// the San Francisco preset's name, which skipped figures and tables use),
// its tables of EMD per cycle, its reference code and the paper itself.
// Matching is case-insensitive and by whole word: "paper", "Paper's" and
// "papers" match, a word that merely contains it ("newspaper",
// "paperback") does not, and neither does a column name of a CSV file
// ("speedup_vs_paper", where '_' joins the words). "Tables III–IV"
// matches "Table III" through tables?.
var paperWords = regexp.MustCompile(`(?i)\b(gowalla|paris|san francisco|sf|tables? iii|tables? iv|reference[ -]code|papers?)\b`)

// TestNeutralWordsOnOwnData runs every kind on "mine", the declared
// dataset of testdata/mine (a CSV of check-ins that is none of the
// paper's), or, for the kinds that take no dataset, on what they run on
// (scale: synthetic hotspot cities; smoke: uniform points; resolution:
// the experiments on mine of the same run), all in one output directory,
// and fails when a section, its claims or its skipped figures, or the
// report assembled from them, says a paper-only word. Each kind runs as a
// user's spec would; the report is the one `privic report` writes.
func TestNeutralWordsOnOwnData(t *testing.T) {
	specs := []struct{ kind, params string }{
		{"datasets", "cities = [\"mine\"]\nscatter_max_points = 100\n"},
		{"elastic", "city = \"mine\"\nbeta = [0.5, 1]\nlap_widen = 2\nmechanisms = [\"ba\", \"lap\", \"elastic-metric\"]\n[params.island]\nradius = 1\n"},
		{"ba-vs-lap", "cities = [\"mine\"]\nbeta = [0.5, 4]\nsims = 2\nlap_widen = 2\n"},
		{"privic-convergence", "cities = [\"mine\"]\nbeta = [0.5, 1]\nrounds = 2\ncycles = {mine = 3}\n" +
			"first_mechanism = [\"ba-uniform\"]\nibu_start = [\"previous\"]\nmixing = [\"weighted\", \"none\"]\nbatches = [\"iid\"]\n"},
		{"beta-sweep", "cities = [\"mine\"]\nbeta = [0.5, 1]\nrounds = 2\nrounds_per_job = 1\ncycles = {default = 2}\n"},
		{"adversarial", "city = \"mine\"\nbeta = [0.5]\nfractions = [0, 0.2]\nfigure_fractions = [[0, 0.2]]\nlap_widen = 1\n[params.island]\nradius_m = 300\n"},
		{"runtime", "cities = [\"mine\"]\nrepeats = 1\nba_iterations = {default = 3}\n"},
		{"mechanisms", "cities = [\"mine\"]\nmechanisms = [\"ba\", \"lap\", \"rr\", \"optimal\"]\ncalibrations = [\"eps\", \"distortion\"]\n" +
			"eps = [1]\ndistortion = [1]\nsims = 1\nlap_widen = 1\n[params.lp]\nspanner = 1\ncoarsen = {mine = 3}\n"},
		{"scale", "kernels = [\"BA10\"]\nsides = [4, 6]\nrepeats = 1\nbudget_seconds = 10\n"},
		{"smoke", "samples = [1000]\nreps = 2\n"},
		{"resolution", "cell_m = {mine = 250}\n" +
			"[[params.claim]]\nclaim = \"BA is 2·beta-geo-indistinguishable\"\ncity = \"mine\"\n" +
			"paper = [\"elastic\", \"BA is 2·beta-geo-indistinguishable\"]\nfine = [\"elastic\", \"BA is 2·beta-geo-indistinguishable\"]\n" +
			"[[params.ba_vs_lap]]\ntitle = \"Mine\"\npaper = [\"ba-vs-lap\", \"mine\"]\nfine = [\"ba-vs-lap\", \"mine\"]\n"},
	}
	var all []*harness.Spec
	ran := map[string]bool{}
	for _, sp := range specs {
		all = append(all, mineSpec(t, sp.kind, sp.params))
		ran[sp.kind] = true
	}
	for _, k := range kinds.All() {
		if !ran[k.Name()] {
			t.Errorf("kind %s is not run on own data here", k.Name())
		}
	}
	out := t.TempDir()
	if _, err := harness.Run(context.Background(), all, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		t.Run(s.Kind.Name(), func(t *testing.T) {
			dir := filepath.Join(out, s.Name)
			for _, f := range []string{"section.md", "claims.csv", "skipped.csv"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if os.IsNotExist(err) && f != "section.md" {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				checkNeutral(t, s.Kind.Name()+"/"+f, string(b))
			}
		})
	}
	if err := report.Write(out, kinds.Names(kinds.All())); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, report.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	checkNeutral(t, report.MarkdownFile, string(b))
}

// checkNeutral fails on every line of text that says a paper-only word.
func checkNeutral(t *testing.T, name, text string) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if w := paperWords.FindAllString(l, -1); len(w) > 0 {
			t.Errorf("%s:%d says %q: %s", name, i+1, w, l)
		}
	}
}
