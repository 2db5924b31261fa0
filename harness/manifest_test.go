package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"privic/harness"
)

// TestGitDirtyIgnoresResults: a manifest's git_dirty says whether the code
// differs from the commit, not whether results/ does (a second ./run.sh in
// a clone whose results the first run rewrote made manifests marked dirty,
// and every result looked stale).
func TestGitDirtyIgnoresResults(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the manifest's commit cannot be tested")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("code.go", "package x\n")
	write("results/exp/table.csv", "a\n1\n")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	t.Chdir(filepath.Join(dir, "results")) // a run from a subdirectory too
	dirty := func() bool {
		t.Helper()
		e := harness.CurrentEnv(context.Background())
		if e.GitDirty == nil {
			t.Fatal("no git_dirty in a git work tree")
		}
		return *e.GitDirty
	}
	if dirty() {
		t.Error("a clean tree is dirty")
	}
	write("results/exp/table.csv", "a\n2\n")
	if dirty() {
		t.Error("a tree whose results changed is dirty")
	}
	write("code.go", "package x // changed\n")
	if !dirty() {
		t.Error("a tree whose code changed is clean")
	}
}
