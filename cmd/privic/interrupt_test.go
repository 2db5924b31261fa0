package main

import (
	"bytes"
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
