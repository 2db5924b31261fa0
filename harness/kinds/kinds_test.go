package kinds_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds"
	"privic/harness/report"
)

func registry(t testing.TB) *harness.Registry {
	t.Helper()
	reg, err := harness.NewRegistry(kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// moduleRoot is the directory holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := datasets.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestSpecFilesValidateAndPlan loads every spec of experiments/ and
// experiments/extended/ and checks the plans of the paper's specs.
func TestSpecFilesValidateAndPlan(t *testing.T) {
	root := moduleRoot(t)
	reg := registry(t)
	want := map[string]int{
		"elastic.toml":            4,      // beta 0.2, 0.6, 0.8, 1.0
		"ba-vs-lap.toml":          2 * 25, // (city, beta)
		"adversarial.toml":        2*10 + 2,
		"runtime.toml":            2,
		"datasets.toml":           2,
		"privic-convergence.toml": 2 * 2 * 2 * 5, // cities, betas, batches modes, rounds (8 variants each)
		"beta-sweep.toml":         2 * 6 * 2,     // cities, betas, variants (different batches), 5 rounds each
	}
	paths, _ := filepath.Glob(filepath.Join(root, "experiments", "*.toml"))
	more, _ := filepath.Glob(filepath.Join(root, "experiments", "extended", "*.toml"))
	for _, path := range append(paths, more...) {
		s, err := reg.Load(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		plan, err := s.Plan()
		if err != nil {
			t.Errorf("%s: plan: %v", path, err)
			continue
		}
		if n, ok := want[filepath.Base(path)]; ok && len(plan) != n {
			t.Errorf("%s: %d jobs, want %d", path, len(plan), n)
		}
		delete(want, filepath.Base(path))
	}
	for f := range want {
		t.Errorf("spec experiments/%s missing", f)
	}
}

func TestBadParamsNameTheKey(t *testing.T) {
	reg := registry(t)
	for _, tc := range []struct{ spec, want string }{
		{"kind = \"elastic\"\n[params]\nlap_epsilon = \"loose\"\n", "lap_epsilon"},
		{"kind = \"elastic\"\n[params]\nbeta = [0.2, -1]\n", "beta"},
		{"kind = \"elastic\"\n[params]\na = [60, 3]\n", "params.a"},
		{"kind = \"elastic\"\n[params]\ncity = \"sf\"\n", "params.a: dataset \"sf\" has no place A"},
		{"kind = \"elastic\"\n[params.island]\nmode = \"sink\"\n", "mode"},
		{"kind = \"ba-vs-lap\"\n[params]\nsims_by_city = {rome = 3}\n", "sims_by_city.rome"},
		{"kind = \"ba-vs-lap\"\n[params]\nsims = 0\n", "params.sims"},
		{"kind = \"ba-vs-lap\"\n[params]\ncities = [\"paris\", \"oslo\"]\n", "cities[1]"},
		{"kind = \"adversarial\"\n[params]\nfigure_fractions = [[0, 0.3]]\n", "figure_fractions[0][1]"},
		{"kind = \"adversarial\"\n[params]\nfractions = [0, 1.5]\n", "fractions[1]"},
		{"kind = \"runtime\"\n[params]\nba_iterations = {paris = 0}\n", "ba_iterations.paris"},
		{"kind = \"runtime\"\n[params]\nibu_iterations = {rome = 3}\n", "ibu_iterations.rome"},
		{"kind = \"datasets\"\n[params]\nscatter_max_points = -1\n", "scatter_max_points"},
	} {
		_, err := reg.Parse("bad.toml", []byte(tc.spec))
		if err == nil {
			t.Errorf("%q: accepted", tc.spec)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %q does not name %q", tc.spec, err, tc.want)
		}
	}
}

// TestCityNamesAreExact: every kind refuses a city spelled other than its
// preset ("Paris" for "paris"), naming the key, instead of accepting it
// and then missing the paper's figures and claims for it.
func TestCityNamesAreExact(t *testing.T) {
	reg := registry(t)
	for _, k := range kinds.All() {
		keys := harness.ParamKeys(k)
		var spec, want string
		switch {
		case slices.Contains(keys, "cities"):
			spec, want = "cities = [\"Paris\"]", "params.cities[0]"
		case slices.Contains(keys, "city"):
			spec, want = "city = \"Paris\"", "params.city"
		default:
			continue
		}
		_, err := reg.Parse("x.toml", []byte("kind = \""+k.Name()+"\"\n[params]\n"+spec+"\n"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `unknown dataset "Paris"`) {
			t.Errorf("%s with %s: %v, want an error naming %s", k.Name(), spec, err, want)
		}
	}
}

// TestEndToEndSmallSpecs runs every kind through the harness on reduced
// parameters, then the report, and checks the files each promises, the
// report contract, and that the report holds no error text.
func TestEndToEndSmallSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING end-to-end run in -short mode")
	}
	reg := registry(t)
	specs := map[string]string{
		"elastic":     "[params]\nbeta = [0.2, 0.8]\n",
		"ba-vs-lap":   "[params]\ncities = [\"paris\"]\nbeta = [0.6, 3]\nsims = 2\n",
		"adversarial": "[params]\nbeta = [0.6]\nfractions = [0, 0.1, 0.2]\nfigure_fractions = [[0, 0.1, 0.2]]\n",
		"runtime":     "[params]\ncities = [\"paris\"]\nba_iterations = {paris = 8}\nibu_iterations = {paris = 10}\nrepeats = 1\n",
		"datasets":    "[params]\ncities = [\"paris\"]\nscatter_max_points = 500\n",
		"privic-convergence": "[params]\ncities = [\"paris\"]\nbeta = [1]\nrounds = 1\ncycles = {paris = 4}\n" +
			"first_mechanism = [\"ba-uniform\"]\nibu_start = [\"previous\"]\nmixing = [\"weighted\"]\nbatches = [\"iid\"]\n",
		"beta-sweep": "[params]\ncities = [\"paris\"]\nbeta = [0.5, 1]\nrounds = 1\nrounds_per_job = 1\ncycles = {paris = 2}\n",
		// A distortion of 0.01 cells is out of reach for the LP on 3x3
		// blocks, so skipped.csv has rows.
		"mechanisms": "[params]\ncities = [\"paris\"]\nmechanisms = [\"lap\", \"optimal\"]\ncalibrations = [\"distortion\"]\ndistortion = [0.01, 2]\nsims = 1\n",
		"smoke":      "[params]\nsamples = [100]\nreps = 2\n",
		// In a test binary the probes run in-process (no memory column).
		"scale": "[params]\nkernels = [\"BA10\", \"TightEps\"]\nsides = [8, 16, 24]\nrepeats = 1\nfit_min_cells = 1\n",
		// It finishes last, so it reads the other experiments of the run
		// (each compared with itself here).
		"resolution": "[params]\ncell_m = {paris = 479.6}\n" +
			"[[params.claim]]\nclaim = \"BA is 2 beta-geo-indistinguishable\"\ncity = \"Paris\"\n" +
			"paper = [\"ba-vs-lap\", \"BA is 2\"]\nfine = [\"ba-vs-lap\", \"BA is 2\"]\n" +
			"[[params.ba_vs_lap]]\ntitle = \"Paris\"\npaper = [\"ba-vs-lap\", \"paris\"]\nfine = [\"ba-vs-lap\", \"paris\"]\n" +
			"[[params.privic]]\ntitle = \"Paris\"\npaper = [\"privic-convergence\", \"paris\"]\nfine = [\"privic-convergence\", \"paris\"]\n" +
			"variant = \"ba-uniform/previous/weighted/iid\"\n",
	}
	var loaded []*harness.Spec
	for name, text := range specs {
		s, err := reg.Parse(name+".toml", []byte("kind = \""+name+"\"\n"+text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		loaded = append(loaded, s)
	}
	out := t.TempDir()
	if _, err := harness.Run(context.Background(), loaded, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds.All() {
		checkOutputs(t, filepath.Join(out, k.Name()), k)
	}
	if err := report.Write(out, kinds.Names(kinds.All())); err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile(filepath.Join(out, report.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"](elastic/fig2a.png)", "](ba-vs-lap/fig3a.png)", "](adversarial/fig11a.png)", "](datasets/fig1.png)",
		"](privic-convergence/fig8b.png)", "](mechanisms/frontier-paris.png)", "| `mechanisms` | frontier-paris (optimal-spanner1-coarse3, distortion 0.01) |",
		"## Contents", "## Claims", "## Run facts", "### resolution: At finer resolution", "### elastic on Paris: ", "](resolution/ba-vs-lap-metres.png)", "](resolution/privic-metres.png)",
		"| BA is 2 beta-geo-indistinguishable | Paris | **reproduced** (`ba-vs-lap`) | **reproduced** (`ba-vs-lap`) | same |"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("%s lacks %q", report.MarkdownFile, want)
		}
	}
	// No experiment's files were unreadable: the notes column of the run
	// facts is empty, and no reader's error text made it into the report.
	for _, bad := range []string{"wrong number of fields", "want header", "unreadable", "no manifest.json", "wrote no section.md"} {
		if strings.Contains(string(rep), bad) {
			t.Errorf("%s holds error text %q", report.MarkdownFile, bad)
		}
	}
	if _, err := os.Stat(filepath.Join(out, report.HTMLFile)); err != nil {
		t.Error(err)
	}
}

// checkOutputs checks the files a kind promises in its Outputs and the
// shape of its report files.
func checkOutputs(t *testing.T, dir string, k harness.Kind) {
	t.Helper()
	sec, found, err := harness.ReadSection(dir)
	if err != nil || !found {
		t.Errorf("%s: section: found %v, %v", k.Name(), found, err)
	}
	skipped := func(f string) bool {
		base := strings.TrimSuffix(f, filepath.Ext(f))
		return slices.ContainsFunc(sec.Skipped, func(s harness.Skip) bool { return strings.HasPrefix(s.Figure, base) })
	}
	for _, f := range k.Outputs() {
		// Skipped figures, and those of the cities and betas the small
		// specs leave out, are not there.
		if strings.Contains(f, "<") || strings.HasPrefix(f, "fig3b") || strings.HasPrefix(f, "fig11b") ||
			strings.HasPrefix(f, "table4") || strings.HasPrefix(f, "fig7c") || strings.HasPrefix(f, "fig7d") ||
			strings.HasPrefix(f, "fig9") || strings.HasPrefix(f, "fig10b") || skipped(f) {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s/%s missing or empty (%v)", k.Name(), f, err)
		}
	}
	if !strings.HasPrefix(sec.Markdown, "## ") {
		t.Errorf("%s/section.md must start with a level-2 heading", k.Name())
	}
	if slices.Contains(k.Outputs(), "claims.csv") && len(sec.Claims) == 0 {
		t.Errorf("%s checked no claim", k.Name())
	}
}

// TestDatasetsSkipsFig6aWithoutPoints runs the datasets kind where no raw
// check-ins can be found (outside the module, $PRIVIC_DATA empty): the run
// must succeed and list Fig. 6a in skipped.csv with the reason.
func TestDatasetsSkipsFig6aWithoutPoints(t *testing.T) {
	reg := registry(t)
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
	if err := report.Write(filepath.Join(work, "results"), nil); err != nil {
		t.Fatal(err)
	}
	rep, _ := os.ReadFile(filepath.Join(work, "results", report.MarkdownFile))
	if !strings.Contains(string(rep), "| `datasets` | fig6a (Paris) |") {
		t.Error("REPORT.md does not list the skipped figure")
	}
	if sec, _ := os.ReadFile(filepath.Join(dir, "section.md")); !strings.Contains(string(sec), "Skipped figures (see `skipped.csv`): fig6a (Paris): no raw check-in points for paris") {
		t.Errorf("section.md does not say why Fig. 6a is missing:\n%s", sec)
	}
}

// mapKey is a map-typed key of a kind's [params] or of a [datasets.NAME]
// table: its dotted path below the table and the map's type.
type mapKey struct {
	path []string
	typ  reflect.Type
}

// mapKeys walks the struct t the way the TOML decoder maps keys to
// fields (toml tags, untagged embedded structs flattened, pointers
// followed) and returns every key whose value decodes into a map. A map
// below an array of tables is reported with an empty type, so that the
// test says it cannot probe it.
func mapKeys(t reflect.Type, prefix []string) []mapKey {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []mapKey
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, mapKeys(ft, prefix)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := append(append([]string(nil), prefix...), name)
		switch {
		case ft.Kind() == reflect.Map:
			out = append(out, mapKey{path, ft})
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(toml.Primitive{}):
			out = append(out, mapKeys(ft, path)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			for _, k := range mapKeys(ft.Elem(), path) {
				out = append(out, mapKey{k.path, nil})
			}
		}
	}
	return out
}

// probeBase is what a kind needs besides its defaults to validate.
var probeBase = map[string]string{
	"resolution": "[[params.claim]]\nclaim = \"c\"\ncity = \"paris\"\nfine = [\"x\", \"y\"]\n",
}

// probeSpec writes key = value into the table path[:len-1] below top.
func probeSpec(kind, top string, path []string, value string) string {
	table := strings.Join(append([]string{top}, path[:len(path)-1]...), ".")
	return fmt.Sprintf("kind = %q\n%s\n[%s]\n%s = %s\n", kind, probeBase[kind], table, path[len(path)-1], value)
}

// TestNoMapKeyDroppedSilently walks every kind's parameter struct and
// the dataset declaration, finds every key that decodes into a map, and
// sets it to a number, a string, an array and a table holding a value of
// the wrong type. The TOML decoder drops a plain value bound for a map
// without an error; each probe must instead be refused with an error
// naming the key, or be accepted with a different spec hash (the value
// then counts).
func TestNoMapKeyDroppedSilently(t *testing.T) {
	reg, err := kinds.Registry(kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	probes := []string{"1", "\"x\"", "[9, 5]", "{default = true}"}
	found := 0
	for _, k := range kinds.All() {
		base, err := reg.Parse("probe.toml", []byte(fmt.Sprintf("kind = %q\n%s", k.Name(), probeBase[k.Name()])))
		if err != nil {
			t.Fatalf("%s: the base spec is refused: %v (add what it needs to probeBase)", k.Name(), err)
		}
		for _, mk := range mapKeys(reflect.TypeOf(k.NewParams()), nil) {
			found++
			key := "params." + strings.Join(mk.path, ".")
			if mk.typ == nil {
				t.Errorf("%s: %s is a map below an array of tables: extend this test to probe it", k.Name(), key)
				continue
			}
			for _, v := range probes {
				spec := probeSpec(k.Name(), "params", mk.path, v)
				s, err := reg.Parse("probe.toml", []byte(spec))
				switch {
				case err != nil && !strings.Contains(err.Error(), key):
					t.Errorf("%s: %s = %s refused without naming the key: %v", k.Name(), key, v, err)
				case err == nil && s.Hash == base.Hash:
					t.Errorf("%s: %s = %s accepted with the spec hash of the defaults: the value is dropped", k.Name(), key, v)
				}
			}
		}
	}
	// The dataset declaration: its maps are not per-dataset tables, and
	// every non-table value must be refused.
	decl := "[datasets.mine]\nsynthetic = {rows = 3, cols = 3, n = 100, hotspots = 1}\n"
	for _, mk := range mapKeys(reflect.TypeOf(kinds.Data().NewDecl()), nil) {
		found++
		key := "datasets.mine." + strings.Join(mk.path, ".")
		for _, v := range probes[:3] {
			spec := "kind = \"datasets\"\n" + decl + strings.Join(mk.path, ".") + " = " + v + "\n[params]\ncities = [\"mine\"]\n"
			if _, err := reg.Parse("probe.toml", []byte(spec)); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("%s = %s: %v, want an error naming %s", key, v, err, key)
			}
		}
	}
	if found < 12 {
		t.Errorf("found %d map-typed keys; the kinds have at least 12 (cycles, lp.coarsen, a, ...)", found)
	}
}

// TestPlainPerDatasetValue: `cycles = 3` runs 3 cycles on every dataset,
// the presets included (the paper's 15 for Paris is replaced), with a
// spec hash of its own; the table {default = 3} changes only the
// datasets without an entry, so Paris keeps its 15.
func TestPlainPerDatasetValue(t *testing.T) {
	reg := registry(t)
	const base = "kind = \"privic-convergence\"\n[params]\ncities = [\"paris\"]\nbeta = [1]\nrounds = 1\n" +
		"first_mechanism = [\"ba-uniform\"]\nibu_start = [\"previous\"]\nmixing = [\"weighted\"]\nbatches = [\"iid\"]\nemd_reference = [\"population\"]\n"
	hashes := map[string]string{}
	for _, tc := range []struct {
		name, line string
		cycles     int
	}{
		{"defaults", "", 15},
		{"plain", "cycles = 3\n", 3},
		{"table-default", "cycles = {default = 3}\n", 15},
		{"table-paris", "cycles = {paris = 4}\n", 4},
	} {
		s, err := reg.Parse(tc.name+".toml", []byte(base+tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for other, h := range hashes {
			if h == s.Hash && tc.name != "table-default" {
				t.Errorf("%s has the spec hash of %s", tc.name, other)
			}
		}
		hashes[tc.name] = s.Hash
		out := t.TempDir()
		if _, err := harness.Run(context.Background(), []*harness.Spec{s}, harness.RunOptions{Out: out, Jobs: 1}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := lastCycle(t, filepath.Join(out, s.Name, "emd_by_cycle.csv")); got != tc.cycles {
			t.Errorf("%q: the run went to cycle %d, want %d", tc.line, got, tc.cycles)
		}
	}
	if hashes["table-default"] == hashes["plain"] {
		t.Error("cycles = 3 and cycles = {default = 3} mean different runs but share a spec hash")
	}
}

// lastCycle is the largest cycle of an emd_by_cycle.csv.
func lastCycle(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "cycle" {
			col = i
		}
	}
	last := -1
	for _, r := range rows[1:] {
		c, err := strconv.Atoi(r[col])
		if err != nil {
			t.Fatalf("%s: cycle %q", path, r[col])
		}
		last = max(last, c)
	}
	return last
}
