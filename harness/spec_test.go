package harness_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"privic/harness"
	"privic/harness/internal/testkind"
	"privic/harness/kinds/smoke"
)

const goodSpec = `# a comment
kind = "testkind"
name = "round-trip"
seed = 42
description = "a \"quoted\" description"

[params]
beta = {start = 0.2, stop = 1.0, step = 0.2}
reps = 2
draws = 5
mode = "uniform"
tags = ["a", "b"]

[params.grid]
rows = 4
cols = 5
`

func TestSpecRoundTrip(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	s := mustLoad(t, reg, writeSpec(t, dir, "spec.toml", goodSpec))

	// What was written is what was decoded (independent of the encoder).
	p := s.Params.(*testkind.Params)
	if s.Kind.Name() != "testkind" || s.Name != "round-trip" || s.Seed != 42 || s.Description != `a "quoted" description` {
		t.Fatalf("top level decoded as %q %q %d %q", s.Kind.Name(), s.Name, s.Seed, s.Description)
	}
	want := testkind.Params{Reps: 2, Draws: 5, Mode: "uniform", Tags: []string{"a", "b"}, Grid: testkind.Grid{Rows: 4, Cols: 5}}
	got := *p
	got.Beta = harness.Sweep{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("params decoded as %+v, want %+v", got, want)
	}
	if vals := p.Beta.Values(); !reflect.DeepEqual(vals, []float64{0.2, 0.4, 0.6, 0.8, 1}) {
		t.Fatalf("beta = %v", vals)
	}

	// Encode and load again: same spec, same hash.
	var buf bytes.Buffer
	if err := s.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	s2 := mustLoad(t, reg, writeSpec(t, dir, "again.toml", buf.String()))
	if s2.Hash != s.Hash || s2.Name != s.Name || s2.Seed != s.Seed || s2.Description != s.Description {
		t.Fatalf("round trip changed the spec:\n%s", buf.String())
	}
	if !reflect.DeepEqual(s2.Params, s.Params) {
		t.Fatalf("round trip changed params: %+v vs %+v\n%s", s2.Params, s.Params, buf.String())
	}
	if !strings.Contains(buf.String(), "{start = 0.2, stop = 1.0, step = 0.2}") {
		t.Errorf("range not kept as written:\n%s", buf.String())
	}
}

func TestSpecDefaultsAndHash(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	s := mustLoad(t, reg, writeSpec(t, dir, "my-exp.toml", "kind = \"testkind\"\n"))
	if s.Name != "my-exp" || s.Seed != 0 {
		t.Fatalf("defaults: name %q seed %d", s.Name, s.Seed)
	}
	if !reflect.DeepEqual(s.Params, testkind.New(&testkind.Hooks{}).NewParams()) {
		t.Fatalf("missing [params] should give the defaults, got %+v", s.Params)
	}
	// The hash follows meaning, not form: a list equal to the range, other
	// comments, name and description give the same hash; seed and values
	// do not.
	base := mustLoad(t, reg, writeSpec(t, dir, "a.toml", "kind = \"testkind\"\nseed = 1\n[params]\nbeta = {start = 1, stop = 3, step = 1}\n"))
	same := mustLoad(t, reg, writeSpec(t, dir, "b.toml", "# other\nkind = \"testkind\"\ndescription = \"x\"\nname = \"zz\"\nseed = 1\n[params]\nbeta = [1, 2.0, 3]\n"))
	seed := mustLoad(t, reg, writeSpec(t, dir, "c.toml", "kind = \"testkind\"\nseed = 2\n[params]\nbeta = [1, 2, 3]\n"))
	vals := mustLoad(t, reg, writeSpec(t, dir, "d.toml", "kind = \"testkind\"\nseed = 1\n[params]\nbeta = [1, 2, 4]\n"))
	if base.Hash != same.Hash {
		t.Error("equal meaning, different hash")
	}
	if base.Hash == seed.Hash || base.Hash == vals.Hash {
		t.Error("different seed or values, same hash")
	}
	if len(base.Hash) != 64 {
		t.Errorf("hash %q is not hex SHA-256", base.Hash)
	}
}

