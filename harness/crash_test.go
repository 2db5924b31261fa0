package harness_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"privic/harness"
	"privic/harness/internal/testkind"
)

// The crash tests run part of a run in a child process (this test binary
// again, selected by PRIVIC_HELPER) and kill it, as a power user's
// kill -9 or an OOM killer would, then rerun in this process and compare
// with an uninterrupted run.

const crashSpec = `kind = "testkind"
name = "exp"
seed = 5
[params]
beta = {start = 1, stop = 12, step = 1}
reps = 3
draws = 40
`

// crashReference writes the crash tests' spec into a fresh directory and
// runs it there uninterrupted, into dir/want.
func crashReference(t *testing.T) (dir, spec, want string) {
	t.Helper()
	dir = t.TempDir()
	spec = writeSpec(t, dir, "exp.toml", crashSpec)
	want = filepath.Join(dir, "want")
	mustRun(t, registry(t, nil), spec, want, harness.RunOptions{})
	return dir, spec, want
}

// TestHelperProcess is the child: it is not a test on its own.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("PRIVIC_HELPER")
	if mode == "" {
		return // not a test on its own: helper runs it as a child
	}
	spec, out := os.Getenv("PRIVIC_HELPER_SPEC"), os.Getenv("PRIVIC_HELPER_OUT")
	k := &testkind.Hooks{}
	switch mode {
	case "slow-jobs":
		// Slow enough for the parent to kill the run between two jobs or
		// in the middle of one.
		k.OnRun = func(string) { time.Sleep(15 * time.Millisecond) }
	case "die-mid-write":
		// Die while a file is half written: Finish writes through the
		// Output, the write function kills the process after half.
		k.OnFinish = func(out *harness.Output) {
			out.Create("half.txt", func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("partial ", 1000))
				if f, ok := w.(interface{ Flush() error }); ok {
					f.Flush()
				}
				p, _ := os.FindProcess(os.Getpid())
				p.Kill()
				time.Sleep(time.Minute)
				return nil
			})
		}
	}
	reg, _ := harness.NewRegistry(testkind.New(k))
	s, err := reg.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Run(context.Background(), []*harness.Spec{s}, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	t.Fatal("the run should have been killed")
}

func helper(t *testing.T, mode, spec, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "PRIVIC_HELPER="+mode, "PRIVIC_HELPER_SPEC="+spec, "PRIVIC_HELPER_OUT="+out)
	return cmd
}

func countJobs(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, "exp", "jobs"))
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			n++
		}
	}
	return n
}

// TestResumeAfterKill kills runs with SIGKILL at several points (after
// a few jobs, after many) and checks the rerun ends byte-identical to an
// uninterrupted run, computing only the missing jobs.
func TestResumeAfterKill(t *testing.T) {
	dir, spec, want := crashReference(t)
	for _, killAt := range []int{1, 7, 20} {
		out := filepath.Join(dir, "killed", string(rune('a'+killAt)))
		cmd := helper(t, "slow-jobs", spec, out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for countJobs(out) < killAt && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Kill()
		err := cmd.Wait()
		stored := countJobs(out)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || stored >= 36 {
			t.Fatalf("kill at %d: child was not killed mid-run (%v, %d jobs stored)", killAt, err, stored)
		}
		var ran atomic.Int64
		reg := registry(t, &testkind.Hooks{OnRun: func(string) { ran.Add(1) }})
		mustRun(t, reg, spec, out, harness.RunOptions{})
		if got := int(ran.Load()); got != 36-stored {
			t.Errorf("kill at %d: rerun computed %d jobs, %d were missing", killAt, got, 36-stored)
		}
		sameTree(t, tree(t, want), tree(t, out))
	}
}

// TestResumeAfterDeathMidWrite: a process dying in the middle of writing
// a file leaves only a temporary file, never a partial result; the rerun
// removes it and ends identical to an uninterrupted run.
func TestResumeAfterDeathMidWrite(t *testing.T) {
	dir, spec, want := crashReference(t)
	out := filepath.Join(dir, "out")
	if err := helper(t, "die-mid-write", spec, out).Run(); err == nil {
		t.Fatal("helper survived")
	}
	if _, err := os.Stat(filepath.Join(out, "exp", "half.txt")); err == nil {
		t.Fatal("a half-written file is visible under its final name")
	}
	temps, _ := filepath.Glob(filepath.Join(out, "exp", ".tmp-half.txt-*"))
	if len(temps) != 1 {
		t.Fatalf("expected the dead writer's temporary file, found %v", temps)
	}
	if b, _ := os.ReadFile(temps[0]); len(b) == 0 {
		t.Fatal("the temporary file is empty: the child died before writing")
	}
	mustRun(t, registry(t, nil), spec, out, harness.RunOptions{})
	sameTree(t, tree(t, want), tree(t, out)) // also fails on any temporary file left
}

// TestInterruptResumes cancels the context part-way (what Ctrl-C does in
// the CLI): ErrInterrupted, finished jobs stored, rerun identical.
func TestInterruptResumes(t *testing.T) {
	dir, spec, want := crashReference(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	reg := registry(t, &testkind.Hooks{OnRun: func(string) {
		if n.Add(1) == 10 {
			cancel()
		}
	}})
	out := filepath.Join(dir, "out")
	s := mustLoad(t, reg, spec)
	_, err := harness.Run(ctx, []*harness.Spec{s}, harness.RunOptions{Out: out, Jobs: 2})
	if !errors.Is(err, harness.ErrInterrupted) || !strings.Contains(err.Error(), "of 36 jobs stored; run the same command again to resume") {
		t.Fatalf("error %v", err)
	}
	if c := countJobs(out); c == 0 || c >= 36 {
		t.Fatalf("%d jobs stored after the interrupt", c)
	}
	if _, err := os.Stat(filepath.Join(out, "exp", "means.csv")); err == nil {
		t.Error("merged tables written by an interrupted run")
	}
	mustRun(t, registry(t, nil), spec, out, harness.RunOptions{})
	sameTree(t, tree(t, want), tree(t, out))
}

// TestDamagedRecordIsRecomputed: a record that does not decode (a power
// cut can leave one empty or truncated) is recomputed, not trusted.
func TestDamagedRecordIsRecomputed(t *testing.T) {
	_, spec, out := crashReference(t)
	want := tree(t, out)
	files, _ := filepath.Glob(filepath.Join(out, "exp", "jobs", "*.json"))
	b, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], b[:len(b)/2], 0o644)
	os.WriteFile(files[1], nil, 0o644)
	os.WriteFile(files[2], []byte(strings.Replace(string(b), `"format":1`, `"format":1,"extra":2`, 1)), 0o644)
	var ran atomic.Int64
	mustRun(t, registry(t, &testkind.Hooks{OnRun: func(string) { ran.Add(1) }}), spec, out, harness.RunOptions{})
	if ran.Load() != 3 {
		t.Errorf("%d jobs recomputed, 3 records were damaged", ran.Load())
	}
	sameTree(t, want, tree(t, out))
}
