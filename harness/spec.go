package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"privic/internal/tomlval"
)

// specFormat is mixed into every spec hash; bump it when the meaning of
// stored job results changes so that old results are recomputed.
const specFormat = "privic-spec-1"

// maxSpecBytes bounds what the loader reads: specs are short text files.
const maxSpecBytes = 1 << 20

// reservedNames are directories under results/ that belong to run.sh.
var reservedNames = []string{"bench", "profile"}

// namePattern is what spec, kind and table names may look like: they
// become file and directory names, so no '/', '.', or upper case.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// specNamePattern is stricter: spec and kind names are words joined by
// hyphens ("ba-vs-lap"), never underscores.
var specNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// Registry holds the experiment kinds the CLI knows.
type Registry struct {
	kinds map[string]Kind
	names []string // sorted
	data  Data     // nil: specs may not declare datasets
}

// NewRegistry registers kinds; names must be unique and [a-z0-9-]+, and
// NewParams must return a non-nil pointer to a struct.
func NewRegistry(kinds ...Kind) (*Registry, error) {
	r := &Registry{kinds: make(map[string]Kind, len(kinds))}
	for _, k := range kinds {
		if k == nil {
			return nil, errors.New("register kind: nil Kind")
		}
		name := k.Name()
		if !specNamePattern.MatchString(name) {
			return nil, fmt.Errorf("register kind %q: kind names use only a-z, 0-9 and '-'", name)
		}
		if _, dup := r.kinds[name]; dup {
			return nil, fmt.Errorf("register kind %q: registered twice", name)
		}
		var p Params
		if err := safely(func() error { p = k.NewParams(); return nil }); err != nil {
			return nil, fmt.Errorf("register kind %q: NewParams: %w", name, err)
		}
		if !pointerToStruct(p) {
			return nil, fmt.Errorf("register kind %q: NewParams must return a non-nil pointer to a struct, got %T", name, p)
		}
		r.kinds[name] = k
		r.names = append(r.names, name)
	}
	sort.Strings(r.names)
	return r, nil
}

// Kinds returns the registered kinds sorted by name.
func (r *Registry) Kinds() []Kind {
	out := make([]Kind, len(r.names))
	for i, n := range r.names {
		out[i] = r.kinds[n]
	}
	return out
}

// Lookup returns the kind called name.
func (r *Registry) Lookup(name string) (Kind, error) {
	if k, ok := r.kinds[name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("unknown kind %q (known kinds: %s)", name, r.known())
}

func (r *Registry) known() string {
	if len(r.names) == 0 {
		return "none registered"
	}
	return strings.Join(r.names, ", ")
}

// Spec is a loaded and validated experiment specification.
type Spec struct {
	// Path is the file the spec was read from, as given; every error
	// about the spec starts with it.
	Path        string
	Kind        Kind
	Name        string // output directory name under results/
	Seed        uint64
	Description string
	Params      Params // the kind's parameters, validated
	// Hash is the hex SHA-256 of the spec's meaning (kind, kind version,
	// seed, parameters; not name, description or formatting). Stored job
	// results are reused only when their hash matches.
	Hash string
	// Source is the file's bytes (copied to results/<name>/spec.toml).
	Source []byte
	// Data is the spec's catalog of datasets (nil when the registry has
	// no Data), and DataDir the absolute directory against which its
	// relative data paths resolved: the spec's own, recorded in the
	// manifest so that a merge of shards finds the data again.
	Data    Catalog
	DataDir string
	// Budget is the spec's time budget (its `budget` key; 0: none): a
	// run in which the spec's jobs are still running this long after its
	// first job started stops as an interrupted run does, naming them.
	// It does not change a result, so it is not in the hash.
	Budget time.Duration
	decls  map[string]any // the [datasets.NAME] tables, decoded
}

// Load reads and validates the spec at path.
func (r *Registry) Load(path string) (*Spec, error) {
	data, err := readSpecFile(path)
	if err != nil {
		return nil, err
	}
	return r.Parse(path, data)
}

func readSpecFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read spec: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read spec: %w", path, unwrapPathError(err))
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a spec file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read spec: %w", path, unwrapPathError(err))
	}
	if len(data) > maxSpecBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a spec", path, maxSpecBytes)
	}
	return data, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse validates a spec read from path (used in messages and, without a
// `name` key, for the default name: the file's base name without .toml).
func (r *Registry) Parse(path string, data []byte) (*Spec, error) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return r.parse(path, data, base, specDir(path))
}