// TestSpecErrors checks every validation error: one line, starting with
// the file (and line where the decoder knows it), naming the key and
// saying what is allowed.
func TestSpecErrors(t *testing.T) {
	cases := []struct {
		name, file, body string
		want             []string // substrings, in order
	}{
		{"syntax", "x.toml", "kind = \"testkind\"\nseed = \n", []string{"x.toml:2: syntax error:"}},
		{"syntax-unclosed-table", "x.toml", "kind = \"testkind\"\n[params\n", []string{"x.toml:2: syntax error:"}},
		{"syntax-mid-file", "x.toml", "kind = \"testkind\"\n\n[params]\nreps = 1 2\n", []string{"x.toml:4: syntax error:"}},
		{"syntax-string", "x.toml", "kind = \"testkind\"\n[params]\nmode = \"gauss\nreps = 1\n", []string{"x.toml:3: syntax error:"}},
		{"syntax-escape", "x.toml", "kind = \"testkind\"\ndescription = \"a \\q\"\n", []string{"x.toml:2: syntax error:", "escape"}},
		{"duplicate-key", "x.toml", "kind = \"testkind\"\nkind = \"testkind\"\n", []string{"x.toml:2: syntax error:", "kind"}},
		{"missing-kind", "x.toml", "seed = 1\n", []string{"x.toml: kind: missing", "testkind"}},
		{"unknown-kind", "x.toml", "kind = \"nope\"\n", []string{`x.toml: kind = "nope": unknown kind (known kinds: testkind)`}},
		{"kind-type", "x.toml", "kind = 3\n", []string{"x.toml:1: kind: wrong type: got an integer, want a string"}},
		{"unknown-top", "x.toml", "kind = \"testkind\"\nsede = 1\n", []string{"x.toml: unknown key sede (allowed keys in the top level: kind, name, seed, description, budget, params, datasets)"}},
		{"unknown-table", "x.toml", "kind = \"testkind\"\n[parms]\nbeta = 1\n", []string{"x.toml: unknown key parms (allowed keys in the top level:"}},
		{"unknown-param", "x.toml", "kind = \"testkind\"\n[params]\nbta = 1\n", []string{"x.toml: unknown key params.bta (allowed keys in [params]: beta, reps, draws, mode, fail, panic, hang, sleep_ms, mem_bytes, grid, tags, too_big)"}},
		{"unknown-nested", "x.toml", "kind = \"testkind\"\n[params.grid]\nrows = 2\nheight = 3\n", []string{"x.toml: unknown key params.grid.height (allowed keys in [params.grid]: rows, cols)"}},
		{"unknown-dotted", "x.toml", "kind = \"testkind\"\nparams.grid.depth = 3\n", []string{"unknown key params.grid.depth (allowed keys in [params.grid]: rows, cols)"}},
		{"case-mismatch", "x.toml", "kind = \"testkind\"\n[params]\nBeta = 1\n", []string{"x.toml: unknown key params.Beta (did you mean params.beta? keys are case-sensitive)"}},
		{"case-top", "x.toml", "Kind = \"testkind\"\n", []string{"x.toml: kind: missing"}},
		{"case-top-seed", "x.toml", "kind = \"testkind\"\nSeed = 3\n", []string{"x.toml: unknown key Seed (did you mean seed?"}},
		{"wrong-type-int", "x.toml", "kind = \"testkind\"\n[params]\nreps = \"three\"\n", []string{"x.toml:3: params.reps: wrong type: got a string, want an integer"}},
		{"wrong-type-float-for-int", "x.toml", "kind = \"testkind\"\n[params]\nreps = 2.5\n", []string{"x.toml:3: params.reps: wrong type: got a float, want an integer"}},
		{"wrong-type-table", "x.toml", "kind = \"testkind\"\n[params]\ngrid = 3\n", []string{"x.toml:3: params.grid: wrong type: got an integer, want a table"}},
		{"params-not-table", "x.toml", "kind = \"testkind\"\nparams = 3\n", []string{"x.toml:2: params: wrong type: got an integer, want a table"}},
		{"wrong-type-list", "x.toml", "kind = \"testkind\"\n[params]\ntags = \"a\"\n", []string{"x.toml:3: params.tags: wrong type: got a string, want an array"}},
		{"wrong-type-string", "x.toml", "kind = \"testkind\"\n[params]\nmode = 3\n", []string{"x.toml:3: params.mode: wrong type: got an integer, want a string"}},
		{"wrong-type-elem", "x.toml", "kind = \"testkind\"\n[params]\ntags = [\"a\", 2]\n", []string{"x.toml:3: params.tags[1]: wrong type: got an integer, want a string"}},
		{"wrong-type-nested", "x.toml", "kind = \"testkind\"\n[params.grid]\ncols = 2\nrows = \"2\"\n", []string{"x.toml:4: params.grid.rows: wrong type: got a string, want an integer"}},
		{"wrong-type-inline", "x.toml", "kind = \"testkind\"\n[params]\nreps = 1\ngrid = {rows = 1.5}\n", []string{"x.toml:4: params.grid.rows: wrong type: got a float, want an integer"}},
		{"wrong-type-dotted", "x.toml", "kind = \"testkind\"\nparams.grid.rows = true\n", []string{"x.toml:2: params.grid.rows: wrong type: got a boolean, want an integer"}},
		{"wrong-type-key-order", "x.toml", "kind = \"testkind\"\n[params]\nreps = \"x\"\ndraws = \"y\"\n", []string{"x.toml:4: params.draws: wrong type: got a string, want an integer"}},
		{"wrong-type-top", "x.toml", "kind = \"testkind\"\n\ndescription = 1\n", []string{"x.toml:3: description: wrong type: got an integer, want a string"}},
		{"seed-negative", "x.toml", "kind = \"testkind\"\nseed = -1\n", []string{"x.toml: seed = -1: seed must be an integer in [0, 9223372036854775807]"}},
		{"seed-float", "x.toml", "kind = \"testkind\"\nseed = 1.5\n", []string{"x.toml:2: seed: wrong type: got a float, want an integer"}},
		{"seed-overflow", "x.toml", "kind = \"testkind\"\nseed = 99999999999999999999\n", []string{"x.toml:2: syntax error:"}},
		{"name-bad", "x.toml", "kind = \"testkind\"\nname = \"../up\"\n", []string{`x.toml: name = "../up": names use only a-z, 0-9 and '-'`}},
		{"name-abs", "x.toml", "kind = \"testkind\"\nname = \"/etc\"\n", []string{`x.toml: name = "/etc": names use only`}},
		{"name-upper", "x.toml", "kind = \"testkind\"\nname = \"Paris\"\n", []string{`name = "Paris": names use only`}},
		{"name-empty", "x.toml", "kind = \"testkind\"\nname = \"\"\n", []string{`name = "": names use only`}},
		{"name-long", "x.toml", "kind = \"testkind\"\nname = \"" + strings.Repeat("a", 65) + "\"\n", []string{"at most 64 characters"}},
		{"name-from-file", "My Spec.toml", "kind = \"testkind\"\n", []string{`My Spec.toml: name: the file name gives "My Spec", which is not allowed`}},
		{"name-reserved", "x.toml", "kind = \"testkind\"\nname = \"bench\"\n", []string{`x.toml: name = "bench": reserved`}},
		{"validate-sweep", "x.toml", "kind = \"testkind\"\n[params]\nbeta = [1, 2, 3, -0.2]\n", []string{"x.toml: params.beta[3] = -0.2: beta must be > 0"}},
		{"validate-int", "x.toml", "kind = \"testkind\"\n[params]\nreps = 0\n", []string{"x.toml: params.reps = 0: reps must be in [1, 1000]"}},
		{"validate-nested", "x.toml", "kind = \"testkind\"\n[params.grid]\nrows = 0\n", []string{"x.toml: params.grid.rows = 0: rows must be >= 1"}},
		{"validate-enum", "x.toml", "kind = \"testkind\"\n[params]\nmode = \"cauchy\"\n", []string{`x.toml: params.mode = "cauchy": mode must be "gauss" or "uniform"`}},
		{"sweep-empty", "x.toml", "kind = \"testkind\"\n[params]\nbeta = []\n", []string{"x.toml:3: params.beta: empty sweep"}},
		{"sweep-string", "x.toml", "kind = \"testkind\"\n[params]\nbeta = \"1\"\n", []string{"x.toml:3: params.beta: got a string: a sweep is a number, a list of numbers or {start, stop, step}"}},
		{"sweep-elem", "x.toml", "kind = \"testkind\"\n[params]\nbeta = [1, \"2\"]\n", []string{"x.toml:3: params.beta: [1] is a string"}},
		{"sweep-nan", "x.toml", "kind = \"testkind\"\n[params]\nbeta = [1, nan]\n", []string{"params.beta: [1] = NaN: sweep values must be finite numbers"}},
		{"sweep-inf", "x.toml", "kind = \"testkind\"\n[params]\nbeta = inf\n", []string{"params.beta: Inf: sweep values must be finite numbers"}},
		{"sweep-dup", "x.toml", "kind = \"testkind\"\n[params]\nbeta = [1, 2, 1.0]\n", []string{"params.beta: [2] = 1 repeats [0]: sweep values must be distinct"}},
		{"range-step0", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 2, step = 0}\n", []string{"params.beta: range step = 0: step must be > 0"}},
		{"range-backwards", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 2, stop = 1, step = 0.5}\n", []string{"params.beta: range stop = 1 < start = 2: stop must be >= start"}},
		{"range-missing", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 2}\n", []string{"params.beta: range needs start, stop and step; step is missing"}},
		{"range-extra", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 2, step = 1, num = 3}\n", []string{`params.beta: unknown key "num" in range (allowed: start, stop, step)`}},
		{"range-huge", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 2, step = 1e-9}\n", []string{"params.beta: range gives more than 100000 values"}},
		{"range-nan", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = nan, stop = 2, step = 1}\n", []string{"params.beta: start = NaN: sweep values must be finite numbers"}},
		{"range-type", "x.toml", "kind = \"testkind\"\n[params]\nbeta = {start = \"a\", stop = 2, step = 1}\n", []string{"params.beta: range start is a string: want a number"}},
	}
	reg := registry(t, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeSpec(t, t.TempDir(), c.file, c.body)
			_, err := reg.Load(path)
			if err == nil {
				t.Fatalf("loaded without error:\n%s", c.body)
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error is not one line: %q", msg)
			}
			dir := filepath.Dir(path) + string(filepath.Separator)
			rel := strings.TrimPrefix(msg, dir)
			if rel == msg {
				t.Fatalf("error does not start with the file: %q", msg)
			}
			rest := rel
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q lacks %q", rel, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	reg := registry(t, nil)
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.toml"), "missing.toml: cannot read spec: no such file or directory"},
		{dir, "is a directory, not a spec file"},
	} {
		_, err := reg.Load(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	big := writeSpec(t, dir, "big.toml", "kind = \"testkind\"\n"+strings.Repeat("# padding\n", 200000))
	if _, err := reg.Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge file: %v", err)
	}
}

func TestRegistryErrors(t *testing.T) {
	if _, err := harness.NewRegistry(testkind.New(&testkind.Hooks{}), testkind.New(&testkind.Hooks{})); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("duplicate kind: %v", err)
	}
	if _, err := harness.NewRegistry(testkind.New(&testkind.Hooks{KindName: "Bad Name"})); err == nil {
		t.Error("bad kind name accepted")
	}
	reg := registry(t, nil)
	if _, err := reg.Lookup("zzz"); err == nil || !strings.Contains(err.Error(), "known kinds: testkind") {
		t.Errorf("Lookup: %v", err)
	}
}

