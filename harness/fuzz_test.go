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
