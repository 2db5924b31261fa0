package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"privic/datasets"
	"privic/harness"
	"privic/kernels/mechanism"
)

// root is the module's directory, seen from this package's (where go
// test runs).
const root = "../.."

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dispatcher returns the labels of run.sh's command dispatcher (the case
// statement in main), alternatives split: "" for no command, "*.toml" for
// spec paths.
func dispatcher(t *testing.T, runsh string) []string {
	t.Helper()
	start := strings.Index(runsh, "\nmain() {")
	if start < 0 {
		t.Fatal("run.sh has no main() function")
	}
	body := runsh[start:]
	end := regexp.MustCompile(`\n\s*esac\b`).FindStringIndex(body)
	if end == nil {
		t.Fatal("run.sh's main() has no case ... esac dispatcher")
	}
	body = body[:end[0]]
	var labels []string
	for _, m := range regexp.MustCompile(`(?m)^\t([^\t\n()]+)\)`).FindAllStringSubmatch(body, -1) {
		for _, alt := range strings.Split(m[1], "|") {
			alt = strings.Trim(strings.TrimSpace(alt), `"`)
			labels = append(labels, alt)
		}
	}
	if len(labels) < 5 {
		t.Fatalf("found only %q in run.sh's dispatcher", labels)
	}
	return labels
}

// TestREADMECommandsExist: every `./run.sh X` in README.md is a command
// run.sh dispatches (or a spec path), and every command run.sh offers is
// in the README.
func TestREADMECommandsExist(t *testing.T) {
	readme := readFile(t, filepath.Join(root, "README.md"))
	labels := dispatcher(t, readFile(t, filepath.Join(root, "run.sh")))
	mentioned := map[string]bool{}
	for _, m := range regexp.MustCompile(`\./run\.sh(?:[ \t]+([^\s`+"`"+`|)]+))?`).FindAllStringSubmatch(readme, -1) {
		arg := m[1]
		if strings.HasPrefix(arg, "#") {
			arg = ""
		}
		mentioned[arg] = true
		switch {
		case strings.HasSuffix(arg, ".toml"):
			if !slices.Contains(labels, "*.toml") {
				t.Errorf("README runs a spec with ./run.sh %s but run.sh does not dispatch *.toml", arg)
			}
			if _, err := os.Stat(filepath.Join(root, arg)); err != nil && !strings.Contains(arg, "NAME") {
				t.Logf("README mentions %s, which does not exist (yet)", arg)
			}
		case !slices.Contains(labels, arg):
			t.Errorf("README mentions `./run.sh %s` but run.sh has no such command (it has %q)", arg, labels)
		}
	}
	if !mentioned[""] || !mentioned["test"] {
		t.Error("README lacks the two set-up commands ./run.sh and ./run.sh test")
	}
	for _, l := range labels {
		if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "*") {
			continue
		}
		if !mentioned[l] {
			t.Errorf("run.sh offers %q but README.md does not mention `./run.sh %s`", l, l)
		}
	}
	// The two set-up commands come first, in that order.
	i, j := strings.Index(readme, "./run.sh "), strings.Index(readme, "./run.sh test")
	if i < 0 || j < 0 || j < i || strings.Count(readme[:j], "./run.sh") != 1 {
		t.Error("README must give ./run.sh and then ./run.sh test before any other command")
	}
}

// TestExperimentsREADMEDocumentsEveryKey: each registered kind has a
// section in experiments/README.md that mentions each of its keys.
func TestExperimentsREADMEDocumentsEveryKey(t *testing.T) {
	doc := readFile(t, filepath.Join(root, "experiments", "README.md"))
	marker := strings.Index(doc, "\n<!-- kinds -->\n")
	if marker < 0 {
		t.Fatal("experiments/README.md lost its <!-- kinds --> line")
	}
	for _, k := range allKinds() {
		head := "\n### `" + k.Name() + "`\n"
		i := strings.Index(doc[marker:], head)
		if i < 0 {
			t.Errorf("experiments/README.md has no section %q after <!-- kinds -->", strings.TrimSpace(head))
			continue
		}
		section := doc[marker+i+len(head):]
		if end := strings.Index(section, "\n### "); end >= 0 {
			section = section[:end]
		}
		for _, key := range harness.ParamKeys(k) {
			leaf := key[strings.LastIndex(key, ".")+1:]
			if !strings.Contains(section, "`"+key+"`") && !strings.Contains(section, "`"+leaf+"`") {
				t.Errorf("kind %s: key %s is not described in its section of experiments/README.md", k.Name(), key)
			}
		}
	}
}

