// Package report assembles the report of a results directory:
// REPORT.md, every experiment's section followed by the claims checked,
// the figures skipped and the run facts, and REPORT.html, the same as one
// page that opens offline in a browser (figures referenced relatively,
// tables as tables).
//
// It reads what the harness wrote: each experiment's Section
// (harness.ReadSection: section.md, claims.csv, skipped.csv) and its
// manifest.json. It knows no experiment by name; sections appear in the
// order of their kinds in the list it is given (the CLI passes the order
// in which the kinds are registered), then by experiment name.
package report

import (
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"privic/harness"
)

// Files of the report inside the results directory.
const (
	MarkdownFile = "REPORT.md"
	HTMLFile     = "REPORT.html"
)

//go:embed report.md.tmpl page.html.tmpl
var templates embed.FS

// experiment is what the report gathers from one results/<name>/.
type experiment struct {
	Name     string
	Section  harness.Section // links rewritten into the experiment's directory
	Manifest *harness.Manifest
	Problems []string // unreadable files, reported in the run facts
}

// Write assembles dir/REPORT.md and dir/REPORT.html from every experiment
// directory in dir (one holding a section or a manifest.json). kinds
// orders the sections: an experiment whose manifest names kinds[i] comes
// before one naming kinds[j] for i < j, and experiments of the same kind,
// or of a kind not listed, follow in name order. Both files are written
// atomically.
func Write(dir string, kinds []string) error {
	exps, err := gather(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rank := func(x *experiment) int {
		if x.Manifest != nil {
			if i := slices.Index(kinds, x.Manifest.Kind); i >= 0 {
				return i
			}
		}
		return len(kinds)
	}
	slices.SortStableFunc(exps, func(a, b *experiment) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Name, b.Name))
	})
	md, err := markdown(exps)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	page, err := html(md)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := harness.WriteFileAtomic(filepath.Join(dir, MarkdownFile), []byte(md)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := harness.WriteFileAtomic(filepath.Join(dir, HTMLFile), page); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// gather reads every experiment directory of dir.
func gather(dir string) ([]*experiment, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var exps []*experiment
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		x, err := read(filepath.Join(dir, e.Name()), e.Name())
		if err != nil {
			return nil, err
		}
		if x != nil {
			exps = append(exps, x)
		}
	}
	return exps, nil
}

// read reads one directory; it returns nil for directories that are not
// experiments (neither a section nor a manifest.json).
func read(dir, name string) (*experiment, error) {
	x := &experiment{Name: name}
	sec, found, err := harness.ReadSection(dir)
	if err != nil {
		x.Problems = append(x.Problems, oneLine(err.Error()))
	}
	sec.Markdown = rewriteLinks(sec.Markdown, name)
	x.Section = sec
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	switch {
	case err == nil:
		found = true
		var m harness.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			x.Problems = append(x.Problems, fmt.Sprintf("manifest.json unreadable: %v", err))
		} else {
			x.Manifest = &m
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s/manifest.json: %w", name, err)
	}
	if !found {
		return nil, nil
	}
	return x, nil
}

// linkRE matches the target of a Markdown link or image, "](target" up to
// whitespace or ')', and attrRE an HTML src/href attribute.
var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)`)
	attrRE = regexp.MustCompile(`(src|href)="([^"]+)"`)
)

// rewriteLinks makes a section's relative links relative to the results
// directory: "fig3a.png" in results/ba-vs-lap/section.md becomes
// "ba-vs-lap/fig3a.png". Absolute URLs, absolute paths and anchors stay.
func rewriteLinks(md, name string) string {
	fix := func(target string) string {
		if target == "" || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "/") ||
			strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			return target
		}
		return name + "/" + strings.TrimPrefix(target, "./")
	}
	md = linkRE.ReplaceAllStringFunc(md, func(m string) string {
		return "](" + fix(m[2:])
	})
	return attrRE.ReplaceAllStringFunc(md, func(m string) string {
		sub := attrRE.FindStringSubmatch(m)
		return sub[1] + `="` + fix(sub[2]) + `"`
	})
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
