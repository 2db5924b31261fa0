package harness

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"privic/internal/atomicfile"
)

// Output is one experiment's output directory (results/<spec name>/),
// handed to Kind.Finish. Every write through it is atomic, so an
// interrupted Finish leaves complete files or none, and a rerun rewrites
// the same bytes.
type Output struct {
	dir       string
	name      string
	console   *console
	jobTables []string // merged job tables: derived tables may not reuse their names
}

// NewOutput returns an Output writing into dir (created if needed) and
// logging to log (nil: silent). Kinds use it to test Finish on its own.
func NewOutput(dir string, log io.Writer) (*Output, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output %s: %w", dir, err)
	}
	return &Output{dir: dir, name: filepath.Base(dir), console: newConsole(log, 0)}, nil
}

// Dir is the directory's path.
func (o *Output) Dir() string { return o.dir }

// ReadTable reads <name>.csv from the directory: a merged job table (rows
// in plan order) or a table written earlier with WriteTable.
func (o *Output) ReadTable(name string) (*Table, error) {
	if !namePattern.MatchString(name) {
		return nil, fmt.Errorf("read table %q: not a table name (a-z, 0-9, '_', '-')", name)
	}
	return readCSV(filepath.Join(o.dir, name+".csv"), name)
}

// ReadTableAs reads the table called name from out and parses it with
// parse.
func ReadTableAs[T any](out *Output, name string, parse func(*Table) (T, error)) (T, error) {
	t, err := out.ReadTable(name)
	if err != nil {
		var zero T
		return zero, err
	}
	return parse(t)
}

// WriteTable atomically writes a derived table as <t.Name>.csv.
func (o *Output) WriteTable(t Table) error {
	if err := checkTable(t); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if slices.Contains(o.jobTables, t.Name) {
		return fmt.Errorf("write table %s: a job table has that name; give the derived table its own", t.Name)
	}
	return atomicfile.WriteFile(filepath.Join(o.dir, t.Name+".csv"), func(w io.Writer) error { return encodeCSV(w, t) })
}

// Create atomically writes the file rel (slash-separated, inside Dir,
// parent directories created) with the bytes write produces. If write
// fails, nothing is written.
func (o *Output) Create(rel string, write func(w io.Writer) error) error {
	path, err := o.localPath(rel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", rel, err)
	}
	return atomicfile.WriteFile(path, write)
}

// Logf prints an info line, prefixed with the experiment's name (on
// stderr in the CLI; silenced by -q).
func (o *Output) Logf(format string, args ...any) {
	o.console.Logf("%s: %s", o.name, fmt.Sprintf(format, args...))
}

// localPath resolves rel inside the directory, refusing paths that
// leave it or touch the harness's own files.
func (o *Output) localPath(rel string) (string, error) {
	if rel == "" || strings.Contains(rel, `\`) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("create %q: not a relative path inside %s", rel, o.dir)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	first := strings.Split(filepath.ToSlash(clean), "/")[0]
	base := filepath.Base(clean)
	switch {
	case first == jobsDir, clean == specCopy, clean == manifestFile, clean == lockFile, strings.HasPrefix(base, tempPrefix),
		clean == sectionFile, clean == claimsFile, clean == skippedFile:
		return "", fmt.Errorf("create %q: reserved for the harness", rel)
	case strings.HasSuffix(clean, ".csv") && !strings.Contains(clean, string(filepath.Separator)) && slices.Contains(o.jobTables, strings.TrimSuffix(clean, ".csv")):
		return "", fmt.Errorf("create %q: a job table has that name", rel)
	}
	return filepath.Join(o.dir, clean), nil
}

// WriteFileAtomic writes b to path through a temporary file in the same
// directory and a rename, so that readers see the old file or the new one,
// never a partial file.
func WriteFileAtomic(path string, b []byte) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
}