// TestExperimentsREADMEMechanismsAreRegistered: the mechanisms the README
// describes as built in are in the registry's table, so the docs cannot
// keep a mechanism that was removed or renamed. (A new mechanism needs no
// README edit: privic list and mechanisms.csv take the list from the
// registry.)
func TestExperimentsREADMEMechanismsAreRegistered(t *testing.T) {
	doc := readFile(t, filepath.Join(root, "experiments", "README.md"))
	const lead = "The built-in ones:\n"
	i := strings.Index(doc, lead)
	if i < 0 {
		t.Fatalf("experiments/README.md lost the line %q of the mechanisms section", strings.TrimSpace(lead))
	}
	para := doc[i+len(lead):]
	para = para[:strings.Index(para+"\n\n", "\n\n")]
	reg, err := mechanism.NewRegistry(mechanism.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	// A mechanism's description starts with its name in backticks followed
	// by its parenthesised summary.
	var named []string
	for _, m := range regexp.MustCompile("`([a-z0-9-]+)`\\s+\\(").FindAllStringSubmatch(para, -1) {
		named = append(named, m[1])
		if _, err := reg.Lookup(m[1]); err != nil {
			t.Errorf("experiments/README.md describes mechanism %q, which the registry lacks: %v", m[1], err)
		}
	}
	if len(named) < 5 {
		t.Errorf("found only %q as described mechanisms in experiments/README.md", named)
	}
}

// TestExperimentSpecsValidate: every spec in experiments/ loads and plans
// with the kinds the CLI registers (a spec whose kind is missing means
// cmd/privic/kinds.go needs the kind's package).
func TestExperimentSpecsValidate(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, "experiments", "*.toml"))
	if len(files) == 0 {
		t.Fatal("no specs in experiments/")
	}
	reg, err := harness.NewRegistry(allKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		s, err := reg.Load(f)
		if err == nil {
			_, err = harness.Check([]*harness.Spec{s}, harness.RunOptions{})
		}
		if err != nil {
			t.Errorf("%v", err)
		}
	}
}

// docBlock is a fenced block of a Markdown file whose info string says
// "runnable": a console transcript ("$ command" lines, each followed by
// the output it prints) or shell commands, one a line.
type docBlock struct {
	file    string // slash-separated, from the module's top
	line    int    // of the opening fence
	console bool
	text    []string
}

