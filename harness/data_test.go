package harness_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"privic/harness"
)

// fileDecl is the declaration of the fake Data below: a file whose
// content is the dataset.
type fileDecl struct {
	File  string `toml:"file"`
	Scale int    `toml:"scale"`
}

// fileData reads each declared file; the fingerprint hashes the
// declarations and the files' content.
type fileData struct{}

func (fileData) NewDecl() any { return &fileDecl{} }

func (fileData) Catalog(dir string, decls map[string]any) (harness.Catalog, error) {
	var parts []string
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for k := range decls {
			if !yield(k) {
				return
			}
		}
	}) {
		d := decls[n].(*fileDecl)
		if d.Scale < 0 {
			return nil, fmt.Errorf("datasets.%s.scale = %d: must be >= 0", n, d.Scale)
		}
		b, err := os.ReadFile(filepath.Join(dir, d.File))
		if err != nil {
			return nil, fmt.Errorf("datasets.%s.file: %v", n, err)
		}
		parts = append(parts, fmt.Sprintf("%s:%s:%d:%x", n, d.File, d.Scale, sha256.Sum256(b)))
	}
	return fileCatalog(strings.Join(parts, ";")), nil
}

type fileCatalog string

func (c fileCatalog) Fingerprint() string {
	if c == "" {
		return ""
	}
	s := sha256.Sum256([]byte(c))
	return hex.EncodeToString(s[:])
}

const dataSpec = "kind = \"testkind\"\n[datasets.mine]\nfile = \"v.txt\"\nscale = 2\n[params]\nbeta = [1, 2]\nreps = 2\n"

func dataRegistry(t *testing.T) *harness.Registry {
	return registry(t, nil).WithData(fileData{})
}

// TestDatasetsInTheHash: the spec hash covers the declared datasets and
// the content of their files, and is unchanged for a spec without them.
func TestDatasetsInTheHash(t *testing.T) {
	dir := t.TempDir()
	writeSpec(t, dir, "v.txt", "one")
	path := writeSpec(t, dir, "d.toml", dataSpec)
	reg := dataRegistry(t)
	a := mustLoad(t, reg, path)
	if a.DataDir != dir || a.Data == nil || a.Data.Fingerprint() == "" {
		t.Fatalf("data dir %q, catalog %v", a.DataDir, a.Data)
	}
	if b := mustLoad(t, reg, path); b.Hash != a.Hash {
		t.Error("the same spec and data hash differently")
	}
	writeSpec(t, dir, "v.txt", "two")
	if b := mustLoad(t, reg, path); b.Hash == a.Hash {
		t.Error("a changed data file keeps the spec hash")
	}
	writeSpec(t, dir, "d.toml", strings.Replace(dataSpec, "scale = 2", "scale = 3", 1))
	if b := mustLoad(t, reg, path); b.Hash == a.Hash {
		t.Error("a changed declaration keeps the spec hash")
	}
	// Without datasets the hash is what a registry without Data gives.
	plain := writeSpec(t, dir, "p.toml", "kind = \"testkind\"\n[params]\nbeta = [1, 2]\nreps = 2\n")
	if x, y := mustLoad(t, reg, plain), mustLoad(t, registry(t, nil), plain); x.Hash != y.Hash || x.DataDir != "" {
		t.Errorf("a spec without datasets: hash %s with Data, %s without (data dir %q)", x.Hash, y.Hash, x.DataDir)
	}
}

func TestDatasetsTableErrors(t *testing.T) {
	dir := t.TempDir()
	writeSpec(t, dir, "v.txt", "one")
	for _, c := range []struct {
		reg  *harness.Registry
		body string
		want string
	}{
		{registry(t, nil), dataSpec, "d.toml: datasets: this program takes no [datasets] tables"},
		{dataRegistry(t), strings.Replace(dataSpec, "scale = 2", "scal = 2", 1), "d.toml: unknown key datasets.mine.scal (allowed keys in [datasets.mine]: file, scale)"},
		{dataRegistry(t), strings.Replace(dataSpec, "scale = 2", "Scale = 2", 1), "did you mean datasets.mine.scale?"},
		{dataRegistry(t), strings.Replace(dataSpec, "scale = 2", "scale = \"2\"", 1), "d.toml:4: datasets.mine.scale: wrong type: got a string, want an integer"},
		{dataRegistry(t), strings.Replace(dataSpec, "[datasets.mine]\nfile = \"v.txt\"\nscale = 2\n", "datasets.mine = 3\n", 1), "d.toml:2: datasets.mine: wrong type: got an integer, want a table"},
		{dataRegistry(t), strings.Replace(dataSpec, "scale = 2", "scale = -1", 1), "d.toml: datasets.mine.scale = -1: must be >= 0"},
		{dataRegistry(t), strings.Replace(dataSpec, "v.txt", "w.txt", 1), "d.toml: datasets.mine.file:"},
		{dataRegistry(t), strings.Replace(dataSpec, "[datasets.mine]", "datasets = 3\n[x]", 1), "d.toml"},
	} {
		path := writeSpec(t, dir, "d.toml", c.body)
		_, err := c.reg.Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", c.body, err, c.want)
		}
	}
	// LoadData reads the datasets of a file that has nothing else.
	path := writeSpec(t, dir, "only.toml", "[datasets.mine]\nfile = \"v.txt\"\n")
	cat, err := dataRegistry(t).LoadData(path)
	if err != nil || cat.Fingerprint() == "" {
		t.Errorf("LoadData: %v, %v", cat, err)
	}
	if _, err := dataRegistry(t).LoadData(writeSpec(t, dir, "bad.toml", "[datasets.mine]\nfiles = \"v.txt\"\n")); err == nil ||
		!strings.Contains(err.Error(), "unknown key datasets.mine.files") {
		t.Errorf("LoadData of an unknown key: %v", err)
	}
}

// TestMergeFindsTheData: shards record where the spec's relative data
// paths resolved, so a merge (which reads the spec from its copy in the
// shard directory) finds the data and the same hash.
func TestMergeFindsTheData(t *testing.T) {
	specs, work := t.TempDir(), t.TempDir()
	writeSpec(t, specs, "v.txt", "one")
	path := writeSpec(t, specs, "d.toml", dataSpec)
	reg := dataRegistry(t)
	s := mustLoad(t, reg, path)
	var shards []string
	for i := range 2 {
		out := filepath.Join(work, fmt.Sprintf("shard%d", i))
		sh, err := harness.ParseShard(fmt.Sprintf("%d/2", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := harness.Run(context.Background(), []*harness.Spec{s}, harness.RunOptions{Out: out, Shard: sh}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, out)
	}
	res, err := harness.Merge(context.Background(), reg, shards, harness.RunOptions{Out: filepath.Join(work, "merged")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Manifest.SpecHash != s.Hash {
		t.Fatalf("merged %v, want the spec's hash %s", res, s.Hash)
	}
}