// rawSpec is the top level of a spec file.
type rawSpec struct {
	Kind        string                    `toml:"kind"`
	Name        string                    `toml:"name"`
	Seed        int64                     `toml:"seed"`
	Description string                    `toml:"description"`
	Budget      string                    `toml:"budget"`
	Params      toml.Primitive            `toml:"params"`
	Datasets    map[string]toml.Primitive `toml:"datasets"`
}

var topKeys = []string{"kind", "name", "seed", "description", "budget", "params", "datasets"}

// parse validates a spec; relative data paths resolve against dataDir.
func (r *Registry) parse(path string, data []byte, defaultName, dataDir string) (*Spec, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	var raw rawSpec
	doc, err := decodeTOML(path, data, &raw)
	if err != nil {
		return nil, err
	}
	md := doc.md
	if !md.IsDefined("kind") || raw.Kind == "" {
		return nil, fail("kind: missing; set kind to one of: %s", r.known())
	}
	kind, ok := r.kinds[raw.Kind]
	if !ok {
		return nil, fail("kind = %q: unknown kind (known kinds: %s)", raw.Kind, r.known())
	}
	name := raw.Name
	if !md.IsDefined("name") {
		name = defaultName
		if !specNamePattern.MatchString(name) {
			return nil, fail("name: the file name gives %q, which is not allowed; set name = \"...\" using only a-z, 0-9 and '-' (at most 64 characters)", name)
		}
	} else if !specNamePattern.MatchString(name) {
		return nil, fail("name = %q: names use only a-z, 0-9 and '-' (at most 64 characters, starting with a letter or digit)", name)
	}
	if slices.Contains(reservedNames, name) {
		return nil, fail("name = %q: reserved for run.sh's own results; choose another name", name)
	}
	if raw.Seed < 0 {
		return nil, fail("seed = %d: seed must be an integer in [0, %d]", raw.Seed, int64(^uint64(0)>>1))
	}
	var budget time.Duration
	if md.IsDefined("budget") {
		if budget, err = time.ParseDuration(raw.Budget); err != nil || budget <= 0 {
			return nil, fail("budget = %q: a duration such as \"20m\" or \"1h30m\" (units h, m, s), greater than 0", raw.Budget)
		}
	}
	var params Params
	if err := safely(func() error { params = kind.NewParams(); return nil }); err != nil {
		return nil, fail("kind %s: NewParams: %v", kind.Name(), err)
	}
	decls, err := r.decodeDecls(doc, raw.Datasets)
	if err != nil {
		return nil, err
	}
	if err := doc.decode(toml.Key{"params"}, raw.Params, params); err != nil {
		return nil, err
	}
	if err := checkKeys(md, "", keyRoot{"params", 1, reflect.TypeOf(params)}, keyRoot{"datasets", 2, r.declType()}); err != nil {
		return nil, fail("%v", err)
	}
	cat, err := r.catalog(path, decls, dataDir)
	if err != nil {
		return nil, err
	}
	if u, ok := params.(DataUser); ok && cat != nil {
		u.UseData(cat)
	}
	if err := safely(params.Validate); err != nil {
		return nil, fail("%v", err)
	}
	s := &Spec{
		Path:        path,
		Kind:        kind,
		Name:        name,
		Seed:        uint64(raw.Seed),
		Description: raw.Description,
		Params:      params,
		Source:      slices.Clone(data),
		Data:        cat,
		Budget:      budget,
		decls:       decls,
	}
	fingerprint := ""
	if cat != nil {
		fingerprint = cat.Fingerprint()
	}
	if len(decls) > 0 {
		s.DataDir = dataDir
	}
	if s.Hash, err = specHash(kind, s.Seed, params, fingerprint); err != nil {
		return nil, fail("%v", err)
	}
	return s, nil
}

