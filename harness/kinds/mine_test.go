package kinds_test

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds"
	"privic/kernels"
)

// The tests below run every kind that takes a dataset on "mine", the
// dataset of testdata/mine/datasets.toml: check-in points of a committed
// CSV file with named latitude, longitude and weight columns, a bbox that
// drops some of them, 250 m cells (6 x 8 of them) and the places A and B.
// Each checks what the kind must do for a dataset that is not the paper's:
// its tables, the metre columns beside the cell ones, and its figures
// under the dataset's own name.

const mineDir = "testdata/mine"

// mineCounts grids testdata/mine/checkins.csv independently of package
// datasets' readers: a plain split of each line, the point's offsets in
// metres from the region's north-east corner, and a cell of 250 m whose
// northern and eastern edges are exclusive except on the region's own
// edge. It returns the counts (row-major, 6 x 8), the check-ins read and
// those outside the bbox.
func mineCounts(t *testing.T) (counts []int, read, dropped int) {
	t.Helper()
	const (
		latMin, latMax, lonMin, lonMax = 45.0, 45.0134, 7.0, 7.025
		cell, rows, cols               = 250.0, 6, 8
	)
	f, err := os.Open(filepath.Join(mineDir, "checkins.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mLat, mLon := datasets.MetresPerDegree((latMin + latMax) / 2)
	counts = make([]int, rows*cols)
	sc := bufio.NewScanner(f)
	sc.Scan() // header: id,latitude,longitude,visits
	for sc.Scan() {
		fld := strings.Split(sc.Text(), ",")
		lat, err1 := strconv.ParseFloat(fld[1], 64)
		lon, err2 := strconv.ParseFloat(fld[2], 64)
		w, err3 := strconv.Atoi(fld[3])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("fixture line %q", sc.Text())
		}
		read += w
		if lat < latMin || lat > latMax || lon < lonMin || lon > lonMax {
			dropped += w
			continue
		}
		band := func(off float64, n int) int {
			for k := 0; k < n; k++ {
				if off <= float64(k+1)*cell {
					return k
				}
			}
			return n - 1
		}
		r := band((latMax-lat)*mLat, rows)
		c := band((lonMax-lon)*mLon, cols)
		counts[r*cols+c] += w
	}
	return counts, read, dropped
}

// mineSpec parses a spec of kind on the fixture's datasets with the
// given [params], as if written in testdata/mine/<kind>.toml.
func mineSpec(t *testing.T, kind, params string) *harness.Spec {
	t.Helper()
	decl, err := os.ReadFile(filepath.Join(mineDir, "datasets.toml"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := kinds.Registry(kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	text := "kind = \"" + kind + "\"\n" + string(decl) + "\n[params]\n" + params
	s, err := reg.Parse(filepath.Join(mineDir, kind+".toml"), []byte(text))
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	return s
}

// runMine runs a spec of kind on the fixture's datasets with the given
// [params] and returns its output directory.
func runMine(t *testing.T, kind, params string) string {
	t.Helper()
	s := mineSpec(t, kind, params)
	out := t.TempDir()
	if _, err := harness.Run(context.Background(), []*harness.Spec{s}, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, s.Name)
}

// readCSV reads a table of dir as rows of column -> value.
func readCSV(t *testing.T, dir, name string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	header := strings.Split(lines[0], ",")
	var out []map[string]string
	for _, l := range lines[1:] {
		f := splitCSV(l)
		if len(f) != len(header) {
			t.Fatalf("%s.csv: %d fields in %q, want %d", name, len(f), l, len(header))
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = f[i]
		}
		out = append(out, row)
	}
	return out
}

// splitCSV splits a line of the harness's CSV (fields with commas are
// quoted).
func splitCSV(l string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range l {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ',' && !quoted:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(out, cur.String())
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}

// checkMetres checks that every row's metre column is the cell column
// times the 250 m cell.
func checkMetres(t *testing.T, rows []map[string]string, cells, metres string) {
	t.Helper()
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for i, r := range rows {
		c, m := num(t, r[cells]), num(t, r[metres])
		if math.Abs(m-250*c) > 1e-9*math.Max(1, math.Abs(m)) {
			t.Fatalf("row %d: %s = %v, %s = %v, want 250 times", i, cells, c, metres, m)
		}
	}
}

// checkContains checks that the file name the experiment wrote in dir
// holds every one of wants.
func checkContains(t *testing.T, dir, name string, wants ...string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s lacks %q:\n%s", name, w, b)
		}
	}
}

func checkFiles(t *testing.T, dir string, present, absent []string) {
	t.Helper()
	for _, f := range present {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
	for _, f := range absent {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written for a dataset the paper does not have", f)
		}
	}
}

func TestMineDatasets(t *testing.T) {
	dir := runMine(t, "datasets", "cities = [\"mine\"]\nscatter_max_points = 100\n")
	counts, read, dropped := mineCounts(t)
	n, occupied, best := 0, 0, 0
	for i, c := range counts {
		n += c
		if c > 0 {
			occupied++
		}
		if c > counts[best] {
			best = i
		}
	}
	g := readCSV(t, dir, "grids")
	if len(g) != 1 {
		t.Fatalf("grids.csv: %d rows", len(g))
	}
	want := map[string]string{
		"city": "mine", "rows": "6", "cols": "8", "cells": "48", "n_checkins": strconv.Itoa(n),
		"occupied_cells": strconv.Itoa(occupied), "max_cell_row": strconv.Itoa(best / 8), "max_cell_col": strconv.Itoa(best % 8),
		"cell_m": "250", "cell_height_m": "250", "cell_width_m": "250",
		"checkins_read": strconv.Itoa(read), "checkins_dropped": strconv.Itoa(dropped), "rows_policy": "",
	}
	for k, v := range want {
		if g[0][k] != v {
			t.Errorf("grids.csv %s = %q, want %q", k, g[0][k], v)
		}
	}
	checkFiles(t, dir, []string{"island-mine.png", "points-mine.png", "density-mine.png"}, []string{"fig1.png", "fig6a.png", "fig6b.png"})
	checkContains(t, dir, "section.md", "cells of 250 m", "![Island prior of Mine](island-mine.png)", "(points-mine.png)")
}

func TestMineElastic(t *testing.T) {
	dir := runMine(t, "elastic", "city = \"mine\"\nbeta = [0.5, 1]\nlap_widen = 2\n[params.island]\nradius = 1\n")
	st := readCSV(t, dir, "location_stats")
	if len(st) != 2*3*2 {
		t.Fatalf("location_stats.csv: %d rows, want 12 (2 betas, BA, LAP and the uniform baseline, A and B)", len(st))
	}
	checkMetres(t, st, "expected_distance", "expected_distance_m")
	checkMetres(t, st, "mode_distance", "mode_distance_m")
	// A is the place declared by latitude and longitude: cell (0, 1). Its
	// report distribution under BA covers the 48 cells.
	mass := 0.0
	for _, r := range readCSV(t, dir, "report_distribution") {
		if r["mechanism"] == "ba" && r["location"] == "A" && r["beta"] == "0.5" {
			mass += num(t, r["probability"])
		}
	}
	if math.Abs(mass-1) > 1e-9 {
		t.Errorf("BA's report distribution of A sums to %v", mass)
	}
	checkFiles(t, dir, []string{"reports-a-mine.png", "reports-b-mine.png", "claims.csv"}, []string{"fig2a.png", "fig2b.png"})
	if c := readCSV(t, dir, "claims"); len(c) != 5 {
		t.Errorf("%d claims checked, want the paper's 5", len(c))
	}
}

func TestMineBAvsLAP(t *testing.T) {
	dir := runMine(t, "ba-vs-lap", "cities = [\"mine\", \"paris\"]\nbeta = [0.5, 4]\nsims = 2\nsims_by_city = {default = 1}\nlap_widen = 2\n")
	u := readCSV(t, dir, "utility")
	_, _, dropped := mineCounts(t)
	mine := 0
	for _, r := range u {
		if r["city"] != "mine" {
			continue
		}
		mine++
		// Every check-in kept is obfuscated once.
		if r["n_reports"] != strconv.Itoa(506-dropped) {
			t.Errorf("n_reports = %s, want %d", r["n_reports"], 506-dropped)
		}
	}
	if mine != 2*2*1 {
		t.Errorf("%d rows of mine, want 4 (2 betas, 2 mechanisms, sims_by_city default 1)", mine)
	}
	var mineRows []map[string]string
	for _, r := range u {
		if r["city"] == "mine" {
			mineRows = append(mineRows, r)
		}
	}
	checkMetres(t, mineRows, "emd", "emd_m")
	checkFiles(t, dir, []string{"utility-mine.png", "fig3a.png"}, []string{"fig3-mine.png", "fig3b.png"})
	// The crossover claim of each dataset.
	checkContains(t, dir, "claims.csv", "Mine: BA has the better statistical utility at high privacy", "Paris: BA better for beta in (0.4, 1.4]")
}

func TestMineAdversarial(t *testing.T) {
	dir := runMine(t, "adversarial", "city = \"mine\"\nbeta = [0.5]\nfractions = [0, 0.2]\nfigure_fractions = [[0, 0.2]]\nlap_widen = 1\n[params.island]\nradius_m = 300\n")
	id := readCSV(t, dir, "identification")
	if len(id) != 2 {
		t.Fatalf("identification.csv: %d rows, want 2", len(id))
	}
	checkMetres(t, id, "expected_distance", "expected_distance_m")
	// More adversarial mass at A makes BA report A more often.
	if a, b := num(t, id[0]["p_at"]), num(t, id[1]["p_at"]); !(b > a) {
		t.Errorf("P(report A) %v at f = 0, %v at f = 0.2: want it to grow", a, b)
	}
	checkFiles(t, dir, []string{"honest-a-mine-0.5.png"}, []string{"fig11a.png"})
	// The island in metres: radius_m = 300 on 250 m cells is 1 cell each
	// way, a 3x3 block.
	checkContains(t, dir, "section.md", "the 3x3 block of cells within 300 m of A")
}

func TestMineRuntime(t *testing.T) {
	dir := runMine(t, "runtime", "cities = [\"mine\"]\nrepeats = 1\nba_iterations = {default = 3}\n")
	k := readCSV(t, dir, "kernels")
	if len(k) != 2 {
		t.Fatalf("kernels.csv: %d rows", len(k))
	}
	for _, r := range k {
		want := map[string]string{"ba": "3", "ibu": "10"}[r["kernel"]] // default entry; the kind's default
		if r["cells"] != "48" || r["iterations"] != want || r["paper_seconds"] != "" {
			t.Errorf("kernels.csv row %v: want 48 cells, %s iterations, no paper time", r, want)
		}
	}
}

func TestMineConvergence(t *testing.T) {
	dir := runMine(t, "privic-convergence", "cities = [\"mine\"]\nbeta = [1]\nrounds = 1\ncycles = {mine = 3}\n"+
		"first_mechanism = [\"ba-uniform\"]\nibu_start = [\"previous\"]\nmixing = [\"weighted\"]\nbatches = [\"iid\"]\n")
	rows := readCSV(t, dir, "emd_by_cycle")
	checkMetres(t, rows, "emd", "emd_m")
	// Cycle 0 is EMD(uniform, prior), recomputed here from the
	// independent counts.
	counts, _, _ := mineCounts(t)
	n := 0
	for _, c := range counts {
		n += c
	}
	prior, uniform := make([]float64, len(counts)), make([]float64, len(counts))
	for i, c := range counts {
		prior[i], uniform[i] = float64(c)/float64(n), 1/float64(len(counts))
	}
	g := kernels.Grid{Rows: 6, Cols: 8}
	want, err := kernels.EMD(g, uniform, g, prior)
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, r := range rows {
		if r["cycle"] == "0" {
			if got := num(t, r["emd"]); math.Abs(got-want) > 1e-9 {
				t.Errorf("cycle 0 EMD = %v, want EMD(uniform, prior) = %v", got, want)
			}
		}
		last = max(last, int(num(t, r["cycle"])))
	}
	if last != 3 {
		t.Errorf("last cycle %d, want cycles = {mine = 3}", last)
	}
	checkFiles(t, dir, []string{"estimate-mine-1.png", "emd-by-cycle-mine-1.png", "table_mine.csv", "table_mine.md"},
		[]string{"fig7a.png", "table3.csv"})
}

func TestMineBetaSweep(t *testing.T) {
	dir := runMine(t, "beta-sweep", "cities = [\"mine\"]\nbeta = [0.5, 1]\nrounds = 2\nrounds_per_job = 1\ncycles = {default = 2}\n")
	sum := readCSV(t, dir, "final_emd_summary")
	checkMetres(t, sum, "mean", "mean_m")
	for _, r := range readCSV(t, dir, "final_emd") {
		if r["cycles"] != "2" {
			t.Fatalf("final_emd.csv: %s cycles, want the default entry's 2", r["cycles"])
		}
	}
	checkFiles(t, dir, []string{"final-emd-mine.png"}, []string{"fig10a.png"})
}

func TestMineMechanisms(t *testing.T) {
	dir := runMine(t, "mechanisms", "cities = [\"mine\"]\nmechanisms = [\"ba\", \"lap\", \"rr\"]\ncalibrations = [\"eps\", \"distortion\"]\n"+
		"eps = [1]\ndistortion = [1]\nsims = 1\nlap_widen = 1\n")
	fr := readCSV(t, dir, "frontier")
	if len(fr) != 3*2 {
		t.Fatalf("frontier.csv: %d rows, want 6", len(fr))
	}
	checkMetres(t, fr, "emd", "emd_m")
	checkMetres(t, fr, "avg_distortion", "avg_distortion_m")
	checkMetres(t, fr, "bayes_error", "bayes_error_m")
	for _, r := range fr {
		// A is a place of mine, so its identification is measured.
		if v := num(t, r["identification_A"]); !(v > 0 && v <= 1) {
			t.Errorf("identification_A = %v, want a probability", v)
		}
	}
	checkFiles(t, dir, []string{"frontier-mine.png"}, nil)
}

// TestExampleSpecs loads every spec of experiments/examples and plans it.
// The ones on raw Gowalla points read them from $PRIVIC_DATA, or from the
// shared directory next to the module; without them they are skipped,
// loudly.
func TestExampleSpecs(t *testing.T) {
	root := moduleRoot(t)
	if os.Getenv(datasets.EnvData) == "" {
		shared := filepath.Join(datasets.SharedDir(root), "datasets", "gowalla")
		if _, err := os.Stat(filepath.Join(shared, datasets.CheckinsFile("sf"))); err == nil {
			t.Setenv(datasets.EnvData, shared)
		}
	}
	reg, err := kinds.Registry(kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "experiments", "examples", "*.toml"))
	if len(paths) < 5 {
		t.Fatalf("%d example specs, want the 5 of experiments/README.md and more", len(paths))
	}
	for _, p := range paths {
		body, _ := os.ReadFile(p)
		if strings.Contains(string(body), "$PRIVIC_DATA") && os.Getenv(datasets.EnvData) == "" {
			t.Logf("SKIPPING %s: it reads raw check-ins from $PRIVIC_DATA, which is not set, and ../shared is absent", filepath.Base(p))
			continue
		}
		s, err := reg.Load(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if _, err := s.Plan(); err != nil {
			t.Errorf("%s: plan: %v", p, err)
		}
	}
}

// TestCountsDatasetIsThePreset: the Paris grid written as a counts file
// (experiments/examples/data/paris-counts.csv, by privic dataset --counts)
// and read back as a dataset of its own gives the preset's elastic
// numbers, column for column; its metre columns are its cell_m (479.574,
// the preset's mean side) times the cells, within 1e-5 of the preset's.
func TestCountsDatasetIsThePreset(t *testing.T) {
	root := moduleRoot(t)
	reg, err := kinds.Registry(kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile(filepath.Join(root, "experiments", "examples", "counts.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(ex), "beta = [0.2, 0.6, 0.8, 1.0]", "beta = [0.6]", 1)
	counts, err := reg.Parse(filepath.Join(root, "experiments", "examples", "counts.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	preset, err := reg.Parse("elastic.toml", []byte("kind = \"elastic\"\n[params]\nbeta = [0.6]\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := harness.Run(context.Background(), []*harness.Spec{counts, preset}, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	a := readCSV(t, filepath.Join(out, "counts"), "location_stats")
	b := readCSV(t, filepath.Join(out, "elastic"), "location_stats")
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d rows", len(a), len(b))
	}
	for i := range a {
		for k, v := range b[i] {
			if !strings.HasSuffix(k, "_m") && a[i][k] != v {
				t.Errorf("row %d: %s = %s from the counts file, %s from the preset", i, k, a[i][k], v)
			}
		}
		if m := num(t, a[i]["expected_distance_m"]); math.Abs(m-479.574*num(t, a[i]["expected_distance"])) > 1e-6 ||
			math.Abs(m-num(t, b[i]["expected_distance_m"])) > 1e-5*m {
			t.Errorf("row %d: expected_distance_m %v, want 479.574 m a cell (the preset's %v)", i, m, b[i]["expected_distance_m"])
		}
	}
}
