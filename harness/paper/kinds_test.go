package paper

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
)

// moduleRoot walks up from the working directory to the directory with
// go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("cannot get working directory: %v", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above %s", wd)
		}
		dir = parent
	}
}

func tableOf(t *testing.T, ts []harness.Table, name string) *harness.Table {
	t.Helper()
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i]
		}
	}
	t.Fatalf("no table %q among %d tables", name, len(ts))
	return nil
}

// cell returns a row's value in the named column.
func cell(t *testing.T, tb *harness.Table, row []string, name string) string {
	t.Helper()
	for i, h := range tb.Header {
		if h == name {
			return row[i]
		}
	}
	t.Fatalf("table %s has no column %q", tb.Name, name)
	return ""
}

func fcell(t *testing.T, tb *harness.Table, row []string, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(cell(t, tb, row, name), 64)
	if err != nil {
		t.Fatalf("table %s column %s: %v", tb.Name, name, err)
	}
	return v
}

func icell(t *testing.T, tb *harness.Table, row []string, name string) int {
	t.Helper()
	v, err := strconv.Atoi(cell(t, tb, row, name))
	if err != nil {
		t.Fatalf("table %s column %s: %v", tb.Name, name, err)
	}
	return v
}

// close12 compares probabilities to 1e-12 relative (with an absolute
// floor for values that underflow towards 0).
func close12(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))+1e-300
}

func TestSpecFilesValidateAndPlan(t *testing.T) {
	root := moduleRoot(t)
	reg, err := harness.NewRegistry(Kinds()...)
	if err != nil {
		t.Fatal(err)
	}
	for file, jobs := range map[string]int{
		"elastic.toml":     4,      // beta 0.2, 0.6, 0.8, 1.0
		"ba-vs-lap.toml":   2 * 25, // (city, beta)
		"adversarial.toml": 2*10 + 2,
		"runtime.toml":     2,
		"datasets.toml":    2,
	} {
		path := filepath.Join(root, "experiments", file)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("spec %s missing: %v", file, err)
			continue
		}
		s, err := reg.Load(path)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		plan, err := s.Plan()
		if err != nil {
			t.Errorf("%s: plan: %v", file, err)
			continue
		}
		if len(plan) != jobs {
			t.Errorf("%s: %d jobs, want %d", file, len(plan), jobs)
		}
	}
}