func TestParamKeys(t *testing.T) {
	got := strings.Join(harness.ParamKeys(testkind.New(&testkind.Hooks{})), " ")
	want := "beta reps draws mode fail panic hang sleep_ms mem_bytes grid.rows grid.cols tags too_big"
	if got != want {
		t.Errorf("ParamKeys = %s, want %s", got, want)
	}
}

// fzRegistry registers the harness's own kinds (testkind, smoke), whose
// parameters cover sweeps, nested tables, lists and enums.
func fzRegistry(t testing.TB) *harness.Registry {
	kinds := append([]harness.Kind{testkind.New(&testkind.Hooks{})}, smoke.Kind())
	reg, err := harness.NewRegistry(kinds...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// FuzzLoad: the spec loader never panics and is deterministic; an error
// is one line starting with the file's path and never a panic caught
// inside kind code; a spec it accepts has a valid name and validated
// parameters, and written back with Encode it loads to the same hash.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"", "kind = \"testkind\"\n", "kind = \"smoke\"\n[params]\nsamples = [10, 20]\nreps = 2\n",
		"kind = \"testkind\"\nname = \"a-b\"\nseed = 7\ndescription = \"d\"\n[params]\nbeta = {start = 0.2, stop = 1.0, step = 0.2}\nreps = 2\ndraws = 3\nmode = \"uniform\"\ntags = [\"x\"]\n[params.grid]\nrows = 2\ncols = 3\n",
		"kind = \"testkind\"\n[params]\nbeta = [1, nan]\n", "kind = \"testkind\"\n[params]\nbeta = -inf\n",
		"kind = \"testkind\"\n[params]\nbeta = {start = 1e308, stop = 1.7e308, step = 1e300}\n",
		"kind = \"testkind\"\n[params]\nbeta = {start = -1, stop = 1, step = 0.1}\n",
		"kind = \"testkind\"\n[params]\nbeta = {start = 0, stop = 1e-300, step = 5e-324}\n",
		"kind = \"testkind\"\nseed = 9223372036854775807\n", "kind = \"testkind\"\nseed = -9223372036854775808\n",
		"kind = \"testkind\"\nname = \"../x\"\n", "kind = \"testkind\"\nname = \"/tmp/x\"\n",
		"kind = \"testkind\"\n[params]\nreps = 0\n", "kind = \"testkind\"\n[params]\nBeta = 1\n",
		"kind = \"testkind\"\n[params.grid]\nrows = 1\n[params.grid.x]\n", "kind = \"testkind\"\n[[params]]\n",
		"kind = \"testkind\"\nparams = {beta = 1, grid = {rows = 2}}\n", "kind = \"testkind\"\n[params]\ntags = [1, \"a\"]\n",
		"kind = \"testkind\"\n[params]\ngrid = [{rows = 1}]\n", "kind = 'testkind'\n\"params\".beta = 1\n",
		"kind = \"\"\"testkind\"\"\"\n[params]\nmode = '''gauss'''\n", "kind = \"testkind\"\n[params]\nmem_bytes = 1e3\n",
		"kind = \"testkind\"\nseed = 0x10\nparams.reps = 0o7\n", "kind = \"testkind\"\ndescription = 1979-05-27T07:32:00Z\n",
		"\xef\xbb\xbfkind = \"testkind\"\n", "kind = \"testkind\"\r\n[params]\r\nreps = 2\r\n", "kind = \"testkind\"\x00\n",
		"[params]\nbeta = 1\n[params]\nbeta = 2\n", "kind = \"smoke\"\n[params]\nsamples = 1e9\n",
	} {
		f.Add([]byte(s))
	}
	// The project's real specs (other kinds: unknown here, but full of syntax).
	if files, _ := filepath.Glob(filepath.Join("..", "experiments", "*.toml")); len(files) > 0 {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	reg := fzRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "dir/fuzz-spec.toml"
		s, err := reg.Parse(path, data)
		s2, err2 := reg.Parse(path, data)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || (err == nil && s.Hash != s2.Hash) {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, path) {
				t.Fatalf("error does not start with the file: %q", msg)
			}
			if strings.Contains(msg, "panic: ") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("error reports a panic in kind code: %q", msg)
			}
			return
		}
		if s.Name == "" || strings.ContainsAny(s.Name, `/\.`) || s.Name != strings.ToLower(s.Name) {
			t.Fatalf("accepted name %q could leave results/", s.Name)
		}
		if !filepath.IsLocal(s.Name) {
			t.Fatalf("accepted name %q is not a local path", s.Name)
		}
		if err := s.Params.Validate(); err != nil {
			t.Fatalf("accepted params fail Validate: %v", err)
		}
		var buf bytes.Buffer
		if err := s.Encode(&buf); err != nil {
			t.Fatalf("accepted spec does not encode: %v", err)
		}
		back, err := reg.Parse(path, buf.Bytes())
		if err != nil {
			t.Fatalf("encoded spec does not load: %v\n%s", err, buf.String())
		}
		if back.Hash != s.Hash || back.Name != s.Name || back.Seed != s.Seed || back.Description != s.Description {
			t.Fatalf("round trip changed the spec (%s %q %d) -> (%s %q %d):\n%s", s.Hash, s.Name, s.Seed, back.Hash, back.Name, back.Seed, buf.String())
		}
		if !reflect.DeepEqual(valuesOf(back.Params), valuesOf(s.Params)) {
			t.Fatalf("round trip changed the parameters: %+v -> %+v", s.Params, back.Params)
		}
	})
}

// valuesOf flattens the sweeps of testkind and smoke parameters (their
// other fields compare with DeepEqual directly).
func valuesOf(p harness.Params) any {
	switch q := p.(type) {
	case *testkind.Params:
		c := *q
		v := c.Beta.Values()
		c.Beta = harness.Sweep{}
		return []any{c, v}
	case *smoke.Params:
		c := *q
		v := c.Samples.Values()
		c.Samples = harness.Sweep{}
		return []any{c, v}
	}
	return p
}