// runnableBlocks returns the runnable blocks of a Markdown file (a
// slash-separated path from the module's top).
func runnableBlocks(t *testing.T, file string) []docBlock {
	t.Helper()
	var out []docBlock
	var cur *docBlock
	for i, line := range strings.Split(readFile(t, filepath.Join(root, filepath.FromSlash(file))), "\n") {
		fence := strings.HasPrefix(line, "```")
		switch {
		case cur == nil && fence:
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			if slices.Contains(info, "runnable") {
				cur = &docBlock{file: file, line: i + 1, console: len(info) > 0 && info[0] == "console"}
			} else if len(info) > 0 || line == "```" {
				cur = &docBlock{line: -1} // a block that is not runnable
			}
		case cur != nil && fence:
			if cur.line > 0 {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			cur.text = append(cur.text, line)
		}
	}
	return out
}

// docWorkDir is a working directory in which the READMEs' commands run
// as a user runs them from the repository's top: bin/privic is this test
// binary acting as privic, experiments/ is the repository's, and
// datasets/cache holds the raw check-ins (the repository's cache, or the
// shared data directory beside it). ok is false without raw check-ins.
func docWorkDir(t *testing.T) (dir string, ok bool) {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	wrapper := "#!/bin/sh\nexec '" + exe + "' -test.run='^TestReliabilityChild$' -test.count=1 -- \"$@\"\n"
	write(t, filepath.Join(dir, "bin", "privic"), wrapper)
	if err := os.Chmod(filepath.Join(dir, "bin", "privic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(abs, "experiments"), filepath.Join(dir, "experiments")); err != nil {
		t.Fatal(err)
	}
	for _, cache := range []string{datasets.CacheDir(abs), filepath.Join(datasets.SharedDir(abs), "datasets", "gowalla")} {
		if _, err := os.Stat(filepath.Join(cache, "sf_checkins.csv")); err == nil {
			os.MkdirAll(filepath.Join(dir, "datasets"), 0o755)
			if err := os.Symlink(cache, filepath.Join(dir, "datasets", "cache")); err != nil {
				t.Fatal(err)
			}
			return dir, true
		}
	}
	return dir, false
}

// TestRunnableDocBlocks runs every block of README.md and
// experiments/README.md marked runnable (```console runnable or ```sh
// runnable), as written, from a copy of the repository's top: each
// command must succeed, and a transcript's commands must print exactly
// the output it shows. Blocks that read raw check-ins ($PRIVIC_DATA) skip
// loudly when neither datasets/cache nor ../shared has them.
func TestRunnableDocBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING the READMEs' commands in -short mode")
	}
	var blocks []docBlock
	for _, f := range []string{"README.md", "experiments/README.md"} {
		blocks = append(blocks, runnableBlocks(t, f)...)
	}
	if len(blocks) < 3 {
		t.Fatalf("%d runnable blocks in the READMEs, want at least 3", len(blocks))
	}
	dir, haveData := docWorkDir(t)
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			text := strings.Join(b.text, "\n")
			if strings.Contains(text, "PRIVIC_DATA") && !haveData {
				t.Skip("SKIPPED: the block reads raw check-ins, and neither datasets/cache nor ../shared/datasets/gowalla has them")
			}
			for _, c := range blockCommands(b) {
				cmd := exec.Command("sh", "-c", c.cmd)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), reliabilityChildEnv+"=1", datasets.EnvData+"=")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Errorf("%s: %v\n%s", c.cmd, err, out)
					continue
				}
				if b.console && trimLines(string(out)) != trimLines(c.want) {
					t.Errorf("%s prints\n%s\nthe README shows\n%s", c.cmd, out, c.want)
				}
			}
		})
	}
}

// docCommand is one command of a block and, in a transcript, its output.
type docCommand struct{ cmd, want string }

// blockCommands splits a block into its commands.
func blockCommands(b docBlock) []docCommand {
	var out []docCommand
	for _, line := range b.text {
		cmd, isCmd := strings.CutPrefix(line, "$ ")
		switch {
		case b.console && isCmd:
			out = append(out, docCommand{cmd: cmd})
		case b.console && len(out) > 0:
			out[len(out)-1].want += line + "\n"
		case !b.console && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			out = append(out, docCommand{cmd: line})
		}
	}
	return out
}

// trimLines drops trailing spaces of every line and blank lines at the
// end.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// TestREADMELayoutListsEveryKind: the repository layout in README.md
// names every experiment kind's package under harness/kinds/, and no
// package that is gone (the list had fallen behind by two kinds).
func TestREADMELayoutListsEveryKind(t *testing.T) {
	readme := readFile(t, filepath.Join(root, "README.md"))
	m := regexp.MustCompile(`(?s)kinds/<name>/\s+the experiment kinds, one package each \(([^)]*)\)`).FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md's layout lost its line `kinds/<name>/ the experiment kinds, one package each (...)`")
	}
	var listed []string
	for _, f := range strings.Split(m[1], ",") {
		listed = append(listed, strings.TrimSpace(f))
	}
	entries, err := os.ReadDir(filepath.Join(root, "harness", "kinds"))
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "internal" && e.Name() != "testdata" {
			pkgs = append(pkgs, e.Name())
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, pkgs) {
		t.Errorf("README.md's layout lists the kinds %q; harness/kinds/ has %q", listed, pkgs)
	}
}

