package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"privic/harness"
	"privic/harness/kinds/smoke"
)

// The CLI tests run cli in-process, and as a child process (this test
// binary, selected by PRIVIC_CLI_HELPER) where signals are involved.

func TestMain(m *testing.M) {
	if os.Getenv("PRIVIC_CLI_HELPER") == "1" {
		os.Exit(realMain(strings.Split(os.Getenv("PRIVIC_CLI_ARGS"), "\x1f"), cliKinds()))
	}
	os.Exit(m.Run())
}

// stepsKind ("steps") runs n jobs that sleep and draw one number each.
type stepsKind struct{ describePanics bool }

type stepsParams struct {
	N       int   `toml:"n"`        // jobs, >= 1
	SleepMS int   `toml:"sleep_ms"` // per job
	Panic   int   `toml:"panic_at"` // job that panics (-1: none)
	Bytes   int64 `toml:"bytes"`    // memory estimate per job
}

func (p *stepsParams) Validate() error {
	if p.N < 1 {
		return fmt.Errorf("params.n = %d: n must be >= 1", p.N)
	}
	return nil
}

// step is one job: its index and how long it sleeps.
type step struct{ i, sleepMS int }

func (k stepsKind) About() harness.About {
	a := harness.About{Name: "steps", Describe: "sleeps and draws", Tables: []string{"draws", "total"}}
	if k.describePanics {
		a.Name = "steps-broken"
		a.Describe = func() string { panic("describe exploded") }()
	}
	return a
}
func (stepsKind) NewParams() *stepsParams {
	return &stepsParams{N: 6, Panic: -1}
}
func (stepsKind) Plan(p *stepsParams) ([]harness.Work[step], error) {
	var jobs []harness.Work[step]
	for i := range p.N {
		jobs = append(jobs, harness.Work[step]{Key: "step=" + strconv.Itoa(i), Job: step{i, p.SleepMS}})
	}
	return jobs, nil
}
func (stepsKind) EstimateBytes(j step) int64 { return int64(j.i+1) << 20 }
func (stepsKind) Run(ctx context.Context, j step, rng *rand.Rand) ([]harness.Table, error) {
	select {
	case <-time.After(time.Duration(j.sleepMS) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if j.i == 3 && os.Getenv("STEPS_PANIC") == "1" {
		panic("step 3 exploded")
	}
	t := harness.NewTable("draws", "step", "value")
	t.Add(harness.Row{"step": j.i, "value": rng.Float64()})
	return []harness.Table{*t}, nil
}
func (stepsKind) Finish(ctx context.Context, _ *stepsParams, out *harness.Output) (harness.Section, error) {
	t, err := out.ReadTable("draws")
	if err != nil {
		return harness.Section{}, err
	}
	total := harness.NewTable("total", "rows")
	total.Add(harness.Row{"rows": len(t.Rows)})
	return harness.Section{Markdown: "## steps\n"}, out.WriteTable(*total)
}

func steps(k stepsKind) harness.Kind { return harness.Typed[*stepsParams, step](k) }

func cliKinds() []harness.Kind {
	return []harness.Kind{steps(stepsKind{}), smoke.Kind()}
}

// runCLI runs cli in-process and returns status, stdout, stderr.
func runCLI(t *testing.T, kinds []harness.Kind, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	status := cli(context.Background(), args, &out, &errb, kinds)
	return status, out.String(), errb.String()
}

func write(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// csvs returns the CSV files under root (relative path -> content).
func csvs(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".csv") {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

func sameCSVs(t *testing.T, a, b map[string]string) {
	t.Helper()
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("table sets differ: %d vs %d files", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s differs", k)
		}
	}
}

func TestRunValidateListMergeSmoke(t *testing.T) {
	dir := t.TempDir()
	spec := write(t, filepath.Join(dir, "experiments", "smoke.toml"), "kind = \"smoke\"\nseed = 4\ndescription = \"pi\"\n[params]\nsamples = [100, 1000]\nreps = 3\n")
	kinds := cliKinds()

	status, stdout, stderr := runCLI(t, kinds, "validate", spec)
	if status != 0 || !strings.HasPrefix(stdout, spec+": ok: kind smoke, 6 jobs, largest job about 1 KiB -> results/smoke/") || stderr != "" {
		t.Fatalf("validate: %d %q %q", status, stdout, stderr)
	}
	status, stdout, _ = runCLI(t, kinds, "list", "--dir", filepath.Join(dir, "experiments"))
	if status != 0 || !strings.Contains(stdout, "smoke") || !strings.Contains(stdout, "writes estimates.csv, summary.csv, section.md") ||
		!strings.Contains(stdout, spec) || !strings.Contains(stdout, "6 jobs") {
		t.Fatalf("list:\n%s", stdout)
	}

	whole := filepath.Join(dir, "whole")
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	status, _, stderr = runCLI(t, kinds, "run", spec, "-j", "3", "--out", whole, "--cpuprofile", cpu, "--memprofile", mem)
	if status != 0 || !strings.Contains(stderr, "smoke: 6 jobs (6 computed, 0 reused)") {
		t.Fatalf("run: %d %q", status, stderr)
	}
	for _, p := range []string{cpu, mem} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("profile %s not written", p)
		}
	}
	if !strings.Contains(stderr, "go tool pprof") {
		t.Errorf("no pprof hint in %q", stderr)
	}
	status, _, stderr = runCLI(t, kinds, "run", "-q", "--out", whole, spec)
	if status != 0 || stderr != "" {
		t.Errorf("-q run printed %q (status %d)", stderr, status)
	}

	var shards []string
	for i := range 2 {
		sd := filepath.Join(dir, "shards", strconv.Itoa(i))
		shards = append(shards, sd)
		if status, _, stderr := runCLI(t, kinds, "run", "-q", "--shard", fmt.Sprintf("%d/2", i), "--out", sd, spec); status != 0 {
			t.Fatalf("shard %d: %s", i, stderr)
		}
	}
	merged := filepath.Join(dir, "merged")
	if status, _, stderr := runCLI(t, kinds, append([]string{"merge", "-q", "--out", merged}, shards...)...); status != 0 {
		t.Fatalf("merge: %s", stderr)
	}
	sameCSVs(t, csvs(t, whole), csvs(t, merged))
}

// TestErrorsAreOneLine: every failure is one line starting with
// "privic: ", no stack trace, the right status, and nothing written.
func TestErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	good := write(t, filepath.Join(dir, "steps.toml"), "kind = \"steps\"\n")
	cases := []struct {
		name   string
		body   string // spec written to x.toml ("" = use the good spec)
		args   []string
		status int
		want   string // stderr after "privic: ", with X for the spec path
		env    string
	}{
		{"unknown-kind", "kind = \"nope\"\n", []string{"run"}, 1, `X: kind = "nope": unknown kind (known kinds: smoke, steps)`, ""},
		{"syntax", "kind = \"steps\"\nn = = 2\n", []string{"run"}, 1, "X:2: syntax error:", ""},
		{"validation", "kind = \"steps\"\n[params]\nn = 0\n", []string{"run"}, 1, "X: params.n = 0: n must be >= 1", ""},
		{"validate-cmd", "kind = \"steps\"\n[params]\nn = -3\n", []string{"validate"}, 1, "X: params.n = -3: n must be >= 1", ""},
		{"unknown-key", "kind = \"steps\"\n[params]\nm = 1\n", []string{"run"}, 1, "X: unknown key params.m (allowed keys in [params]: n, sleep_ms, panic_at, bytes)", ""},
		{"memory", "kind = \"steps\"\n[params]\nn = 4\n", []string{"run", "--mem-limit", "3MiB"}, 1, "X: job step=3 needs about 4 MiB of memory, above the limit of 3 MiB", ""},
		{"memory-validate", "kind = \"steps\"\n[params]\nn = 4\n", []string{"validate", "--mem-limit", "2MiB"}, 1, "X: job step=2 needs about 3 MiB of memory, above the limit of 2 MiB", ""},
		{"job-panic", "kind = \"steps\"\n", []string{"run", "-j", "1"}, 1, "X: job step=3: panic: step 3 exploded", "STEPS_PANIC=1"},
		{"missing-file", "", []string{"run", filepath.Join(dir, "nope.toml")}, 1, filepath.Join(dir, "nope.toml") + ": cannot read spec: no such file or directory", ""},
		{"no-spec", "", []string{"run", "--out", "OUT"}, 2, "run: no spec given (see privic help run)", ""},
		{"bad-shard", "", []string{"run", "--shard", "2/2", good}, 2, `run: --shard: shard "2/2": want 0 <= i < n and n >= 1`, ""},
		{"bad-mem", "", []string{"run", "--mem-limit", "lots", good}, 2, `run: --mem-limit: size "lots"`, ""},
		{"bad-j", "", []string{"run", "-j", "0", good}, 2, "run: -j 0: want at least 1", ""},
		{"bad-flag", "", []string{"run", "--frob", good}, 2, "run: flag provided but not defined: -frob", ""},
		{"unknown-command", "", []string{"frob"}, 2, `unknown command "frob"`, ""},
		{"merge-nothing", "", []string{"merge", "--out", "OUT", dir}, 1, "merge: " + dir + " holds no experiment directories", ""},
		{"help-unknown", "", []string{"help", "frob"}, 1, `help: unknown command "frob"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				k, v, _ := strings.Cut(c.env, "=")
				t.Setenv(k, v)
			}
			out := filepath.Join(t.TempDir(), "results")
			args := slicesReplace(c.args, "OUT", out)
			spec := ""
			if c.body != "" {
				spec = write(t, filepath.Join(t.TempDir(), "x.toml"), c.body)
				if args[0] == "run" {
					args = append(args, "--out", out)
				}
				args = append(args, spec)
			}
			status, _, stderr := runCLI(t, cliKinds(), args...)
			want := "privic: " + strings.ReplaceAll(c.want, "X", spec)
			if status != c.status || !strings.HasPrefix(stderr, want) {
				t.Fatalf("status %d, stderr %q; want %d, %q", status, stderr, c.status, want)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || strings.Contains(stderr, "goroutine") {
				t.Fatalf("stderr is not one line: %q", stderr)
			}
			if c.name != "job-panic" {
				if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a rejected command wrote %s", out)
				}
			}
		})
	}
}

func slicesReplace(s []string, old, new string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		if v == old {
			v = new
		}
		out[i] = v
	}
	return out
}

func TestPanicOutsideJobsIsOneLine(t *testing.T) {
	status, _, stderr := runCLI(t, []harness.Kind{steps(stepsKind{describePanics: true})}, "list", "--dir", t.TempDir())
	if status != 1 || stderr != "privic: internal error: describe exploded\n" {
		t.Fatalf("status %d stderr %q", status, stderr)
	}
}

func TestHelp(t *testing.T) {
	status, stdout, _ := runCLI(t, nil, "help")
	for _, c := range commands() {
		if !strings.Contains(stdout, "  "+c.name+" ") {
			t.Errorf("help does not list %s", c.name)
		}
	}
	if status != 0 {
		t.Errorf("help status %d", status)
	}
	status, stdout, _ = runCLI(t, nil, "help", "run")
	for _, f := range []string{"-j N", "-q", "--out DIR", "--force", "--shard i/n", "--mem-limit SIZE", "--cpuprofile FILE", "--memprofile FILE"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("help run lacks %s", f)
		}
	}
	if status, stdout, _ := runCLI(t, nil, "run", "-h"); status != 0 || !strings.HasPrefix(stdout, "usage: privic run") {
		t.Errorf("run -h: %d %q", status, stdout)
	}
	if status, _, stderr := runCLI(t, nil); status != 2 || !strings.HasPrefix(stderr, "usage: privic") {
		t.Errorf("no arguments: %d %q", status, stderr)
	}
}

// TestInterruptAndResume sends SIGINT (Ctrl-C) and SIGTERM (what a
// cluster sends before pre-empting) to a running privic: it stops with
// status 130 and one line, and the rerun gives the uninterrupted bytes.
func TestInterruptAndResume(t *testing.T) {
	dir := t.TempDir()
	spec := write(t, filepath.Join(dir, "steps.toml"), "kind = \"steps\"\nseed = 9\n[params]\nn = 40\nsleep_ms = 15\n")
	want := filepath.Join(dir, "want")
	if status, _, stderr := runCLI(t, cliKinds(), "run", "-q", "--out", want, spec); status != 0 {
		t.Fatal(stderr)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, sig.String())
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "PRIVIC_CLI_HELPER=1", "PRIVIC_CLI_ARGS="+strings.Join([]string{"run", "-q", "-j", "2", "--out", out, spec}, "\x1f"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if e, _ := os.ReadDir(filepath.Join(out, "steps", "jobs")); len(e) >= 4 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("%v: exit %v, stderr %q", sig, err, stderr.String())
		}
		// One line says what stops the run, one (when a job is still
		// running) which jobs it waits for, and the last what is stored.
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		first, last := lines[0], lines[len(lines)-1]
		if !strings.HasPrefix(first, "privic: "+sig.String()+": stopping after the running jobs return") ||
			!strings.HasPrefix(last, "privic: interrupted: ") || !strings.HasSuffix(last, " of 40 jobs stored; run the same command again to resume") || len(lines) > 3 ||
			(len(lines) == 3 && !strings.HasPrefix(lines[1], "privic: stopping: waiting for ")) {
			t.Fatalf("%v: stderr %q", sig, stderr.String())
		}
		if status, _, stderr := runCLI(t, cliKinds(), "run", "-q", "--out", out, spec); status != 0 {
			t.Fatal(stderr)
		}
		sameCSVs(t, csvs(t, want), csvs(t, out))
	}
}

// TestSecondSignalAborts: the first signal cancels the run and says so,
// the second aborts at once.
func TestSecondSignalAborts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	var stderr bytes.Buffer
	cancelled, aborted := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		onSignals(sigs, func() { close(cancelled) }, &stderr, func() { close(aborted) })
		close(done)
	}()
	sigs <- syscall.SIGINT
	<-cancelled
	select {
	case <-aborted:
		t.Fatal("the first signal aborted")
	case <-time.After(20 * time.Millisecond):
	}
	sigs <- syscall.SIGTERM
	<-aborted
	<-done
	got := stderr.String()
	for _, want := range []string{"privic: interrupt: stopping after the running jobs return", "privic: terminated again: aborting now"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr %q lacks %q", got, want)
		}
	}
}

// TestCompareAndSpecsOf: list --specs-of names the spec behind every
// experiment of a results root; compare finds a fresh run of the same spec
// equal (exit 0) and a changed table different (exit 1, naming it).
func TestCompareAndSpecsOf(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "specs/steps.toml", "kind = \"steps\"\nseed = 4\n[params]\nn = 5\n")
	for _, out := range []string{"committed", "fresh"} {
		if status, _, stderr := runCLI(t, cliKinds(), "run", "-q", "--out", out, "specs/steps.toml"); status != 0 {
			t.Fatal(stderr)
		}
	}
	status, stdout, stderr := runCLI(t, cliKinds(), "list", "--specs-of", "committed")
	if status != 0 || stdout != "specs/steps.toml\n" {
		t.Fatalf("list --specs-of: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	status, stdout, stderr = runCLI(t, cliKinds(), "compare", "committed", "fresh")
	if status != 0 || !strings.Contains(stdout, "steps: ok: 2 tables") || !strings.Contains(stdout, "== 0 of 1 experiments differ") {
		t.Fatalf("compare of equal runs: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	draws := filepath.Join("fresh", "steps", "draws.csv")
	b, err := os.ReadFile(draws)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[2] = strings.Replace(lines[2], "0.", "1.", 1)
	write(t, draws, strings.Join(lines, "\n"))
	status, stdout, stderr = runCLI(t, cliKinds(), "compare", "committed", "fresh")
	if status != 1 || !strings.Contains(stdout, "steps: DIFFERS") || !strings.Contains(stdout, "differs: draws.csv: value: up to") || !strings.Contains(stderr, "1 of 1 experiments differ") {
		t.Fatalf("compare after a change: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	if status, _, stderr := runCLI(t, cliKinds(), "compare", "committed"); status != 2 || !strings.Contains(stderr, "want two directories") {
		t.Errorf("one directory: status %d, stderr %q", status, stderr)
	}
}

// TestReportOnly: report --only NAME... reports just those experiments,
// beside the full report, and refuses a name that is no experiment.
func TestReportOnly(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	kinds := cliKinds()
	for _, name := range []string{"first", "second"} {
		spec := write(t, filepath.Join(dir, "experiments", name+".toml"), "kind = \"smoke\"\nname = \""+name+"\"\nseed = 4\n[params]\nsamples = [100]\nreps = 2\n")
		if status, _, stderr := runCLI(t, kinds, "run", "-q", "--out", out, spec); status != 0 {
			t.Fatalf("run %s: %s", name, stderr)
		}
	}
	status, stdout, stderr := runCLI(t, kinds, "report", "--out", out, "--only", "second")
	if status != 0 || !strings.Contains(stdout, filepath.Join(out, "REPORT-only.md")) {
		t.Fatalf("report --only: %d %q %q", status, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "REPORT-only.md"))
	if err != nil {
		t.Fatal(err)
	}
	if md := string(b); !strings.Contains(md, "### second") || strings.Contains(md, "### first") || !strings.Contains(md, "## Contents") {
		t.Errorf("REPORT-only.md does not hold just the experiment asked for:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, "REPORT-only.html")); err != nil {
		t.Errorf("no REPORT-only.html: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "REPORT.md")); err == nil {
		t.Error("report --only wrote the full report's REPORT.md")
	}
	status, _, stderr = runCLI(t, kinds, "report", "--out", out, "--only", "second", "third")
	if status != 1 || !strings.Contains(stderr, `"third"`) || !strings.Contains(stderr, "first, second") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("report --only of an unknown experiment: %d %q", status, stderr)
	}
	for _, args := range [][]string{{"report", "--out", out, "--only"}, {"report", "--out", out, "second"}} {
		if status, _, stderr := runCLI(t, kinds, args...); status != 2 || !strings.Contains(stderr, "--only") {
			t.Errorf("%q: %d %q, want a usage error that mentions --only", args, status, stderr)
		}
	}
}