func TestBadParamsNameTheKey(t *testing.T) {
	reg, err := harness.NewRegistry(Kinds()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ spec, want string }{
		{"kind = \"elastic\"\n[params]\nlap_epsilon = \"loose\"\n", "lap_epsilon"},
		{"kind = \"elastic\"\n[params]\nbeta = [0.2, -1]\n", "beta"},
		{"kind = \"elastic\"\n[params]\na = [60, 3]\n", "params.a"},
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

// TestElasticTablesMatchDirectComputation checks the elastic job's tables
// against plain implementations of the island, BA, tight epsilon, LAP,
// singular values and the location statistics.
func TestElasticTablesMatchDirectComputation(t *testing.T) {
	p := elasticKind{}.NewParams().(*elasticParams)
	const beta = 0.6
	ts, err := elasticKind{}.Run(context.Background(), harness.Job{Key: "beta=0.6", Arg: elasticJob{p: p, beta: beta}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("paris", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Grid
	wide := g.Widen(5)
	prior := islandByHand(g, ds.Prior())
	C := plainBA(g, prior, beta, 10)
	tight := plainTightEps(g, C)
	if tight > 2*beta+1e-9 {
		t.Errorf("direct BA: tight eps %v > 2 beta", tight)
	}
	L := plainLaplace(g, wide, tight)
	a, b := g.IndexOf(6, 3), g.IndexOf(3, 7)

	rd := tableOf(t, ts, "report_distribution")
	counts := map[string]int{}
	for _, r := range rd.Rows {
		mech, loc := cell(t, rd, r, "mechanism"), cell(t, rd, r, "location")
		counts[mech+loc]++
		if eps := fcell(t, rd, r, "epsilon"); !relClose(eps, tight, 1e-9) {
			t.Fatalf("epsilon %v, direct tight eps %v", eps, tight)
		}
		x := a
		if loc == "B" {
			x = b
		}
		row, col, pr := icell(t, rd, r, "row"), icell(t, rd, r, "col"), fcell(t, rd, r, "probability")
		switch mech {
		case "ba":
			if want := C[x][g.IndexOf(row, col)]; !close12(pr, want) {
				t.Fatalf("BA %s (%d,%d): %v, direct %v", loc, row, col, pr, want)
			}
		case "lap":
			if want := L[x][wide.IndexOf(row, col)]; math.Abs(pr-want) > 1e-10*want+1e-300 {
				t.Fatalf("LAP %s (%d,%d): %v, direct %v", loc, row, col, pr, want)
			}
		default:
			t.Fatalf("mechanism %q", mech)
		}
	}
	if counts["baA"] != g.Len() || counts["baB"] != g.Len() || counts["lapA"] != wide.Len() || counts["lapB"] != wide.Len() {
		t.Errorf("row counts %v, want %d per BA location and %d per LAP location", counts, g.Len(), wide.Len())
	}

	// Smallest singular value against gonum's SVD of the direct channel.
	dense := mat.NewDense(g.Len(), g.Len(), nil)
	for x := range C {
		dense.SetRow(x, C[x])
	}
	var svd mat.SVD
	if !svd.Factorize(dense, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	sv := svd.Values(nil)
	ch := tableOf(t, ts, "channels")
	if got := fcell(t, ch, ch.Rows[0], "ba_min_singular_value"); !relClose(got, sv[len(sv)-1], 1e-6) {
		t.Errorf("min singular value %v, direct SVD %v", got, sv[len(sv)-1])
	}

	// Location statistics of A under both mechanisms.
	st := tableOf(t, ts, "location_stats")
	for _, r := range st.Rows {
		if cell(t, st, r, "location") != "A" {
			continue
		}
		M, out := C, g
		if cell(t, st, r, "mechanism") == "lap" {
			M, out = L, wide
		}
		desert, outside, block, ident := 0.0, 0.0, 0.0, 0.0
		for y, v := range M[a] {
			ar, ac := out.Row0+y/out.Cols, out.Col0+y%out.Cols
			bi := g.IndexOf(ar, ac)
			if bi < 0 {
				outside += v
			}
			if bi < 0 || prior[bi] == 0 {
				desert += v
			}
			if bi >= 0 && bi != a && ar >= 4 && ar <= 8 && ac >= 1 && ac <= 5 {
				block += v
			}
			best, arg := -1.0, -1
			for x := range M {
				if w := prior[x] * M[x][y]; w > best {
					best, arg = w, x
				}
			}
			if arg == a {
				ident += v
			}
		}
		for name, want := range map[string]float64{"p_deserted": desert, "p_outside_grid": outside,
			"p_island_block": block, "map_identification": ident} {
			if got := fcell(t, st, r, name); math.Abs(got-want) > 1e-9 {
				t.Errorf("%s at A: %s = %v, direct %v", cell(t, st, r, "mechanism"), name, got, want)
			}
		}
	}
}

func TestAdversarialMatchesDirectComputation(t *testing.T) {
	p := adversarialKind{}.NewParams().(*adversarialParams)
	const beta, f = 0.4, 0.29
	ts, err := adversarialKind{}.Run(context.Background(), harness.Job{Key: "k", Arg: adversarialJob{p: p, beta: beta, fraction: f}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("paris", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Grid
	a := g.IndexOf(6, 3)
	prior := islandByHand(g, ds.Prior())
	corrupted := make([]float64, len(prior))
	for i, v := range prior {
		corrupted[i] = (1 - f) * v
	}
	corrupted[a] += f
	C := plainBA(g, corrupted, beta, 10)
	rd := tableOf(t, ts, "report_distribution")
	if len(rd.Rows) != g.Len() {
		t.Fatalf("%d rows, want %d", len(rd.Rows), g.Len())
	}
	within1 := 0.0
	for _, r := range rd.Rows {
		row, col, pr := icell(t, rd, r, "row"), icell(t, rd, r, "col"), fcell(t, rd, r, "probability")
		y := g.IndexOf(row, col)
		if !close12(pr, C[a][y]) {
			t.Fatalf("(%d,%d): %v, direct %v", row, col, pr, C[a][y])
		}
		if fcell(t, rd, r, "fraction") != f || fcell(t, rd, r, "epsilon") != 2*beta {
			t.Fatalf("row %v: wrong fraction or epsilon", r)
		}
		if dist(g, a, g, y) <= 1 {
			within1 += C[a][y]
		}
	}
	id := tableOf(t, ts, "identification")
	if got := fcell(t, id, id.Rows[0], "p_within1"); math.Abs(got-within1) > 1e-12 {
		t.Errorf("p_within1 = %v, direct %v", got, within1)
	}
}

// TestLocationStatsByHand checks every statistic on a 1x3 example worked
// out on paper.
func TestLocationStatsByHand(t *testing.T) {
	g := kernels.Grid{Rows: 1, Cols: 3}
	ch := &kernels.Channel{In: g, Out: g, P: []float64{
		0.7, 0.25, 0.05,
		0.2, 0.6, 0.2,
		0.1, 0.3, 0.6,
	}}
	prior := []float64{0.6, 0, 0.4}
	s, err := locationStats(prior, ch, 2, []bool{false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	// q = prior.C = (0.46, 0.27, 0.27); the MAP guess is cell 0 for
	// reports 0 and 1 and cell 2 for report 2.
	want := locStats{
		PDeserted: 0.3, PBlock: 0.3, PAt: 0.6, PWithin1: 0.9, PWithin2: 1,
		ExpPriorMass: 0.1*0.6 + 0.6*0.4, ExpDistance: 0.1*2 + 0.3*1,
		ModeRow: 0, ModeCol: 2, ModeDistance: 0,
		MAPIdent:     0.6,
		ExpPosterior: 0.1*0.04/0.46 + 0.3*0.12/0.27 + 0.6*0.24/0.27,
	}
	got := []float64{s.PDeserted, s.POutside, s.PBlock, s.PAt, s.PWithin1, s.PWithin2, s.ExpPriorMass, s.ExpDistance,
		float64(s.ModeRow), float64(s.ModeCol), s.ModeDistance, s.MAPIdent, s.ExpPosterior}
	exp := []float64{want.PDeserted, want.POutside, want.PBlock, want.PAt, want.PWithin1, want.PWithin2, want.ExpPriorMass, want.ExpDistance,
		float64(want.ModeRow), float64(want.ModeCol), want.ModeDistance, want.MAPIdent, want.ExpPosterior}
	for i := range got {
		if math.Abs(got[i]-exp[i]) > 1e-12 {
			t.Errorf("%s = %v, want %v", locStatsHeader[i], got[i], exp[i])
		}
	}
}

// tinyDataset is a 3x4 synthetic city.
func tinyDataset() *datasets.Dataset {
	counts := []int{5, 0, 3, 1, 0, 8, 2, 0, 1, 0, 0, 4}
	n := 0
	for _, c := range counts {
		n += c
	}
	return &datasets.Dataset{Name: "tiny", Grid: kernels.Grid{Rows: 3, Cols: 4}, Counts: counts, N: n}
}

// TestUtilityEMDMatchesIndependentComputation runs the ba-vs-lap job on a
// tiny synthetic city and recomputes every utility row: the reports are
// redrawn with the same streams (kernels.Obfuscate generates the input),
// the estimate comes from a plain IBU on a plainly built channel, and the
// EMD, true and reference-defective, from gonum's LP simplex.
func TestUtilityEMDMatchesIndependentComputation(t *testing.T) {
	p := baVsLapKind{}.NewParams().(*baVsLapParams)
	p.Sims, p.LapWiden, p.ReferenceDefectSims = 3, 1, 2
	ds := tinyDataset()
	const beta = 0.7
	job := harness.Job{Key: "city=tiny/beta=0.7", Arg: baVsLapJob{p: p, city: "tiny", beta: beta, data: ds}}
	ts, err := baVsLapKind{}.Run(context.Background(), job, harness.JobRand(9, job.Key))
	if err != nil {
		t.Fatal(err)
	}
	util := tableOf(t, ts, "utility")
	if len(util.Rows) != 2*p.Sims {
		t.Fatalf("%d utility rows, want %d", len(util.Rows), 2*p.Sims)
	}
	g, wide := ds.Grid, ds.Grid.Widen(1)
	prior := ds.Prior()
	kba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	seeds := simSeeds(harness.JobRand(9, job.Key), p.Sims, 2)
	Cba := plainBA(g, prior, beta, 10)
	baseCost := func(i, j int) float64 { return dist(g, i, g, j) }
	wideCost := func(i, j int) float64 { return dist(wide, i, wide, j) }
	for _, r := range util.Rows {
		sim, mech := icell(t, util, r, "sim"), cell(t, util, r, "mechanism")
		eps := fcell(t, util, r, "epsilon")
		var kch *kernels.Channel
		var C [][]float64
		k := 0
		if mech == "ba" {
			kch, C = kba.Channel(), Cba
		} else {
			k = 1
			if kch, err = kernels.Laplace(g, wide, eps); err != nil {
				t.Fatal(err)
			}
			C = plainLaplace(g, wide, eps)
		}
		reports, err := kernels.Obfuscate(rand.New(rand.NewPCG(seeds[sim][k][0], seeds[sim][k][1])), ds.Counts, kch)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range reports {
			n += v
		}
		if n != ds.N || icell(t, util, r, "n_reports") != ds.N {
			t.Fatalf("%d reports (table %s), want N = %d", n, cell(t, util, r, "n_reports"), ds.N)
		}
		q := make([]float64, len(reports))
		for y, v := range reports {
			q[y] = float64(v) / float64(n)
		}
		est := plainIBU(C, q, 10)
		if want, got := lpEMD(t, est, prior, baseCost), fcell(t, util, r, "emd"); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s sim %d: emd %v, LP on plain IBU estimate %v", mech, sim, got, want)
		}
		if sim >= p.ReferenceDefectSims {
			if s := cell(t, util, r, "emd_reference_defect"); s != "" {
				t.Errorf("%s sim %d: emd_reference_defect = %q beyond reference_defect_sims", mech, sim, s)
			}
			continue
		}
		wantDefect := fcell(t, util, r, "emd")
		if mech == "lap" {
			wantDefect = lpEMD(t, prior, est, wideCost)
		}
		if got := fcell(t, util, r, "emd_reference_defect"); math.Abs(got-wantDefect) > 1e-9 {
			t.Errorf("%s sim %d: emd_reference_defect %v, want %v", mech, sim, got, wantDefect)
		}
	}
	// Fewer simulations reproduce the first ones of a longer run.
	p2 := *p
	p2.Sims = 2
	job2 := harness.Job{Key: job.Key, Arg: baVsLapJob{p: &p2, city: "tiny", beta: beta, data: ds}}
	ts2, err := baVsLapKind{}.Run(context.Background(), job2, harness.JobRand(9, job.Key))
	if err != nil {
		t.Fatal(err)
	}
	u2 := tableOf(t, ts2, "utility")
	for i, r := range u2.Rows {
		if strings.Join(r, ",") != strings.Join(util.Rows[i], ",") {
			t.Errorf("sims=2 row %d = %v, sims=3 gives %v", i, r, util.Rows[i])
		}
	}
}

func TestPaperWinnerRanges(t *testing.T) {
	for _, tc := range []struct {
		city string
		beta float64
		want string
	}{
		{"paris", 0.2, ""}, {"paris", 0.4, ""}, {"paris", 0.6, "ba"}, {"paris", 1.4, "ba"}, {"paris", 1.6, "lap"},
		{"sf", 0.2, "ba"}, {"sf", 0.8, "ba"}, {"sf", 1.0, "lap"}, {"sf", 5, "lap"}, {"rome", 1, ""},
	} {
		// 1.4 as a sweep value is 0.2*7 rounded to 12 digits: exactly 1.4.
		if got := paperWinner(tc.city, tc.beta); got != tc.want {
			t.Errorf("paperWinner(%s, %v) = %q, want %q", tc.city, tc.beta, got, tc.want)
		}
	}
}

func TestClockwise(t *testing.T) {
	got := clockwise([]string{"tl", "tr", "br", "bl"})
	if strings.Join(got, ",") != "tl,tr,bl,br" {
		t.Errorf("clockwise = %v, want row-major tl,tr,bl,br", got)
	}
}

// TestPointEMDMatchesKernel checks that the tabulated EMD of the BA vs
// LAP jobs gives exactly kernels.EMD's value, on the base grid and in the
// reference code's defective placement on a widened grid, and rejects
// what kernels.EMD rejects.
func TestPointEMDMatchesKernel(t *testing.T) {
	g, err := kernels.NewGrid(5, 7)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, wide := range []kernels.Grid{g, g.Widen(3)} {
		e, err := newPointEMD(wide, g.Len())
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 20; trial++ {
			p, q := make([]float64, g.Len()), make([]float64, g.Len())
			for i := range p {
				if rng.IntN(3) > 0 {
					p[i] = rng.Float64()
				}
				q[i] = rng.Float64()
			}
			for _, v := range [][]float64{p, q} {
				s := 0.0
				for _, x := range v {
					s += x
				}
				for i := range v {
					v[i] /= s
				}
			}
			got, err := e.dist(p, q)
			if err != nil {
				t.Fatal(err)
			}
			pw, qw := make([]float64, wide.Len()), make([]float64, wide.Len())
			copy(pw, p)
			copy(qw, q)
			want, err := kernels.EMD(wide, pw, wide, qw)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("grid %v trial %d: pointEMD %v, kernels.EMD %v", wide, trial, got, want)
			}
		}
		bad := make([]float64, g.Len())
		bad[0] = 2
		if _, err := e.dist(bad, bad); err == nil {
			t.Errorf("grid %v: accepted masses summing to 2", wide)
		}
	}
}
