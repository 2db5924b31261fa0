package harness

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/BurntSushi/toml"

	"privic/internal/tomlval"
)

// Data is how a Registry handles the datasets a spec declares in
// [datasets.NAME] tables. The harness knows nothing of data: it decodes
// each table strictly into a fresh declaration, hands them to Catalog,
// mixes the catalog's Fingerprint into the spec hash and gives the
// catalog to the spec's parameters (DataUser). A registry without Data
// refuses specs that declare datasets.
type Data interface {
	// NewDecl returns a pointer to a fresh declaration struct for one
	// [datasets.NAME] table; its keys are checked as strictly as
	// [params]'s.
	NewDecl() any
	// Catalog checks the declarations, keyed by name, and reads their
	// data; relative paths resolve against dir, the spec's directory.
	// Errors start with the table's key ("datasets.mine.cell_m = 0: ...").
	Catalog(dir string, decls map[string]any) (Catalog, error)
}

// Catalog is the datasets a spec can name, as its Data made them.
type Catalog interface {
	// Fingerprint identifies the declared datasets, the content of their
	// files included ("" when the spec declares none).
	Fingerprint() string
}

// DataUser is implemented by parameters that name datasets: the loader
// gives them the spec's catalog before it calls Validate.
type DataUser interface {
	UseData(Catalog)
}

// WithData makes r handle [datasets.NAME] tables with d, and returns r.
func (r *Registry) WithData(d Data) *Registry {
	r.data = d
	return r
}

// decodeDecls decodes the spec's [datasets.NAME] tables into fresh
// declarations of r's Data; their keys are checked with the parameters'
// (checkKeys).
func (r *Registry) decodeDecls(doc *tomlDoc, tables map[string]toml.Primitive) (map[string]any, error) {
	if len(tables) == 0 {
		return nil, nil
	}
	if r.data == nil {
		return nil, fmt.Errorf("%s: datasets: this program takes no [datasets] tables", doc.path)
	}
	decls := make(map[string]any, len(tables))
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		d := r.data.NewDecl()
		if err := doc.decode(toml.Key{"datasets", name}, tables[name], d); err != nil {
			return nil, err
		}
		decls[name] = d
	}
	return decls, nil
}

// checkDatasetsTables refuses a top-level datasets key that is not a
// table of tables: the decoder would drop `datasets = 5` without a word.
// (A [datasets] entry that is not a table is refused by tomlDoc.check.)
func checkDatasetsTables(path string, generic map[string]any) error {
	if v, ok := generic["datasets"]; ok {
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("%s: datasets: got %s: want tables [datasets.NAME]", path, tomlval.Kind(v))
		}
	}
	return nil
}

// declType is the type of r's declarations (nil without Data).
func (r *Registry) declType() reflect.Type {
	if r.data == nil {
		return nil
	}
	return reflect.TypeOf(r.data.NewDecl())
}

// catalog makes the catalog of the decoded declarations (nil when r has
// no Data); dataDir is where relative data paths resolve.
func (r *Registry) catalog(path string, decls map[string]any, dataDir string) (Catalog, error) {
	if r.data == nil {
		return nil, nil
	}
	if decls == nil {
		decls = map[string]any{}
	}
	cat, err := r.data.Catalog(dataDir, decls)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return cat, nil
}

// specDir is the absolute directory of a spec file, against which its
// relative data paths resolve.
func specDir(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Dir(path)
	}
	return filepath.Dir(abs)
}

// LoadData reads the datasets of the spec at path: its [datasets.NAME]
// tables, checked as strictly as when the spec is run, made into r's
// catalog. The rest of the file is not looked at, so a file of datasets
// alone is fine (privic dataset inspects data this way).
func (r *Registry) LoadData(path string) (Catalog, error) {
	if r.data == nil {
		return nil, fmt.Errorf("%s: this program reads no datasets", path)
	}
	data, err := readSpecFile(path)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Datasets map[string]toml.Primitive `toml:"datasets"`
	}
	doc, err := decodeTOML(path, data, &raw)
	if err != nil {
		return nil, err
	}
	decls, err := r.decodeDecls(doc, raw.Datasets)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(doc.md, "datasets", keyRoot{"datasets", 2, r.declType()}); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return r.catalog(path, decls, specDir(path))
}
