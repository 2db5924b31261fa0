package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

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