// helpCommands returns the commands that run.sh's usage text lists (the
// first word of each entry indented by two spaces), "" for "(no command)".
func helpCommands(t *testing.T, runsh string) []string {
	t.Helper()
	start := strings.Index(runsh, "\nusage() {")
	if start < 0 {
		t.Fatal("run.sh has no usage() function")
	}
	body := runsh[start:]
	end := strings.Index(body, "\nEOF\n")
	if end < 0 {
		t.Fatal("run.sh's usage() has no here-document ending in EOF")
	}
	var cmds []string
	for _, m := range regexp.MustCompile(`(?m)^  (\(no command\)|[A-Za-z.-]+)`).FindAllStringSubmatch(body[:end], -1) {
		c := m[1]
		if c == "(no command)" {
			c = ""
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// TestRunShHelpMatchesDispatcherAndREADME: the commands `./run.sh help`
// lists are exactly those its dispatcher runs, and each has a row in the
// README's commands table (or is one of the two set-up commands).
func TestRunShHelpMatchesDispatcherAndREADME(t *testing.T) {
	runsh := readFile(t, filepath.Join(root, "run.sh"))
	help := helpCommands(t, runsh)
	var labels []string
	for _, l := range dispatcher(t, runsh) {
		if !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "*") {
			labels = append(labels, l)
		}
	}
	listed := slices.DeleteFunc(slices.Clone(help), func(c string) bool { return c == "SPEC.toml" })
	slices.Sort(listed)
	slices.Sort(labels)
	if !slices.Equal(listed, labels) {
		t.Errorf("./run.sh help lists %q; its dispatcher runs %q", listed, labels)
	}
	if !slices.Contains(help, "SPEC.toml") {
		t.Error("./run.sh help does not say that specs can be given (SPEC.toml ...)")
	}
	readme := readFile(t, filepath.Join(root, "README.md"))
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `\\./run\\.sh ([a-z-]+)[ `]").FindAllStringSubmatch(readme, -1) {
		rows[m[1]] = true
	}
	for _, c := range listed {
		if c == "" || c == "test" {
			continue // the set-up commands, at the top of the README
		}
		if !rows[c] {
			t.Errorf("./run.sh help lists %q, which has no row in README.md's commands table", c)
		}
	}
	for r := range rows {
		if !slices.Contains(listed, r) {
			t.Errorf("README.md's commands table has `./run.sh %s`, which ./run.sh help does not list", r)
		}
	}
}

// TestKindDocsNameTheDefMethods: the package doc of harness/kinds and the
// README's "Extending it" name every method of harness.Def (what a kind
// implements), and the kinds doc lists every kind All() registers.
func TestKindDocsNameTheDefMethods(t *testing.T) {
	methods := defMethods(t)
	doc := packageDoc(t, filepath.Join(root, "harness", "kinds"))
	readme := readFile(t, filepath.Join(root, "README.md"))
	i := strings.Index(readme, "\n## Extending it\n")
	if i < 0 {
		t.Fatal("README.md lost its section \"Extending it\"")
	}
	extending := readme[i:]
	for _, m := range methods {
		if !regexp.MustCompile(`\b` + m + `\b`).MatchString(doc) {
			t.Errorf("harness/kinds' package doc does not name %s, a method of harness.Def", m)
		}
		if !strings.Contains(extending, "`"+m+"`") {
			t.Errorf("README.md's \"Extending it\" does not name `%s`, a method of harness.Def", m)
		}
	}
	// Names that are not methods of Def must not be given as if they were.
	for _, gone := range []string{"Outputs", "Describe"} {
		if regexp.MustCompile(`Def with [^.]*\b` + gone + `\b`).MatchString(doc) {
			t.Errorf("harness/kinds' package doc gives %s as a method of Def; Def has %q", gone, methods)
		}
	}
	for _, k := range allKinds() {
		if !strings.Contains(doc, `"`+k.Name()+`"`) {
			t.Errorf("harness/kinds' package doc does not list the kind %q", k.Name())
		}
	}
}

// defMethods returns the method names of the interface harness.Def, read
// from the harness package's source.
func defMethods(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join(root, "harness"), func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok || ts.Name.Name != "Def" {
					return true
				}
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						for _, id := range m.Names {
							names = append(names, id.Name)
						}
					}
				}
				return false
			})
		}
	}
	if len(names) < 3 {
		t.Fatalf("harness.Def has methods %q: not found in harness/", names)
	}
	return names
}

// packageDoc returns the package comment of the Go package in dir.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, p := range pkgs {
		for _, f := range p.Files {
			if f.Doc != nil {
				doc.WriteString(f.Doc.Text())
			}
		}
	}
	if doc.Len() == 0 {
		t.Fatalf("%s has no package doc", dir)
	}
	return doc.String()
}
