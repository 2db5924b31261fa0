package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"privic/harness"
)

// memMessage is the memory guard's refusal; it must carry the estimate and
// the limit.
var memMessage = regexp.MustCompile(`job (\S+) needs about ([0-9.]+) (B|KiB|MiB|GiB|TiB) of memory, above the limit of ([0-9.]+ (?:B|KiB|MiB|GiB|TiB))`)

var unitBytes = map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

// refusedEstimate runs `privic validate --mem-limit limit spec`, requires
// the guard's refusal and returns the estimate it states, in bytes.
func refusedEstimate(t *testing.T, work, spec, limit string) float64 {
	t.Helper()
	status, stdout, stderr := runChild(t, work, "validate", "--mem-limit", limit, spec)
	checkRefusal(t, status, stdout, stderr, spec)
	m := memMessage.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("refusal %q does not state the estimate and the limit", strings.TrimSpace(stderr))
	}
	v, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v * unitBytes[m[3]]
}

func writeTemp(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMemoryGuard: a job whose estimate exceeds --mem-limit is refused
// before anything runs, with the estimate and the limit in the message;
// the estimate grows with the square of the number of cells; "off"
// disables the guard; without the flag the limit is half the machine's
// memory.
func TestMemoryGuard(t *testing.T) {
	work := t.TempDir()
	spec := func(kind, city string) string {
		body := "kind = \"" + kind + "\"\n[params]\ncities = [\"" + city + "\"]\nbeta = [1]\n"
		if kind == "ba-vs-lap" {
			body += "sims = 1\nlap_widen = 0\n"
		} else {
			body += "rounds = 1\ncycles = {" + city + " = 4}\n"
		}
		return writeTemp(t, work, kind+"-"+city+".toml", body)
	}
	for _, kind := range []string{"ba-vs-lap", "privic-convergence"} {
		t.Run(kind, func(t *testing.T) {
			paris := refusedEstimate(t, work, spec(kind, "paris"), "1KiB")
			sf := refusedEstimate(t, work, spec(kind, "sf"), "1KiB")
			// Paris has 11 x 15 = 165 cells, SF 16 x 24 = 384: the dense
			// channels and the EMD's tables grow as the square of the
			// cells, the kernels' stencils and vectors linearly, so the
			// ratio lies between 384/165 = 2.33 and (384/165)^2 = 5.42
			// (3 significant digits in the message).
			lin := 384.0 / 165
			if r := sf / paris; r < 0.95*lin || r > 1.15*lin*lin {
				t.Errorf("SF/Paris memory estimate ratio %.3g (%.3g / %.3g bytes), want between %.3g (cells) and %.3g (cells squared)", r, sf, paris, lin, lin*lin)
			}
			// The same refusal from run, which then writes nothing.
			out := filepath.Join(work, "results-"+kind)
			status, stdout, stderr := runChild(t, work, "run", "--mem-limit", "1KiB", "--out", out, spec(kind, "sf"))
			checkRefusal(t, status, stdout, stderr, "above the limit of 1 KiB")
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run created %s", out)
			}
		})
	}

	huge, err := filepath.Abs(filepath.Join("..", "..", "harness", "testdata", "bad", "memory-too-large.toml"))
	if err != nil {
		t.Fatal(err)
	}
	est := refusedEstimate(t, work, huge, "8GiB")
	if est < 50*(1<<30) {
		t.Fatalf("estimate %.3g bytes for 100000 cycles of SF, want more than 50 GiB", est)
	}
	if status, stdout, stderr := runChild(t, work, "validate", "--mem-limit", "off", huge); status != 0 || !strings.Contains(stdout, "ok") {
		t.Errorf("--mem-limit off: exit %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	limit := harness.DefaultMemLimit()
	if limit <= 0 || float64(limit) >= est {
		t.Logf("default limit %d bytes: the machine is too large (or its memory unknown) to check the default on this spec", limit)
		return
	}
	status, stdout, stderr := runChild(t, work, "validate", huge)
	checkRefusal(t, status, stdout, stderr, "above the limit of "+harness.FormatBytes(limit))
}

// TestEveryKindEstimatesMemory: every experiment kind implements
// harness.MemoryEstimator, and every job of the project's own specs gets a
// positive estimate within the default limit of a 16 GiB machine (8 GiB),
// so `./run.sh` is never refused there.
func TestEveryKindEstimatesMemory(t *testing.T) {
	reg, err := harness.NewRegistry(allKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, k := range reg.Kinds() {
		if _, ok := k.(harness.MemoryEstimator); !ok {
			missing = append(missing, k.Name())
		}
	}
	if len(missing) > 0 {
		t.Errorf("kinds without EstimateBytes (the memory guard cannot protect their jobs): %s", strings.Join(missing, ", "))
	}
	specs, _ := filepath.Glob(filepath.Join("..", "..", "experiments", "*.toml"))
	for _, path := range specs {
		s, err := reg.Load(path)
		if err != nil {
			t.Logf("%v (not checked here)", err)
			continue
		}
		est, ok := s.Kind.(harness.MemoryEstimator)
		if !ok {
			continue
		}
		jobs, err := s.Plan()
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if b := est.EstimateBytes(j.Job); b <= 0 || b > 8<<30 {
				t.Errorf("%s: job %s: estimate %d bytes, want in (0, 8 GiB]", path, j.Key, b)
				break
			}
		}
	}
}

// TestSizeLimitsReported: what a run will refuse by size is said by
// validate and at the start of run, before any job runs: the snapped
// planar Laplace's eps calibration on 41 x 41 = 1,681 cells (its tight
// epsilon, a brute force over 2.4e9 pairs), and the dense SVD of BA's
// smallest singular value above 2,048 cells, the Bayes error above 1e10
// operations (47 x 47 cells).
func TestSizeLimitsReported(t *testing.T) {
	work := t.TempDir()
	planar := writeTemp(t, work, "planar.toml", `kind = "mechanisms"
[datasets.big]
synthetic = {rows = 41, cols = 41, n = 5000, hotspots = 3, seed = 1}
[params]
cities = ["big"]
mechanisms = ["planar-laplace"]
calibrations = ["eps"]
eps = [1]
sims = 1
`)
	svd := writeTemp(t, work, "svd.toml", `kind = "elastic"
[datasets.big]
synthetic = {rows = 70, cols = 70, n = 5000, hotspots = 3, seed = 1}
places = {A = [10, 10], B = [30, 30]}
[params]
city = "big"
beta = [1]
`)
	bayes := writeTemp(t, work, "bayes.toml", `kind = "mechanisms"
[datasets.big]
synthetic = {rows = 47, cols = 47, n = 5000, hotspots = 3, seed = 1}
[params]
cities = ["big"]
mechanisms = ["ba"]
calibrations = ["distortion"]
distortion = [1]
`)
	wantBayes := "big, ba (47 x 47 cells): bayes_error left empty: a minimum over guesses for every report, O(|Y| |X|^2) = 1.08e+10 operations, above 1e+10"
	wantPlanar := "big, planar-laplace (41 x 41 cells): the eps calibration refused (calibration.csv, skipped.csv): tight epsilon of the snapped planar Laplace on 41x41 -> 41x41: a brute force over 2.38e+09 pairs"
	wantSVD := "big (70 x 70 cells): exact smallest singular value of the BA channels: a dense SVD costs O(m^3) and is run up to 4096 cells, this grid has 4900"
	for spec, want := range map[string]string{planar: wantPlanar, svd: wantSVD, bayes: wantBayes} {
		status, stdout, stderr := runChild(t, work, "validate", spec)
		if status != 0 || !strings.Contains(stdout, "\n  by size: "+want) {
			t.Errorf("validate %s: status %d, stdout %q, stderr %q; want %q", filepath.Base(spec), status, stdout, stderr, want)
		}
	}
	// The planar run's only job is the refused calibration: quick.
	status, _, stderr := runChild(t, work, "run", "--out", filepath.Join(work, "results"), planar)
	i := strings.Index(stderr, "planar: by size: "+wantPlanar)
	if status != 0 || i < 0 {
		t.Fatalf("run: status %d, stderr %q lacks the size limit", status, stderr)
	}
	if j := strings.Index(stderr, "planar: 1 jobs"); j >= 0 && j < i {
		t.Errorf("the size limit comes after the jobs ran:\n%s", stderr)
	}
	cal, err := os.ReadFile(filepath.Join(work, "results", "planar", "calibration.csv"))
	if err != nil || !strings.Contains(string(cal), ",refused: calibrate planar-laplace to eps = 1 on 41x41: tight epsilon of the snapped planar Laplace on 41x41 -> 41x41") {
		t.Errorf("calibration.csv does not record the refusal the run announced: %v\n%s", err, cal)
	}
}
