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
// plus go.mod and go.sum) between that commit and HEAD. It caches what
// git and go list say, so HEAD must not move while it is in use.
type Provenance struct {
	// Root is the module's root directory (a git checkout).
	Root    string
	deps    map[string][]string    // kind package -> module-relative package dirs
	changed map[[2]string][]string // (commit, kind package) -> changed files
	code    map[string]bool        // commit -> whether anything outside results/ changed since
}

// NewProvenance returns a Provenance for the module at root.
func NewProvenance(root string) *Provenance {
	return &Provenance{Root: root, deps: map[string][]string{}, changed: map[[2]string][]string{}, code: map[string]bool{}}
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
	key := [2]string{commit, src.Package()}
	changed, ok := p.changed[key]
	if !ok {
		// Most results come from a commit whose code HEAD still has (only
		// results and notes changed since): one git diff tells, without
		// listing the module's packages.
		code, err := p.changedOutsideResults(ctx, commit)
		if err != nil {
			return warn, err
		}
		if !code {
			changed, ok = nil, true
		}
	}
	if !ok {
		dirs, err := p.packageDirs(ctx, src.Package())
		if err != nil {
			return warn, err
		}
		if changed, err = p.changedFiles(ctx, commit, dirs); err != nil {
			return warn, err
		}
		p.changed[key] = changed // results of one commit and kind share it
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
// module's packages it imports. The first call lists every package of the
// module with its dependencies in one go list (one call per kind took
// most of a report's time).
func (p *Provenance) packageDirs(ctx context.Context, pkg string) ([]string, error) {
	if len(p.deps) == 0 {
		if err := p.listModule(ctx); err != nil {
			return nil, err
		}
	}
	d, ok := p.deps[pkg]
	if !ok {
		return nil, fmt.Errorf("go list: package %s is not in the module at %s", pkg, p.Root)
	}
	return d, nil
}

// listModule fills deps for every package of the module.
func (p *Provenance) listModule(ctx context.Context) error {
	out, err := p.command(ctx, "go", "list", "-deps", "-f", "{{if and .Module .Module.Main}}{{.ImportPath}}|{{.Dir}}|{{join .Deps \" \"}}{{end}}", "./...")
	if err != nil {
		return err
	}
	dir := map[string]string{} // import path -> module-relative dir
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 {
			continue
		}
		rel, err := filepath.Rel(p.Root, f[1])
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		dir[f[0]] = filepath.ToSlash(rel)
		deps[f[0]] = strings.Fields(f[2])
	}
	p.deps = map[string][]string{}
	for pkg, ds := range deps {
		dirs := []string{dir[pkg]}
		for _, d := range ds {
			if r, ok := dir[d]; ok {
				dirs = append(dirs, r)
			}
		}
		p.deps[pkg] = dirs
	}
	return nil
}

// changedOutsideResults reports whether any file outside results/
// differs between commit and HEAD (cached per commit).
func (p *Provenance) changedOutsideResults(ctx context.Context, commit string) (bool, error) {
	if v, ok := p.code[commit]; ok {
		return v, nil
	}
	if _, err := p.command(ctx, "git", "cat-file", "-e", commit+"^{commit}"); err != nil {
		return false, fmt.Errorf("commit %s is not in this clone: cannot tell whether the code changed", short(commit))
	}
	out, err := p.command(ctx, "git", "diff", "--name-only", commit, "HEAD", "--", ":/", ":(top,exclude)results")
	if err != nil {
		return false, err
	}
	if p.code == nil {
		p.code = map[string]bool{}
	}
	p.code[commit] = strings.TrimSpace(out) != ""
	return p.code[commit], nil
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
