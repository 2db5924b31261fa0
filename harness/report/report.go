// Package report assembles the report of a results directory:
// REPORT.md, a table of contents, then every experiment's section under
// its part (the paper's reproduction, extensions, examples, studies),
// followed by the claims checked, the figures skipped and the run facts,
// and REPORT.html, the same as one page that opens offline in a browser
// (figures referenced relatively, tables as tables, the same anchors).
//
// It reads what the harness wrote: each experiment's Section
// (harness.ReadSection: section.md, claims.csv, skipped.csv) and its
// manifest.json. It knows no experiment by name: an experiment's part
// follows from the directory of its spec file (manifest.json's
// spec_file), and within a part sections appear in the order of their
// kinds in the list it is given (the CLI passes the order in which the
// kinds are registered), then by experiment name.
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

// Options choose what a report shows, in what order, and where it goes.
type Options struct {
	// Kinds orders the experiments within a part: one whose manifest
	// names Kinds[i] comes before one naming Kinds[j] for i < j, and
	// experiments of the same kind, or of a kind not listed, follow in
	// name order.
	Kinds []string
	// Parts are the report's parts, in order (nil: DefaultParts); each
	// experiment goes to the part of its spec file's directory, and those
	// of no part to a last one, "Other experiments".
	Parts []Part
	// Only, when not empty, keeps just the experiments of these names;
	// a name that is not an experiment of the directory is an error.
	Only []string
	// Markdown and HTML are the files written in the directory (empty:
	// MarkdownFile and HTMLFile).
	Markdown, HTML string
}

// Write assembles dir/REPORT.md and dir/REPORT.html from every experiment
// directory in dir (one holding a section or a manifest.json), in the
// default parts, the experiments of each ordered by kinds (see Options).
func Write(dir string, kinds []string) error {
	return WriteWith(dir, Options{Kinds: kinds})
}

// WriteWith assembles the report of the experiments in dir as opt says.
// It opens with a table of contents, then every part with its
// experiments, each under a heading that names the experiment, its
// datasets and what its section shows; then the claims, the skipped
// figures and the run facts. Both files are written atomically.
func WriteWith(dir string, opt Options) error {
	exps, err := gather(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if exps, err = only(exps, opt.Only, dir); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if opt.Parts == nil {
		opt.Parts = DefaultParts()
	}
	rank := func(x *experiment) int {
		if x.Manifest != nil {
			if i := slices.Index(opt.Kinds, x.Manifest.Kind); i >= 0 {
				return i
			}
		}
		return len(opt.Kinds)
	}
	part := func(x *experiment) int {
		if x.Manifest == nil {
			return len(opt.Parts)
		}
		if i := partOf(opt.Parts, x.Manifest.SpecFile); i >= 0 {
			return i
		}
		return len(opt.Parts)
	}
	slices.SortStableFunc(exps, func(a, b *experiment) int {
		return cmp.Or(cmp.Compare(part(a), part(b)), cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Name, b.Name))
	})
	var parts []partData
	for _, x := range exps {
		h := otherPart
		about := ""
		if i := part(x); i < len(opt.Parts) {
			h, about = opt.Parts[i].Heading, opt.Parts[i].About
		}
		if len(parts) == 0 || parts[len(parts)-1].Heading != h {
			parts = append(parts, partData{Heading: h, About: about})
		}
		parts[len(parts)-1].exps = append(parts[len(parts)-1].exps, x)
	}
	md, err := markdown(exps, parts)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	page, err := html(md)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	mdFile, htmlFile := cmp.Or(opt.Markdown, MarkdownFile), cmp.Or(opt.HTML, HTMLFile)
	if err := harness.WriteFileAtomic(filepath.Join(dir, mdFile), []byte(md)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := harness.WriteFileAtomic(filepath.Join(dir, htmlFile), page); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// only keeps the experiments named in names (all when names is empty),
// in their order in exps; a name that is none of them is an error that
// lists them.
func only(exps []*experiment, names []string, dir string) ([]*experiment, error) {
	if len(names) == 0 {
		return exps, nil
	}
	var all []string
	for _, x := range exps {
		all = append(all, x.Name)
	}
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("only %q: no experiment of that name in %s (there: %s)", n, dir, strings.Join(all, ", "))
		}
	}
	return slices.DeleteFunc(exps, func(x *experiment) bool { return !slices.Contains(names, x.Name) }), nil
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