// specHash hashes what a spec means: its kind and the kind's version,
// its seed, its parameters and the fingerprint of the datasets it
// declares (left out when it declares none, so that such specs keep
// their hash).
func specHash(kind Kind, seed uint64, params Params, data string) (string, error) {
	version := ""
	if v, ok := kind.(Versioned); ok {
		version = v.Version()
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return "", fmt.Errorf("kind %s: parameters cannot be hashed: %v", kind.Name(), err)
	}
	doc, err := json.Marshal(struct {
		Format  string          `json:"format"`
		Kind    string          `json:"kind"`
		Version string          `json:"version"`
		Seed    uint64          `json:"seed"`
		Params  json.RawMessage `json:"params"`
		Data    string          `json:"data,omitempty"`
	}{specFormat, kind.Name(), version, seed, pj, data})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(doc)
	return hex.EncodeToString(sum[:]), nil
}

// Encode writes the spec back as TOML; loading the result (from the
// spec's directory, where its relative data paths resolve) gives a spec
// with the same name, seed, parameters, datasets and hash.
func (s *Spec) Encode(w io.Writer) error {
	doc := struct {
		Kind        string         `toml:"kind"`
		Name        string         `toml:"name"`
		Seed        uint64         `toml:"seed"`
		Description string         `toml:"description,omitempty"`
		Budget      string         `toml:"budget,omitempty"`
		Params      Params         `toml:"params"`
		Datasets    map[string]any `toml:"datasets,omitempty"`
	}{s.Kind.Name(), s.Name, s.Seed, s.Description, "", s.Params, s.decls}
	if s.Budget > 0 {
		doc.Budget = s.Budget.String()
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
		return fmt.Errorf("encode spec %s: %w", s.Name, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// syntaxError turns a TOML parse error into "file:line: syntax error: ...".
func syntaxError(path string, data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line := pe.Position.Line
		// The lexer counts a line once it has read its newline, so an
		// error at the end of line n says n+1; the byte offset does not.
		if st := pe.Position.Start; st >= 0 && st < len(data) {
			line = bytes.Count(data[:st], []byte("\n")) + 1
		}
		return fmt.Errorf("%s:%d: syntax error: %s", path, line, oneLine(pe.Message))
	}
	return fmt.Errorf("%s: syntax error: %s", path, oneLine(err.Error()))
}

// decodeError turns an error of the decoder into "file:line: key: what
// is wrong". Type errors are caught before decoding (tomlDoc.check); what
// is left are the errors of unmarshalers, which carry the key and line
// (an unmarshaler given a whole table names the entry at fault with
// tomlval.SubKey), and numbers out of range of their field.
func decodeError(path string, err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %s", path, oneLine(err.Error()))
	}
	loc := path
	if pe.Position.Line > 0 {
		loc = fmt.Sprintf("%s:%d", path, pe.Position.Line)
	}
	if pe.LastKey == "" {
		return fmt.Errorf("%s: %s", loc, oneLine(pe.Message))
	}
	key, msg := pe.LastKey, oneLine(pe.Message)
	for sub, rest, ok := tomlval.SplitSubKey(msg); ok; sub, rest, ok = tomlval.SplitSubKey(msg) {
		key, msg = key+"."+sub, rest
	}
	return fmt.Errorf("%s: %s: %s", loc, key, msg)
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// safely runs f, turning a panic in kind code into an error.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}
