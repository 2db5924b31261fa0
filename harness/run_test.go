package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"privic/harness"
	"privic/harness/internal/testkind"
)

const runSpec = `kind = "testkind"
name = "exp"
seed = 11
[params]
beta = [0.5, 1, 2, 4]
reps = 5
draws = 30
sleep_ms = 2
`

// tree returns the files of an output root that must be byte-identical
// between equivalent runs: everything except the job store, manifests
// (timings) and lock files. It fails the test on leftover temporary files.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", path)
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() || d.Name() == "manifest.json" || d.Name() == ".lock" || strings.Contains(filepath.ToSlash(rel), "/jobs/") {
			return nil
		}
		b, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameTree(t *testing.T, a, b map[string]string) {
	t.Helper()
	if len(a) == 0 {
		t.Fatal("empty output tree")
	}
	for k, v := range a {
		w, ok := b[k]
		switch {
		case !ok:
			t.Errorf("%s missing in the second run", k)
		case v != w:
			t.Errorf("%s differs between runs", k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("%s only in the second run", k)
		}
	}
}

func run(t *testing.T, reg *harness.Registry, spec, out string, opt harness.RunOptions) ([]harness.Result, error) {
	t.Helper()
	opt.Out = out
	s, err := reg.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	return harness.Run(context.Background(), []*harness.Spec{s}, opt)
}

func mustRun(t *testing.T, reg *harness.Registry, spec, out string, opt harness.RunOptions) []harness.Result {
	t.Helper()
	res, err := run(t, reg, spec, out, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readManifest(t *testing.T, dir string) harness.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m harness.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeterministicAcrossParallelism: -j 1 and -j 8 give the same bytes,
// and the rows are the plan's jobs in plan order with each job's own
// random stream (recomputed here from JobRand).
func TestDeterministicAcrossParallelism(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	spec := writeSpec(t, dir, "exp.toml", runSpec)
	mustRun(t, reg, spec, filepath.Join(dir, "j1"), harness.RunOptions{Jobs: 1})
	mustRun(t, reg, spec, filepath.Join(dir, "j8"), harness.RunOptions{Jobs: 8})
	a, b := tree(t, filepath.Join(dir, "j1")), tree(t, filepath.Join(dir, "j8"))
	sameTree(t, a, b)

	lines := strings.Split(strings.TrimSpace(a["exp/means.csv"]), "\n")
	if lines[0] != "beta,rep,mean" || len(lines) != 1+4*5 {
		t.Fatalf("means.csv: %d lines, header %q", len(lines), lines[0])
	}
	i := 1
	for _, beta := range []string{"0.5", "1", "2", "4"} {
		for rep := range 5 {
			f := strings.Split(lines[i], ",")
			if f[0] != beta || f[1] != strconv.Itoa(rep) {
				t.Fatalf("row %d is %q, want beta %s rep %d (plan order)", i, lines[i], beta, rep)
			}
			rng := harness.JobRand(11, "beta="+beta+"/rep="+strconv.Itoa(rep))
			b, _ := strconv.ParseFloat(beta, 64)
			sum := 0.0
			for range 30 {
				sum += b + rng.NormFloat64()
			}
			if f[2] != harness.FormatFloat(sum/30) {
				t.Fatalf("row %d mean %s, recomputed %s", i, f[2], harness.FormatFloat(sum/30))
			}
			i++
		}
	}
	if !strings.HasPrefix(a["exp/summary.csv"], "beta,reps,mean\n0.5,5,") || a["exp/notes/summary.txt"] != "4 betas, 20 job means\n" {
		t.Errorf("Finish outputs: %q %q", a["exp/summary.csv"], a["exp/notes/summary.txt"])
	}
}

func TestManifestAndReuse(t *testing.T) {
	dir := t.TempDir()
	var runs atomic.Int64
	reg := registry(t, &testkind.Hooks{OnRun: func(string) { runs.Add(1) }, Datasets: []string{"Somewhere", "Elsewhere, 100 m cells"}})
	spec := writeSpec(t, dir, "exp.toml", runSpec)
	out := filepath.Join(dir, "out")
	res := mustRun(t, reg, spec, out, harness.RunOptions{Jobs: 3})
	m := readManifest(t, filepath.Join(out, "exp"))
	s := mustLoad(t, reg, spec)
	jobs, _ := s.Plan()
	if m.SpecHash != s.Hash || m.Seed != 11 || m.Kind != "testkind" || m.Name != "exp" || m.Shard != "all" || m.Parallelism != 3 {
		t.Errorf("manifest header %+v", m)
	}
	if m.GoVersion != runtime.Version() || m.GOOS != runtime.GOOS || m.GOARCH != runtime.GOARCH || m.CPU == "" || m.NumCPU != runtime.NumCPU() {
		t.Errorf("manifest env %+v", m.Env)
	}
	if !slices.Equal(m.Datasets, []string{"Somewhere", "Elsewhere, 100 m cells"}) {
		t.Errorf("manifest datasets %q, want the kind's DatasetTitles", m.Datasets)
	}
	if m.GitCommit != "unknown" && !regexp.MustCompile(`^[0-9a-f]{40,64}$`).MatchString(m.GitCommit) {
		t.Errorf("git commit %q", m.GitCommit)
	}
	if len(m.Jobs) != len(jobs) || m.JobsComputed != len(jobs) || m.JobsReused != 0 || m.End.Before(m.Start) {
		t.Fatalf("manifest jobs: %d timings, %d computed, %d reused", len(m.Jobs), m.JobsComputed, m.JobsReused)
	}
	for i, j := range m.Jobs {
		if j.Key != jobs[i].Key || j.Seconds <= 0 || j.Reused {
			t.Errorf("timing %d: %+v", i, j)
		}
	}
	if !slices.Equal(m.Tables, []string{"draws", "means"}) || res[0].Manifest.SpecHash != s.Hash {
		t.Errorf("tables %v", m.Tables)
	}
	first := tree(t, out)
	if got := int(runs.Load()); got != len(jobs) {
		t.Fatalf("%d jobs ran, plan has %d", got, len(jobs))
	}

	// A rerun reuses everything; --force recomputes everything; the bytes
	// stay the same.
	mustRun(t, reg, spec, out, harness.RunOptions{Jobs: 3})
	if got := int(runs.Load()); got != len(jobs) {
		t.Errorf("rerun ran %d jobs, want 0", got-len(jobs))
	}
	if m := readManifest(t, filepath.Join(out, "exp")); m.JobsReused != len(jobs) || m.JobsComputed != 0 || !m.Jobs[0].Reused {
		t.Errorf("rerun manifest: %d reused %d computed", m.JobsReused, m.JobsComputed)
	}
	sameTree(t, first, tree(t, out))
	mustRun(t, reg, spec, out, harness.RunOptions{Jobs: 3, Force: true})
	if got := int(runs.Load()); got != 2*len(jobs) {
		t.Errorf("--force ran %d jobs, want %d", got-len(jobs), len(jobs))
	}
	sameTree(t, first, tree(t, out))
	if b, _ := os.ReadFile(filepath.Join(out, "exp", "spec.toml")); string(b) != runSpec {
		t.Error("spec.toml is not a copy of the spec")
	}
}

// TestChangedSpecRecomputes: results of another version of the spec are
// neither reused nor left in the store.
func TestChangedSpecRecomputes(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	out := filepath.Join(dir, "out")
	mustRun(t, reg, writeSpec(t, dir, "exp.toml", strings.Replace(runSpec, "seed = 11", "seed = 12", 1)), out, harness.RunOptions{})
	changed := writeSpec(t, dir, "exp.toml", strings.Replace(runSpec, "beta = [0.5, 1, 2, 4]", "beta = [0.5, 1, 3]", 1))
	mustRun(t, reg, changed, out, harness.RunOptions{})
	fresh := filepath.Join(dir, "fresh")
	mustRun(t, reg, changed, fresh, harness.RunOptions{})
	sameTree(t, tree(t, fresh), tree(t, out))
	if m := readManifest(t, filepath.Join(out, "exp")); m.JobsReused != 0 {
		t.Errorf("%d jobs reused across a seed change", m.JobsReused)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "exp", "jobs"))
	if len(entries) != 15 {
		t.Errorf("job store holds %d files, the plan has 15 jobs", len(entries))
	}
}

func TestJobErrorsNameTheJob(t *testing.T) {
	for _, c := range []struct{ param, key, want string }{
		{"fail", "beta=1/rep=1", "job beta=1/rep=1: failed on purpose"},
		{"panic", "beta=2/rep=0", "job beta=2/rep=0: panic: assignment to entry in nil map"},
	} {
		dir := t.TempDir()
		reg := registry(t, nil)
		spec := writeSpec(t, dir, "exp.toml", runSpec+c.param+" = \""+c.key+"\"\n")
		_, err := run(t, reg, spec, filepath.Join(dir, "out"), harness.RunOptions{Jobs: 2})
		if err == nil || err.Error() != spec+": "+c.want {
			t.Errorf("error %v, want %q", err, spec+": "+c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out", "exp", "means.csv")); err == nil {
			t.Error("merged table written despite a failed job")
		}
	}
}

// TestFirstErrorCancelsTheRest: after a failure no new job starts.
func TestFirstErrorCancelsTheRest(t *testing.T) {
	dir := t.TempDir()
	var started atomic.Int64
	reg := registry(t, &testkind.Hooks{OnRun: func(string) { started.Add(1); time.Sleep(5 * time.Millisecond) }})
	spec := writeSpec(t, dir, "exp.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 50, step = 1}\nreps = 1\nfail = \"beta=2/rep=0\"\n")
	_, err := run(t, reg, spec, filepath.Join(dir, "out"), harness.RunOptions{Jobs: 2})
	if err == nil || !strings.Contains(err.Error(), "job beta=2/rep=0: failed on purpose") {
		t.Fatalf("error %v", err)
	}
	if n := started.Load(); n > 6 {
		t.Errorf("%d of 50 jobs started after the second failed", n)
	}
}

func TestMemoryGuard(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	spec := writeSpec(t, dir, "exp.toml", runSpec+"mem_bytes = 1073741824\n")
	out := filepath.Join(dir, "out")
	_, err := run(t, reg, spec, out, harness.RunOptions{MemLimit: 1 << 20})
	want := spec + ": job beta=0.5/rep=0 needs about 1 GiB of memory, above the limit of 1 MiB"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a refused run wrote to the output directory")
	}

	// Jobs whose estimates do not fit together do not run together.
	var mu sync.Mutex
	active, most := 0, 0
	reg = registry(t, &testkind.Hooks{
		OnRun: func(string) {
			mu.Lock()
			active++
			most = max(most, active)
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
		},
		OnDone: func(string) { mu.Lock(); active--; mu.Unlock() },
	})
	spec = writeSpec(t, dir, "exp.toml", runSpec+"mem_bytes = 600\n")
	mustRun(t, reg, spec, out, harness.RunOptions{Jobs: 8, MemLimit: 1000})
	if most != 1 {
		t.Errorf("%d jobs of 600 bytes ran at once under a 1000-byte limit", most)
	}
}

// TestMemoryDoesNotBlockTheQueue: a job waiting for memory does not hold
// up the smaller jobs behind it in the schedule, nor keep a core idle. A
// FIFO semaphore ran the 600-byte jobs of spec a one at a time while the
// other slot waited, and the 100-byte jobs of b only after all of a's had
// started (the 20th start).
func TestMemoryDoesNotBlockTheQueue(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	used, most := int64(0), int64(0)
	var starts []string
	mem := func(key string) int64 {
		if strings.HasPrefix(key, "beta=3/") {
			return 100 // spec b
		}
		return 600 // spec a
	}
	reg := registry(t, &testkind.Hooks{
		OnRun: func(key string) {
			mu.Lock()
			used += mem(key)
			most = max(most, used)
			starts = append(starts, key)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		},
		OnDone: func(key string) { mu.Lock(); used -= mem(key); mu.Unlock() },
	})
	a := mustLoad(t, reg, writeSpec(t, dir, "a.toml", strings.Replace(runSpec, `name = "exp"`, `name = "a"`, 1)+"mem_bytes = 600\n"))
	b := mustLoad(t, reg, writeSpec(t, dir, "b.toml",
		strings.NewReplacer(`name = "exp"`, `name = "b"`, "beta = [0.5, 1, 2, 4]", "beta = [3]").Replace(runSpec)+"mem_bytes = 100\n"))
	if _, err := harness.Run(context.Background(), []*harness.Spec{a, b}, harness.RunOptions{Out: filepath.Join(dir, "out"), Jobs: 2, MemLimit: 1000}); err != nil {
		t.Fatal(err)
	}
	if most > 1000 {
		t.Errorf("%d bytes of estimates ran at once under a 1000-byte limit", most)
	}
	// The first job of a takes 600 bytes; the second does not fit beside
	// it, so the free slot goes to a job of b at once.
	firstB := slices.IndexFunc(starts, func(k string) bool { return mem(k) == 100 })
	if firstB < 0 || firstB > 2 {
		t.Errorf("the first job of b started %dth of %d: a's jobs waiting for memory held up b's (order %v)", firstB+1, len(starts), starts)
	}
}

func TestDuplicateNamesAndLock(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	a := mustLoad(t, reg, writeSpec(t, dir, "a.toml", runSpec))
	b := mustLoad(t, reg, writeSpec(t, dir, "b.toml", runSpec))
	_, err := harness.Run(context.Background(), []*harness.Spec{a, b}, harness.RunOptions{Out: filepath.Join(dir, "out")})
	if err == nil || !strings.Contains(err.Error(), `name "exp" is also used by`) {
		t.Errorf("duplicate names: %v", err)
	}

	// A second process (here: a second Run) cannot write the directory
	// while the first holds it.
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	reg = registry(t, &testkind.Hooks{OnRun: func(string) { once.Do(func() { close(entered) }); <-release }})
	out := filepath.Join(dir, "out")
	done := make(chan error)
	go func() { _, err := run(t, reg, a.Path, out, harness.RunOptions{Jobs: 1}); done <- err }()
	<-entered
	_, err = run(t, registry(t, nil), a.Path, out, harness.RunOptions{})
	close(release)
	if err == nil || !strings.Contains(err.Error(), "being written by another privic process") {
		t.Errorf("concurrent run: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestOutputRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	var errs []error
	reg := registry(t, &testkind.Hooks{OnFinish: func(out *harness.Output) {
		for _, rel := range []string{"", "../x", "/abs", "a/../../b", "jobs/x.json", "manifest.json", "spec.toml", "draws.csv", ".tmp-x"} {
			errs = append(errs, out.Create(rel, func(w io.Writer) error { return nil }))
		}
		errs = append(errs, out.WriteTable(harness.Table{Name: "means", Header: []string{"a"}}))
		errs = append(errs, out.WriteTable(harness.Table{Name: "../x", Header: []string{"a"}}))
		errs = append(errs, out.WriteTable(harness.Table{Name: "ok", Header: []string{"a", "b"}, Rows: [][]string{{"1"}}}))
		_, err := out.ReadTable("../means")
		errs = append(errs, err)
	}})
	mustRun(t, reg, writeSpec(t, dir, "exp.toml", runSpec), filepath.Join(dir, "out"), harness.RunOptions{})
	for i, err := range errs {
		if err == nil {
			t.Errorf("escape %d accepted", i)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a file escaped the output directory")
	}
}

func TestProgressLines(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, &testkind.Hooks{OnRun: func(string) { time.Sleep(150 * time.Millisecond) }})
	spec := writeSpec(t, dir, "exp.toml", "kind = \"testkind\"\n[params]\nbeta = 1\nreps = 9\n")
	var buf safeBuffer
	mustRun(t, reg, spec, filepath.Join(dir, "out"), harness.RunOptions{Jobs: 1, Log: &buf, ProgressEvery: 100 * time.Millisecond})
	log := buf.String()
	if !regexp.MustCompile(`(?m)^privic: [1-9]/9 jobs, [0-9.]+s elapsed, ETA [0-9.]+s$`).MatchString(log) {
		t.Errorf("no progress line in:\n%s", log)
	}
	if !regexp.MustCompile(`(?m)^exp: 9 jobs \(9 computed, 0 reused\) in [0-9.]+s -> `).MatchString(log) {
		t.Errorf("no summary line in:\n%s", log)
	}
	if strings.Contains(log, "\r") {
		t.Error("bar control characters on a non-terminal")
	}
}

// TestSizeLimitsBeforeJobs: what the parameters say a run will leave
// out by size is in Check's result and logged by Run before any job
// runs.
func TestSizeLimitsBeforeJobs(t *testing.T) {
	dir := t.TempDir()
	var buf safeBuffer
	var atFirstJob string
	var once sync.Once
	reg := registry(t, &testkind.Hooks{OnRun: func(string) { once.Do(func() { atFirstJob = buf.String() }) }})
	spec := writeSpec(t, dir, "exp.toml", runSpec+"too_big = [\"x (9 cells): the y is refused\", \"z left empty\"]\n")
	checked, err := harness.Check([]*harness.Spec{mustLoad(t, reg, spec)}, harness.RunOptions{})
	if err != nil || len(checked) != 1 || !slices.Equal(checked[0].Limits, []string{"x (9 cells): the y is refused", "z left empty"}) {
		t.Fatalf("Check: %+v, %v", checked, err)
	}
	mustRun(t, reg, spec, filepath.Join(dir, "out"), harness.RunOptions{Jobs: 1, Log: &buf})
	for _, want := range []string{"exp: by size: x (9 cells): the y is refused\n", "exp: by size: z left empty\n"} {
		if !strings.Contains(atFirstJob, want) {
			t.Errorf("the log before the first job lacks %q:\n%s", want, atFirstJob)
		}
	}
}

type safeBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStaleTablesRemoved: a job table of the previous run that the kind
// no longer produces does not linger beside the new ones.
func TestStaleTablesRemoved(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	spec := writeSpec(t, dir, "exp.toml", runSpec)
	out := filepath.Join(dir, "out")
	mustRun(t, reg, spec, out, harness.RunOptions{})
	exp := filepath.Join(out, "exp")
	m := readManifest(t, exp)
	m.Tables = append(m.Tables, "retired", "../escape")
	b, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(exp, "manifest.json"), b, 0o644)
	os.WriteFile(filepath.Join(exp, "retired.csv"), []byte("a\n1\n"), 0o644)
	os.WriteFile(filepath.Join(out, "escape.csv"), []byte("keep\n"), 0o644)
	mustRun(t, reg, spec, out, harness.RunOptions{})
	if _, err := os.Stat(filepath.Join(exp, "retired.csv")); err == nil {
		t.Error("retired.csv survived the rerun")
	}
	if _, err := os.Stat(filepath.Join(out, "escape.csv")); err != nil {
		t.Error("a table name from the manifest reached outside the directory")
	}
	if _, err := os.Stat(filepath.Join(exp, "means.csv")); err != nil {
		t.Error(err)
	}
}

// TestExclusiveJobsRunAlone: while a job of an Exclusive kind runs, no
// other job does, though -j allows four.
func TestExclusiveJobsRunAlone(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	active, aloneActive, violations, most := 0, 0, 0, 0
	enter := func(alone bool) func(string) {
		return func(string) {
			mu.Lock()
			active++
			most = max(most, active)
			if alone {
				aloneActive++
			}
			if aloneActive > 0 && active > 1 {
				violations++
			}
			mu.Unlock()
			time.Sleep(3 * time.Millisecond)
		}
	}
	leave := func(alone bool) func(string) {
		return func(string) {
			mu.Lock()
			active--
			if alone {
				aloneActive--
			}
			mu.Unlock()
		}
	}
	reg, err := harness.NewRegistry(
		testkind.New(&testkind.Hooks{OnRun: enter(false), OnDone: leave(false)}),
		testkind.New(&testkind.Hooks{KindName: "timing", Alone: true, OnRun: enter(true), OnDone: leave(true)}),
	)
	if err != nil {
		t.Fatal(err)
	}
	a := mustLoad(t, reg, writeSpec(t, dir, "a.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 20, step = 1}\nreps = 1\n"))
	b := mustLoad(t, reg, writeSpec(t, dir, "b.toml", "kind = \"timing\"\n[params]\nbeta = {start = 1, stop = 5, step = 1}\nreps = 1\n"))
	if _, err := harness.Run(context.Background(), []*harness.Spec{b, a}, harness.RunOptions{Out: filepath.Join(dir, "out"), Jobs: 4}); err != nil {
		t.Fatal(err)
	}
	if violations > 0 {
		t.Errorf("%d times another job ran beside an exclusive one", violations)
	}
	if most < 2 {
		t.Logf("note: the ordinary jobs never overlapped (machine busy?)")
	}
}

// TestFinishLast: a spec of a kind that finishes last completes after
// every other spec of the run, even when its own jobs end first and it
// is listed first; the others keep completing as their jobs end.
func TestFinishLast(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var order []string
	finished := func(name string) func(*harness.Output) {
		return func(*harness.Output) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}
	}
	reg, err := harness.NewRegistry(
		testkind.New(&testkind.Hooks{OnFinish: finished("slow")}),
		testkind.New(&testkind.Hooks{KindName: "compare", Last: true, OnFinish: finished("compare")}),
		testkind.New(&testkind.Hooks{KindName: "quick", OnFinish: finished("quick")}),
	)
	if err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, reg, writeSpec(t, dir, "c.toml", "kind = \"compare\"\n[params]\nbeta = [1]\nreps = 1\n"))
	a := mustLoad(t, reg, writeSpec(t, dir, "a.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 6, step = 1}\nreps = 2\nsleep_ms = 30\n"))
	q := mustLoad(t, reg, writeSpec(t, dir, "q.toml", "kind = \"quick\"\n[params]\nbeta = [1]\nreps = 1\n"))
	if _, err := harness.Run(context.Background(), []*harness.Spec{c, a, q}, harness.RunOptions{Out: filepath.Join(dir, "out"), Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if len(order) != 3 || order[2] != "compare" {
		t.Errorf("finish order %v, want compare last", order)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "c", "manifest.json")); err != nil {
		t.Errorf("the last spec wrote no manifest: %v", err)
	}
}

// TestFailedRunLeavesNothing: a run whose only job fails before any
// result is stored removes the directories it created; one that stored
// jobs keeps them for the rerun.
func TestFailedRunLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	out := filepath.Join(dir, "out")
	spec := writeSpec(t, dir, "exp.toml", "kind = \"testkind\"\n[params]\nbeta = [1]\nreps = 1\nfail = \"beta=1/rep=0\"\n")
	if _, err := run(t, reg, spec, out, harness.RunOptions{Jobs: 1}); err == nil {
		t.Fatal("the failing job did not fail the run")
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run that stored nothing left %s behind (stat: %v)", out, err)
	}

	spec = writeSpec(t, dir, "exp2.toml", "kind = \"testkind\"\n[params]\nbeta = [1, 2]\nreps = 1\nfail = \"beta=2/rep=0\"\n")
	if _, err := run(t, reg, spec, out, harness.RunOptions{Jobs: 1}); err == nil {
		t.Fatal("the failing job did not fail the run")
	}
	stored, err := os.ReadDir(filepath.Join(out, "exp2", "jobs"))
	if err != nil || len(stored) != 1 {
		t.Errorf("the stored job of a failed run was not kept: %v, %v", stored, err)
	}
}

// syncBuffer is a bytes.Buffer safe for the run's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBudgetStopsTheRunNamingTheRunningJob: a spec whose job never ends
// stops at its budget as an interrupted run does (the finished jobs
// stored, no tables written) and the error names the job still running,
// for how long, and what it last reported.
func TestBudgetStopsTheRunNamingTheRunningJob(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	spec := writeSpec(t, dir, "exp.toml", `kind = "testkind"
name = "exp"
budget = "300ms"
[params]
beta = [0.5, 1]
reps = 2
draws = 5
hang = "beta=1/rep=1"
`)
	out := filepath.Join(dir, "out")
	start := time.Now()
	_, err := run(t, reg, spec, out, harness.RunOptions{Jobs: 1})
	if !errors.Is(err, harness.ErrBudget) || errors.Is(err, harness.ErrInterrupted) {
		t.Fatalf("error %v, want ErrBudget", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run took %v to stop after a budget of 300ms", d)
	}
	for _, want := range []string{spec, "budget 300ms", "still running: exp beta=1/rep=1 (", ": step ", "3 of 4 jobs stored"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	jobs, _ := os.ReadDir(filepath.Join(out, "exp", "jobs"))
	if len(jobs) != 3 {
		t.Errorf("%d jobs stored, want the 3 that finished", len(jobs))
	}
	for _, f := range []string{"draws.csv", "means.csv", "manifest.json", "section.md"} {
		if _, err := os.Stat(filepath.Join(out, "exp", f)); err == nil {
			t.Errorf("%s written for a spec whose budget ran out", f)
		}
	}
	// Without the budget the spec is refused by nothing and runs: the
	// budget is not part of the hash.
	a := mustLoad(t, reg, spec)
	b := mustLoad(t, reg, writeSpec(t, dir, "nobudget.toml", strings.Replace(string(a.Source), `budget = "300ms"`, "", 1)))
	if a.Hash != b.Hash || a.Budget != 300*time.Millisecond || b.Budget != 0 {
		t.Errorf("hashes %s, %s and budgets %v, %v: the budget must be parsed and left out of the hash", a.Hash, b.Hash, a.Budget, b.Budget)
	}
}

func TestBudgetRefusesWhatIsNotADuration(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	for _, v := range []string{`"20"`, `"-5m"`, `"0s"`, `"soon"`, `20`} {
		path := writeSpec(t, dir, "b.toml", "kind = \"testkind\"\nbudget = "+v+"\n")
		_, err := reg.Load(path)
		if err == nil || !strings.Contains(err.Error(), "budget") || strings.Contains(err.Error(), "\n") {
			t.Errorf("budget = %s: error %v, want one line naming budget", v, err)
		}
	}
}

// TestStopSaysWhatItWaitsFor: cancelling a run (Ctrl-C in the CLI)
// prints which running jobs it waits for, with what they last reported.
func TestStopSaysWhatItWaitsFor(t *testing.T) {
	dir := t.TempDir()
	started := make(chan struct{}, 1)
	reg := registry(t, &testkind.Hooks{OnRun: func(key string) {
		if key == "beta=0.5/rep=0" {
			started <- struct{}{}
		}
	}})
	spec := writeSpec(t, dir, "exp.toml", "kind = \"testkind\"\nname = \"exp\"\n[params]\nbeta = [0.5]\nreps = 1\nhang = \"beta=0.5/rep=0\"\n")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	var stopping syncBuffer
	_, err := harness.Run(ctx, []*harness.Spec{mustLoad(t, reg, spec)}, harness.RunOptions{Out: filepath.Join(dir, "out"), Jobs: 1, Stopping: &stopping})
	if !errors.Is(err, harness.ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if got := stopping.String(); !strings.Contains(got, "waiting for 1 running job(s)") || !strings.Contains(got, "exp beta=0.5/rep=0 (") || !strings.Contains(got, "step ") {
		t.Errorf("stop notice %q does not name the running job and its progress", got)
	}
}

// TestSummaryTable: --summary ends the run with a line per spec giving
// its jobs, wall time and peak memory.
func TestSummaryTable(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	spec := writeSpec(t, dir, "exp.toml", runSpec)
	var log syncBuffer
	mustRun(t, reg, spec, filepath.Join(dir, "out"), harness.RunOptions{Jobs: 2, Log: &log, Summary: true})
	lines := strings.Split(log.String(), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "spec ") })
	if i < 0 || i+1 >= len(lines) {
		t.Fatalf("no summary table in %q", log.String())
	}
	for _, h := range []string{"wall", "jobs (computed/reused)", "peak RSS"} {
		if !strings.Contains(lines[i], h) {
			t.Errorf("summary header %q lacks %q", lines[i], h)
		}
	}
	row := strings.Fields(lines[i+1])
	if len(row) < 4 || row[0] != spec || row[2] != "20/0" {
		t.Errorf("summary row %q, want %s, its wall time, 20/0 jobs and memory", lines[i+1], spec)
	}
	// A rerun reuses every job.
	log = syncBuffer{}
	mustRun(t, reg, spec, filepath.Join(dir, "out"), harness.RunOptions{Jobs: 2, Log: &log, Summary: true})
	if !strings.Contains(log.String(), " 0/20 ") {
		t.Errorf("rerun summary %q, want 0/20 jobs (all reused)", log.String())
	}
}
