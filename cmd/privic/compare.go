package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"privic/harness"
	"privic/harness/kinds"
)

// cmdCompare compares the committed results under one directory with a
// fresh run of the same specs under another, experiment by experiment and
// column by column (harness.Compare), and warns about committed results
// whose code changed since they were made (harness.Provenance).
func cmdCompare(ctx context.Context, e *env, args []string) error {
	flags := newFlagSet("compare")
	tol := flags.Float64("tol", harness.DefaultTolerance, "largest relative difference `REL` of two numbers taken as equal")
	ops, err := parseArgs(flags, args)
	if err != nil {
		return err
	}
	if len(ops) != 2 {
		return usagef("want two directories, COMMITTED and FRESH, got %d arguments", len(ops))
	}
	if !(*tol >= 0 && *tol < 1) {
		return usagef("--tol %v: want a relative tolerance in [0, 1)", *tol)
	}
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return err
	}
	committed, fresh := ops[0], ops[1]
	names, err := experimentDirs(fresh)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: no experiment directories (with a manifest.json) to compare", fresh)
	}
	old, err := experimentDirs(committed)
	if err != nil {
		return err
	}
	prov := provenance(ctx)
	opt := harness.CompareOptions{Tolerance: *tol, Kinds: reg.Lookup, Uncommitted: gitIgnored(ctx)}
	fmt.Fprintf(e.stdout, "== compare %s (committed) with %s (fresh), relative tolerance %g\n", committed, fresh, *tol)
	differ, stale := 0, 0
	for _, name := range names {
		c, err := harness.Compare(filepath.Join(committed, name), filepath.Join(fresh, name), opt)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || !slices.Contains(old, name) {
				fmt.Fprintf(e.stdout, "%s: DIFFERS: not committed\n", name)
				differ++
				continue
			}
			return err
		}
		status := "ok"
		if !c.OK() {
			status = "DIFFERS"
			differ++
		}
		within := ""
		if c.Within > 0 {
			within = fmt.Sprintf(", %d of them equal within the tolerance only", c.Within)
		}
		fmt.Fprintf(e.stdout, "%s: %s: %d tables, %d cells compared%s\n", name, status, c.Tables, c.Cells, within)
		for _, d := range c.Diffs {
			fmt.Fprintf(e.stdout, "  differs: %s: %s\n", d.Table, d.What)
		}
		for _, x := range c.Excluded {
			fmt.Fprintf(e.stdout, "  left out: %s\n", x)
		}
		if warn := staleness(ctx, prov, reg, filepath.Join(committed, name)); len(warn) > 0 {
			stale++
			for _, w := range warn {
				fmt.Fprintf(e.stdout, "  stale: %s\n", w)
			}
		}
	}
	for _, name := range old {
		if !slices.Contains(names, name) {
			fmt.Fprintf(e.stdout, "%s: not compared: no fresh run of it in %s\n", name, fresh)
		}
	}
	fmt.Fprintf(e.stdout, "== %d of %d experiments differ beyond the tolerance; %d committed results carry a staleness warning\n", differ, len(names), stale)
	if differ > 0 {
		return fmt.Errorf("compare: %d of %d experiments differ from the committed results (see above)", differ, len(names))
	}
	return nil
}

// experimentDirs lists the subdirectories of root that hold a manifest.
func experimentDirs(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var names []string
	for _, en := range entries {
		if en.IsDir() {
			if _, err := os.Stat(filepath.Join(root, en.Name(), "manifest.json")); err == nil {
				names = append(names, en.Name())
			}
		}
	}
	return names, nil
}

// provenance returns a Provenance for the git checkout holding the
// working directory, or nil outside one.
func provenance(ctx context.Context) *harness.Provenance {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil
	}
	return harness.NewProvenance(strings.TrimSpace(string(out)))
}

// gitIgnored tells, with git check-ignore, whether a path is never
// committed (nil outside a git checkout).
func gitIgnored(ctx context.Context) func(path string) bool {
	if exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Run() != nil {
		return nil
	}
	return func(path string) bool {
		return exec.CommandContext(ctx, "git", "check-ignore", "-q", path).Run() == nil
	}
}

// staleness is the warnings of prov about the experiment in dir; when they
// cannot be told, one warning says why.
func staleness(ctx context.Context, prov *harness.Provenance, reg *harness.Registry, dir string) []string {
	if prov == nil {
		return []string{"cannot tell whether the code changed: not in a git checkout"}
	}
	m, err := harness.ReadManifest(dir)
	if err != nil {
		return []string{err.Error()}
	}
	k, err := reg.Lookup(m.Kind)
	if err != nil {
		return []string{fmt.Sprintf("kind %s: %v", m.Kind, err)}
	}
	warn, err := prov.Stale(ctx, dir, k)
	if err != nil {
		warn = append(warn, "cannot tell whether the code changed: "+err.Error())
	}
	return warn
}

// specsOf prints the spec file recorded by every experiment's manifest
// under root, one per line, in the order of the directory names, so that
// `./run.sh all` reruns exactly what results/ holds.
func specsOf(e *env, root string) error {
	names, err := experimentDirs(root)
	if err != nil {
		return err
	}
	for _, name := range names {
		m, err := harness.ReadManifest(filepath.Join(root, name))
		if err != nil {
			return err
		}
		if _, err := os.Stat(m.SpecFile); err != nil {
			return fmt.Errorf("%s: its manifest names spec %s, which %s", filepath.Join(root, name), strconv.Quote(m.SpecFile), "does not exist here (run from the repository's root)")
		}
		fmt.Fprintln(e.stdout, m.SpecFile)
	}
	return nil
}
