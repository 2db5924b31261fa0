package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// entryFormat is the form of a survivors file's entry, for error messages.
const entryFormat = `<function> <MUTATOR_TYPE> "<expression>"[#<n>] <file>:<line>:<col> <reason>`

// entry is one listed survivor. Its key (function, mutator, expression,
// occurrence) names the mutant; the position is a hint for the reader,
// not used to match.
type entry struct {
	Func, Type, Expr string
	Occ              int
	Hint             pos
	Reason           string
	line             int // in the survivors file
}

func (e *entry) key() string {
	return (&site{Func: e.Func, Expr: e.Expr, Occ: e.Occ}).key(e.Type)
}

func (e *entry) String() string { return e.key() + " " + e.Hint.String() }

// survivors is a parsed survivors file, its entries by key.
type survivors struct {
	path    string
	entries []*entry
	byKey   map[string][]*entry // several only for functions with a build variant per file
}

// parseSurvivors reads a survivors file. A missing file is an empty list.
func parseSurvivors(path string) (*survivors, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &survivors{path: path, byKey: make(map[string][]*entry)}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseSurvivorsText(path, string(b))
}

// parseSurvivorsText parses the content of the survivors file at path.
func parseSurvivorsText(path, text string) (*survivors, error) {
	list := &survivors{path: path, byKey: make(map[string][]*entry)}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v; want %s", path, i+1, err, entryFormat)
		}
		e.line = i + 1
		for _, o := range list.byKey[e.key()] {
			if o.Hint.File == e.Hint.File {
				return nil, fmt.Errorf("%s:%d: %s listed twice (also on line %d)", path, i+1, e.key(), o.line)
			}
		}
		list.entries = append(list.entries, e)
		list.byKey[e.key()] = append(list.byKey[e.key()], e)
	}
	return list, nil
}

// parseEntry parses one entry line.
func parseEntry(line string) (*entry, error) {
	f := strings.SplitN(line, " ", 3)
	if len(f) < 3 || f[0] == "" {
		return nil, errors.New("too few fields")
	}
	if _, err := parsePos(f[0]); err == nil {
		return nil, errors.New("an entry by position, the form before keys (convert the file with -convert)")
	}
	e := &entry{Func: f[0], Type: f[1], Occ: 1}
	if e.Type == "" || strings.ToUpper(e.Type) != e.Type || strings.ContainsAny(e.Type, `"#:`) {
		return nil, fmt.Errorf("mutator type %q", e.Type)
	}
	q, err := strconv.QuotedPrefix(f[2])
	if err != nil {
		return nil, errors.New("no quoted expression after the mutator type")
	}
	e.Expr, _ = strconv.Unquote(q)
	rest := f[2][len(q):]
	if strings.HasPrefix(rest, "#") {
		n, after, _ := strings.Cut(rest[1:], " ")
		occ, err := strconv.Atoi(n)
		if err != nil || occ < 2 {
			return nil, fmt.Errorf("occurrence %q (an integer from 2; the first has none)", "#"+n)
		}
		e.Occ, rest = occ, " "+after
	}
	if !strings.HasPrefix(rest, " ") {
		return nil, errors.New("no space after the expression")
	}
	hint, reason, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	if e.Hint, err = parsePos(hint); err != nil {
		return nil, err
	}
	if e.Reason = strings.TrimSpace(reason); e.Reason == "" {
		return nil, errors.New("no reason")
	}
	return e, nil
}

// parsePos parses file:line:col.
func parsePos(s string) (pos, error) {
	p := strings.Split(s, ":")
	if len(p) != 3 {
		return pos{}, fmt.Errorf("position %q", s)
	}
	ln, err1 := strconv.Atoi(p[1])
	col, err2 := strconv.Atoi(p[2])
	if p[0] == "" || err1 != nil || err2 != nil || ln < 1 || col < 1 {
		return pos{}, fmt.Errorf("position %q", s)
	}
	return pos{p[0], ln, col}, nil
}

// find returns the entry that lists the mutant typ at site s, if any.
func (l *survivors) find(s *site, typ string) *entry {
	c := l.byKey[s.key(typ)]
	if len(c) == 1 {
		return c[0]
	}
	for _, e := range c {
		if e.Hint.File == s.At.File {
			return e
		}
	}
	return nil
}

// resolve finds the entry's site in the package's source, or says in a
// few words why it is gone.
func (src *source) resolve(e *entry) (*site, string) {
	files := src.decls[e.Func]
	if len(files) == 0 {
		return nil, fmt.Sprintf("%s is not declared in %s (removed, renamed or moved to another package)", e.Func, src.dir)
	}
	var found []*site
	for _, s := range src.byFunc[e.Func] {
		if s.Expr == e.Expr && s.Occ == e.Occ && applies(s.Tok, e.Type) {
			found = append(found, s)
		}
	}
	for _, s := range found {
		if len(found) == 1 || s.At.File == e.Hint.File {
			return s, ""
		}
	}
	what := fmt.Sprintf("%q", e.Expr)
	if e.Occ > 1 {
		what = fmt.Sprintf("%d occurrences of %q", e.Occ, e.Expr)
	}
	return nil, fmt.Sprintf("%s has no %s that %s mutates", e.Func, what, e.Type)
}

// convertLegacy rewrites a survivors file of <file>:<line>:<col> entries
// (the form before entries were keyed by function) into keyed entries,
// naming each from the token at its position in src. Comments, blank lines
// and the order are kept; it fails, writing nothing, if any position holds
// no token that its mutator changes.
func convertLegacy(path string, src *source) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var out, bad []string
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			out = append(out, line)
			continue
		}
		f := strings.SplitN(t, " ", 3)
		if len(f) < 3 {
			return "", fmt.Errorf("%s:%d: too few fields; want <file>:<line>:<col> <MUTATOR_TYPE> <reason>", path, i+1)
		}
		p, err := parsePos(f[0])
		if err != nil {
			return "", fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		s := src.at[p]
		if s == nil || !applies(s.Tok, f[1]) {
			bad = append(bad, fmt.Sprintf("%s:%d: %s %s: no token that %s mutates there in %s", path, i+1, p, f[1], f[1], src.dir))
			continue
		}
		out = append(out, s.key(f[1])+" "+p.String()+" "+strings.TrimSpace(f[2]))
	}
	if len(bad) > 0 {
		return "", errors.New(strings.Join(bad, "\n"))
	}
	return strings.Join(out, "\n") + "\n", nil
}
