package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"privic/harness"
)

// fakeKind is a Kind of package example.com/m/kinds/k, for Provenance.
type fakeKind struct{ harness.Kind }

func (fakeKind) Package() string { return "example.com/m/kinds/k" }
func (fakeKind) Name() string    { return "k" }

// TestProvenance builds a small module in a git repository (a kind's
// package importing a numerics package), records a result at the first
// commit, then changes code in and outside the kind's dependencies.
func TestProvenance(t *testing.T) {
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s on PATH: %v", tool, err)
		}
	}
	root := t.TempDir()
	sh := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v: %s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("num/num.go", "package num\n\nfunc F() int { return 1 }\n")
	write("other/other.go", "package other\n\nfunc G() int { return 2 }\n")
	write("kinds/k/k.go", "package k\n\nimport \"example.com/m/num\"\n\nvar X = num.F()\n")
	sh("git", "init", "-q")
	sh("git", "add", ".")
	sh("git", "commit", "-qm", "first")
	commit := sh("git", "rev-parse", "HEAD")
	res := filepath.Join(root, "results", "exp")
	manifest := func(dirty bool) {
		d := "false"
		if dirty {
			d = "true"
		}
		write("results/exp/manifest.json", `{"format": 1, "name": "exp", "kind": "k", "git_commit": "`+commit+`", "git_dirty": `+d+`}`)
	}
	stale := func() string {
		t.Helper()
		// A Provenance per check: it caches per commit, with HEAD fixed.
		w, err := harness.NewProvenance(root).Stale(context.Background(), res, fakeKind{})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(w, "\n")
	}
	manifest(false)
	if w := stale(); w != "" {
		t.Errorf("same code: warnings %q", w)
	}
	manifest(true)
	if w := stale(); !strings.Contains(w, "uncommitted changes") {
		t.Errorf("dirty tree: warnings %q", w)
	}
	manifest(false)
	// Results committed after the code (as ./run.sh all does): current,
	// told by git alone, without go list (no go on PATH).
	write("results/exp/table.csv", "a\n1\n")
	sh("git", "add", ".")
	sh("git", "commit", "-qm", "results")
	gitOnly := t.TempDir()
	gitPath, _ := exec.LookPath("git")
	if err := os.Symlink(gitPath, filepath.Join(gitOnly, "git")); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", gitOnly)
	if w := stale(); w != "" {
		t.Errorf("results committed since: warnings %q", w)
	}
	t.Setenv("PATH", path)
	// Outside the dependencies, tests and doc.go: still current.
	write("other/other.go", "package other\n\nfunc G() int { return 3 }\n")
	write("num/num_test.go", "package num\n")
	write("num/doc.go", "// Package num.\npackage num\n")
	sh("git", "add", ".")
	sh("git", "commit", "-qm", "elsewhere")
	if w := stale(); w != "" {
		t.Errorf("change outside the dependencies: warnings %q", w)
	}
	write("num/num.go", "package num\n\nfunc F() int { return 4 }\n")
	sh("git", "commit", "-qam", "numerics")
	if w := stale(); !strings.Contains(w, "num/num.go") || strings.Contains(w, "other.go") || strings.Contains(w, "doc.go") {
		t.Errorf("numerics changed: warnings %q, want num/num.go only", w)
	}
	write("results/exp/manifest.json", `{"format": 1, "name": "exp", "kind": "k", "git_commit": "0123456789abcdef0123456789abcdef01234567"}`)
	if _, err := harness.NewProvenance(root).Stale(context.Background(), res, fakeKind{}); err == nil || !strings.Contains(err.Error(), "not in this clone") {
		t.Errorf("unknown commit: error %v", err)
	}
}
