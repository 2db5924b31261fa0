// Command bugs replays a list of deliberate bugs against the test suite:
// each bug is an exact text replacement in one file, applied in a scratch
// copy of the repository, followed by the test command that must then
// fail. It reports, per bug, "caught" (the command failed), "NOT caught"
// (it passed), "pattern missing" (the text is no longer in the file: the
// code moved and the entry needs updating), "pattern ambiguous" (the text
// occurs more than once) or "does not build" (the replacement broke
// compilation, which proves nothing about the tests).
//
// The list (default .ci/deliberate-bugs.tsv) has one bug per line, five
// tab-separated fields:
//
//	name  file  find  replace  command
//
// find and replace are taken literally except for the escapes \t, \n and
// \\; command runs with sh -c from the scratch copy's root. Lines starting
// with # and blank lines are ignored. Each distinct command is first run
// on the unmodified copy, where it must pass.
//
// The scratch copy holds the files git tracks (and untracked ones it does
// not ignore), next to a link to the original's ../shared when there is
// one, so data tests see what they see in the repository.
//
//	go run ./.ci/bugs [-list FILE] [-keep] [NAME-REGEXP]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// bug is one entry of the list.
type bug struct {
	line          int
	name, file    string
	find, replace string
	command       string
}

// unescape decodes \t, \n and \\ in a list field.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", errors.New(`trailing \`)
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf(`unknown escape \%c (allowed: \t, \n, \\)`, s[i])
		}
	}
	return b.String(), nil
}

func parseList(name string, data []byte) ([]bug, error) {
	var bugs []bug
	seen := make(map[string]int)
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, a...))
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, bad("%d tab-separated fields, want 5 (name, file, find, replace, command)", len(f))
		}
		b := bug{line: i + 1, name: f[0], file: f[1], command: f[4]}
		var err error
		if b.find, err = unescape(f[2]); err != nil {
			return nil, bad("find: %v", err)
		}
		if b.replace, err = unescape(f[3]); err != nil {
			return nil, bad("replace: %v", err)
		}
		switch {
		case b.name == "" || strings.ContainsAny(b.name, " \t"):
			return nil, bad("name %q: want one word", b.name)
		case b.file == "" || filepath.IsAbs(b.file) || strings.HasPrefix(filepath.Clean(b.file), ".."):
			return nil, bad("file %q: want a path inside the repository", b.file)
		case b.find == "":
			return nil, bad("empty find text")
		case b.find == b.replace:
			return nil, bad("replacement equals the find text")
		case strings.TrimSpace(b.command) == "":
			return nil, bad("empty command")
		}
		if prev, dup := seen[b.name]; dup {
			return nil, bad("name %q already used on line %d", b.name, prev)
		}
		seen[b.name] = i + 1
		bugs = append(bugs, b)
	}
	return bugs, nil
}

// Outcomes.
const (
	caught    = "caught"
	notCaught = "NOT caught"
	missing   = "pattern missing"
	ambiguous = "pattern ambiguous"
	noBuild   = "does not build"
	baseFails = "command fails without the bug"
)

// replayer runs bugs in one scratch copy, restoring each file afterwards.
type replayer struct {
	dir      string            // the scratch copy's root
	log      io.Writer         // command output of failures worth reading
	baseline map[string]string // command -> "" when it passes unmodified, else why not
}

func (r *replayer) sh(command string) (string, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// replay applies one bug, runs its command and restores the file.
func (r *replayer) replay(b bug) (string, error) {
	if _, done := r.baseline[b.command]; !done {
		out, err := r.sh(b.command)
		r.baseline[b.command] = ""
		if err != nil {
			r.baseline[b.command] = out
		}
	}
	if why := r.baseline[b.command]; why != "" {
		fmt.Fprintf(r.log, "--- %s: %q fails on the unmodified copy:\n%s\n", b.name, b.command, why)
		return baseFails, nil
	}
	path := filepath.Join(r.dir, b.file)
	orig, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return missing, nil
	}
	if err != nil {
		return "", err
	}
	switch n := bytes.Count(orig, []byte(b.find)); {
	case n == 0:
		return missing, nil
	case n > 1:
		return fmt.Sprintf("%s (%d matches)", ambiguous, n), nil
	}
	mutated := bytes.Replace(orig, []byte(b.find), []byte(b.replace), 1)
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return "", err
	}
	defer os.WriteFile(path, orig, 0o644)
	if out, err := r.sh("go test -c -o " + os.DevNull + " ./" + filepath.ToSlash(filepath.Dir(b.file))); err != nil {
		fmt.Fprintf(r.log, "--- %s: does not build:\n%s\n", b.name, out)
		return noBuild, nil
	}
	if _, err := r.sh(b.command); err != nil {
		return caught, nil
	}
	return notCaught, nil
}

// scratchCopy copies the repository at root into a new directory and
// returns the copy's root.
func scratchCopy(root string) (string, error) {
	tmp, err := os.MkdirTemp("", "privic-bugs-")
	if err != nil {
		return "", err
	}
	dst := filepath.Join(tmp, filepath.Base(root))
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("listing the repository's files with git: %w", err)
	}
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" {
			continue
		}
		src := filepath.Join(root, rel)
		st, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			return "", err
		}
		if !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			return "", err
		}
	}
	if shared, err := filepath.EvalSymlinks(filepath.Join(root, "..", "shared")); err == nil {
		if err := os.Symlink(shared, filepath.Join(tmp, "shared")); err != nil {
			return "", err
		}
	}
	return dst, nil
}

func main() {
	list := flag.String("list", ".ci/deliberate-bugs.tsv", "the list of deliberate bugs")
	keep := flag.Bool("keep", false, "keep the scratch copy (its path is printed)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./.ci/bugs [-list FILE] [-keep] [NAME-REGEXP]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	ok, err := run(*list, flag.Arg(0), *keep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bugs:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(listPath, pattern string, keep bool) (bool, error) {
	data, err := os.ReadFile(listPath)
	if err != nil {
		return false, err
	}
	bugs, err := parseList(listPath, data)
	if err != nil {
		return false, err
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false, fmt.Errorf("name pattern: %w", err)
	}
	root, err := os.Getwd()
	if err != nil {
		return false, err
	}
	dir, err := scratchCopy(root)
	if err != nil {
		return false, err
	}
	if keep {
		fmt.Printf("scratch copy: %s\n", dir)
	} else {
		defer os.RemoveAll(filepath.Dir(dir))
	}
	r := &replayer{dir: dir, log: os.Stderr, baseline: make(map[string]string)}
	all := true
	n := 0
	for _, b := range bugs {
		if !re.MatchString(b.name) {
			continue
		}
		n++
		start := time.Now()
		outcome, err := r.replay(b)
		if err != nil {
			return false, fmt.Errorf("%s (%s:%d): %w", b.name, listPath, b.line, err)
		}
		if outcome != caught {
			all = false
		}
		fmt.Printf("%-16s %-36s %5.0fs  %s\n", outcome, b.name, time.Since(start).Seconds(), b.command)
	}
	if n == 0 {
		return false, fmt.Errorf("no bug in %s matches %q", listPath, pattern)
	}
	return all, nil
}
