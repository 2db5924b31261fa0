package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The reliability tests run the CLI as a child process: the test binary
// itself, re-executed with reliabilityChildEnv set, becomes `privic`
// (TestReliabilityChild calls main). So the real exit status, the real
// stderr and the real signal handling are observed (a panic in a job
// goroutine would kill the process and show a stack trace, which an
// in-process call could not report), and no separate `go build` is needed.
const reliabilityChildEnv = "PRIVIC_RELIABILITY_CHILD"

// TestReliabilityChild is not a test: it is the child's entry point,
// running main() exactly as the binary does.
func TestReliabilityChild(t *testing.T) {
	if os.Getenv(reliabilityChildEnv) == "" {
		return // not a test on its own: childCmd runs it as a child
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	} else {
		args = nil
	}
	os.Args = append([]string{"privic"}, args...)
	main()
	os.Exit(0) // main returned without exiting: success, as for the binary
}

// childCmd returns the command running privic with args in dir.
func childCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^TestReliabilityChild$", "-test.count=1", "--"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), reliabilityChildEnv+"=1")
	return cmd
}

// runChild runs privic to completion and returns its exit status, stdout
// and stderr.
func runChild(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := childCmd(t, dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("run privic %q: %v", args, err)
	return 0, "", ""
}

// treeState maps every path under root (relative) to its type, mode and
// content hash; a missing root gives an empty map.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			desc += " " + hex.EncodeToString(sum[:])
		}
		state[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func diffStates(before, after map[string]string) []string {
	var d []string
	for p, s := range after {
		if b, ok := before[p]; !ok {
			d = append(d, "created "+p)
		} else if b != s {
			d = append(d, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			d = append(d, "removed "+p)
		}
	}
	slices.Sort(d)
	return d
}

// badSpec is one file of harness/testdata/bad: its first line is
// "# want: <substring of the error>", an optional second line
// "# flags: <extra privic run flags>".
type badSpec struct {
	path, want string
	flags      []string
}

func readBadSpecs(t *testing.T, dir string) []badSpec {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var specs []badSpec
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		var s badSpec
		s.path = f
		if sc.Scan() {
			s.want, _ = strings.CutPrefix(sc.Text(), "# want: ")
		}
		if sc.Scan() {
			if fl, ok := strings.CutPrefix(sc.Text(), "# flags: "); ok {
				s.flags = strings.Fields(fl)
			}
		}
		fh.Close()
		if s.want == "" || strings.HasPrefix(s.want, "#") {
			t.Fatalf("%s: first line must be \"# want: <substring of the error>\"", f)
		}
		specs = append(specs, s)
	}
	return specs
}

// checkRefusal asserts what every refusal of bad input must satisfy.
func checkRefusal(t *testing.T, status int, stdout, stderr string, wants ...string) {
	t.Helper()
	if status == 0 {
		t.Fatalf("exit status 0; stdout %q, stderr %q", stdout, stderr)
	}
	if status == 130 || status < 0 {
		t.Fatalf("exit status %d (interrupted or killed)", status)
	}
	for _, bad := range []string{"goroutine ", "panic", "runtime error", ".go:"} {
		if strings.Contains(stderr, bad) {
			t.Fatalf("stderr shows a crash (%q):\n%s", bad, stderr)
		}
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || strings.ContainsRune(stderr, '\r') {
		t.Fatalf("stderr is not exactly one line:\n%s", stderr)
	}
	for _, w := range wants {
		if !strings.Contains(stderr, w) {
			t.Fatalf("stderr %q lacks %q", strings.TrimSpace(stderr), w)
		}
	}
}

// TestBadInputCorpus runs `privic run --out <tmp>/results SPEC` on every
// spec of harness/testdata/bad: each must fail with one line on stderr
// naming the file and the offending key, no stack trace, and leave the
// working directory untouched (results/ not even created).
func TestBadInputCorpus(t *testing.T) {
	specs := readBadSpecs(t, filepath.Join("..", "..", "harness", "testdata", "bad"))
	if len(specs) < 25 {
		t.Fatalf("only %d bad specs; the corpus needs at least 25", len(specs))
	}
	for _, s := range specs {
		t.Run(strings.TrimSuffix(filepath.Base(s.path), ".toml"), func(t *testing.T) {
			t.Parallel()
			abs, err := filepath.Abs(s.path)
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			out := filepath.Join(work, "results")
			before := treeState(t, work)
			args := append([]string{"run", "--out", out}, s.flags...)
			status, stdout, stderr := runChild(t, work, append(args, abs)...)
			checkRefusal(t, status, stdout, stderr, abs, s.want)
			t.Log(strings.TrimSpace(strings.ReplaceAll(stderr, abs, filepath.Base(abs))))
			if d := diffStates(before, treeState(t, work)); len(d) > 0 {
				t.Fatalf("the refused run changed the working directory: %v", d)
			}
			// validate must refuse it the same way (exit 1, same line).
			vstatus, vout, verr := runChild(t, work, append(append([]string{"validate"}, s.flags...), abs)...)
			checkRefusal(t, vstatus, vout, verr, abs, s.want)
			if verr != stderr {
				t.Errorf("validate and run disagree:\n  run:      %s  validate: %s", stderr, verr)
			}
		})
	}
}

// TestBadInvocations: refusals that are not in a spec file (a missing or
// unreadable spec, two specs claiming one output directory, bad flags)
// follow the same rules.
func TestBadInvocations(t *testing.T) {
	work := t.TempDir()
	good := filepath.Join(work, "specs", "good.toml")
	twin := filepath.Join(work, "specs", "twin.toml")
	if err := os.MkdirAll(filepath.Dir(good), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "kind = \"smoke\"\nname = \"same\"\n[params]\nsamples = [10]\nreps = 2\n"
	for _, p := range []string{good, twin} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(work, "results")
	missing := filepath.Join(work, "specs", "missing.toml")
	notDir := filepath.Join(work, "specs", "not-a-dir")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"missing-spec", []string{"run", "--out", out, missing}, []string{missing, "cannot read spec"}},
		{"spec-is-dir", []string{"run", "--out", out, filepath.Dir(good)}, []string{filepath.Dir(good), "directory"}},
		{"same-name", []string{"run", "--out", out, good, twin}, []string{twin, `"same"`, good}},
		{"jobs-zero", []string{"run", "--out", out, "-j", "0", good}, []string{"-j 0"}},
		{"mem-limit-garbage", []string{"run", "--out", out, "--mem-limit", "lots", good}, []string{"--mem-limit"}},
		{"shard-out-of-range", []string{"run", "--out", out, "--shard", "2/2", good}, []string{"--shard"}},
		{"unknown-flag", []string{"run", "--out", out, "--frobnicate", good}, []string{"frobnicate"}},
		{"no-spec", []string{"run", "--out", out}, []string{"no spec"}},
		{"out-is-a-file", []string{"run", "--out", notDir, good}, []string{good, "not a directory"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := treeState(t, work)
			status, stdout, stderr := runChild(t, work, c.args...)
			checkRefusal(t, status, stdout, stderr, c.wants...)
			if d := diffStates(before, treeState(t, work)); len(d) > 0 {
				t.Fatalf("the refused run changed the working directory: %v", d)
			}
		})
	}
}

// interruptSpec is a smoke run of 48 jobs (5e5 to 2e6 random points
// each), about half a second of work at -j 2: long enough to be interrupted
// between its first and last stored job.
const interruptSpec = `kind = "smoke"
name = "interrupt"
seed = 11
[params]
samples = [500000, 1000000, 2000000]
reps = 16
`

const interruptJobs = 48

// storedJobs counts the complete job records of the run in out.
func storedJobs(out string) int {
	entries, _ := os.ReadDir(filepath.Join(out, "interrupt", "jobs"))
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// tempFiles lists files under root that look temporary or partial.
func tempFiles(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n := d.Name()
		if strings.HasPrefix(n, ".tmp") || strings.HasSuffix(n, ".tmp") || strings.Contains(n, ".tmp-") || strings.HasSuffix(n, "~") {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// resultFiles reads every file of the experiment directory except what
// legitimately differs between runs: manifest.json and the job records
// (both hold timings) and the lock file.
func resultFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(out, "interrupt")
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel == "jobs" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "manifest.json" || rel == ".lock" {
			return nil
		}
		b, err := os.ReadFile(path)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// interruptRun starts privic on spec, waits until at least two jobs are
// stored, sends sig and returns the exit status and stderr. It fails the
// test if the run finished before it could be interrupted.
func interruptRun(t *testing.T, work, out, spec string, sig syscall.Signal) (int, string) {
	t.Helper()
	cmd := childCmd(t, work, "run", "-j", "2", "--out", out, spec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case err := <-done:
			t.Fatalf("the run ended (%v) before it could be interrupted; stored %d of %d jobs; stderr:\n%s", err, storedJobs(out), interruptJobs, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("no job stored after 60 s; stderr:\n%s", stderr.String())
		case <-tick.C:
			if storedJobs(out) >= 2 {
				break wait
			}
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

type manifestCounts struct {
	JobsComputed int `json:"jobs_computed"`
	JobsReused   int `json:"jobs_reused"`
}

func readCounts(t *testing.T, out string) manifestCounts {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "interrupt", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifestCounts
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInterruptionLosesNothing kills a run part-way with SIGINT (graceful:
// exit 130, finished jobs stored) and another with SIGKILL (no chance to
// clean up), reruns each to completion, and requires the results to be
// byte-identical to an uninterrupted run, with the stored jobs reused and
// no temporary or partial file left behind.
func TestInterruptionLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs privic three times (a few seconds); skipped in -short mode")
	}
	work := t.TempDir()
	spec := filepath.Join(work, "interrupt.toml")
	if err := os.WriteFile(spec, []byte(interruptSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	refOut := filepath.Join(work, "ref")
	if status, _, stderr := runChild(t, work, "run", "-q", "-j", "2", "--out", refOut, spec); status != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", status, stderr)
	}
	ref := resultFiles(t, refOut)
	if len(ref) < 3 || ref["estimates.csv"] == nil || ref["summary.csv"] == nil || ref["section.md"] == nil {
		t.Fatalf("uninterrupted run wrote %d files: %v", len(ref), slices.Sorted(func(yield func(string) bool) {
			for k := range ref {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if n := bytes.Count(ref["estimates.csv"], []byte("\n")); n != interruptJobs+1 {
		t.Fatalf("estimates.csv has %d lines, want %d", n, interruptJobs+1)
	}

	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{{"SIGINT", syscall.SIGINT}, {"SIGKILL", syscall.SIGKILL}} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(work, strings.ToLower(c.name))
			status, stderr := interruptRun(t, work, out, spec, c.sig)
			stored := storedJobs(out)
			switch c.sig {
			case syscall.SIGINT:
				if status != 130 || !strings.Contains(stderr, "interrupted") {
					t.Fatalf("after SIGINT: exit %d, stderr:\n%s", status, stderr)
				}
				// A graceful stop cleans up after itself at once.
				if tmp := tempFiles(t, out); len(tmp) > 0 {
					t.Fatalf("temporary files left by the interrupted run: %v", tmp)
				}
			case syscall.SIGKILL:
				if status != -1 {
					t.Fatalf("after SIGKILL: exit %d", status)
				}
			}
			if _, err := os.Stat(filepath.Join(out, "interrupt", "manifest.json")); err == nil {
				t.Fatalf("the interrupted run wrote a manifest, as if it had finished")
			}
			if stored < 2 || stored >= interruptJobs {
				t.Fatalf("%d of %d jobs stored at the interruption", stored, interruptJobs)
			}
			if rs, _, rerr := runChild(t, work, "run", "-q", "-j", "2", "--out", out, spec); rs != 0 {
				t.Fatalf("rerun: exit %d: %s", rs, rerr)
			}
			if tmp := tempFiles(t, out); len(tmp) > 0 {
				t.Fatalf("temporary files left after the rerun: %v", tmp)
			}
			got := resultFiles(t, out)
			for name, want := range ref {
				if g, ok := got[name]; !ok {
					t.Errorf("%s missing after the rerun", name)
				} else if !bytes.Equal(g, want) {
					t.Errorf("%s differs from the uninterrupted run", name)
				}
			}
			for name := range got {
				if _, ok := ref[name]; !ok {
					t.Errorf("%s exists only after the interrupted run", name)
				}
			}
			m := readCounts(t, out)
			if m.JobsReused < stored || m.JobsReused+m.JobsComputed != interruptJobs {
				t.Errorf("rerun reused %d and computed %d jobs; %d were stored before it", m.JobsReused, m.JobsComputed, stored)
			}
		})
	}
}
