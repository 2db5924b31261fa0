package harness

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Provenance tells whether committed results still come from the code at
// HEAD. A manifest records the commit a result was made at and whether
// the tree had uncommitted changes; Provenance compares, with git, the
// files of the packages that compute the result (the kind's package and
// every package of the module it imports, as `go list -deps` gives them,
// plus go.mod and go.sum) between that commit and HEAD.
type Provenance struct {
	// Root is the module's root directory (a git checkout).
	Root string
	deps map[string][]string // kind package -> module-relative package dirs
}

// NewProvenance returns a Provenance for the module at root.
func NewProvenance(root string) *Provenance {
	return &Provenance{Root: root, deps: map[string][]string{}}
}

// Stale returns warnings about the result in dir, computed by kind k: it
// came from a dirty tree, or code it depends on changed since its commit.
// No warning means the code is the same; an error means that it could not
// be told (no git, no manifest, a commit missing from the clone).
func (p *Provenance) Stale(ctx context.Context, dir string, k Kind) ([]string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	var warn []string
	commit := m.GitCommit
	if commit == "" || commit == "unknown" {
		return nil, fmt.Errorf("%s: the manifest records no git commit", dir)
	}
	if m.GitDirty != nil && *m.GitDirty {
		warn = append(warn, fmt.Sprintf("made at %s with uncommitted changes: the code that made it is not in any commit", short(commit)))
	}
	src, ok := k.(Sourced)
	if !ok || src.Package() == "" {
		return warn, fmt.Errorf("%s: kind %s does not name its package", dir, k.Name())
	}
	dirs, err := p.packageDirs(ctx, src.Package())
	if err != nil {
		return warn, err
	}
	changed, err := p.changedFiles(ctx, commit, dirs)
	if err != nil {
		return warn, err
	}
	if len(changed) > 0 {
		shown := changed
		if len(shown) > 6 {
			shown = append(slices.Clone(shown[:6]), fmt.Sprintf("and %d more", len(changed)-6))
		}
		warn = append(warn, fmt.Sprintf("made at %s; code it depends on changed since: %s", short(commit), strings.Join(shown, ", ")))
	}
	return warn, nil
}

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// packageDirs lists the module-relative directories of pkg and of the
// module's packages it imports.
func (p *Provenance) packageDirs(ctx context.Context, pkg string) ([]string, error) {
	if d, ok := p.deps[pkg]; ok {
		return d, nil
	}
	out, err := p.command(ctx, "go", "list", "-deps", "-f", "{{if and .Module .Module.Main}}{{.Dir}}{{end}}", pkg)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		rel, err := filepath.Rel(p.Root, line)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	p.deps[pkg] = dirs
	return dirs, nil
}

// changedFiles lists the files that differ between commit and HEAD in the
// given package directories (their own files; tests, test data and the
// package comments of doc.go excluded) and in
// go.mod and go.sum.
func (p *Provenance) changedFiles(ctx context.Context, commit string, dirs []string) ([]string, error) {
	if _, err := p.command(ctx, "git", "cat-file", "-e", commit+"^{commit}"); err != nil {
		return nil, fmt.Errorf("commit %s is not in this clone: cannot tell whether the code changed", short(commit))
	}
	args := append([]string{"diff", "--name-only", commit, "HEAD", "--", "go.mod", "go.sum"}, dirs...)
	out, err := p.command(ctx, "git", args...)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, d := range dirs {
		in[d] = true
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(out), "\n") {
		if f == "" || strings.HasSuffix(f, "_test.go") || path.Base(f) == "doc.go" || strings.Contains(f, "/testdata/") {
			continue
		}
		// A directory's own files only: its subdirectories are other
		// packages, listed by go list when they are dependencies.
		if f == "go.mod" || f == "go.sum" || in[path.Dir(f)] {
			files = append(files, f)
		}
	}
	return files, nil
}

func (p *Provenance) command(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.Root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s %s: %s", name, args[0], msg)
	}
	return stdout.String(), nil
}
