package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"privic/internal/atomicfile"
)

// Layout of an experiment directory results/<name>/:
//
//	spec.toml        copy of the spec that produced it
//	jobs/<h>.json    one record per job (h = first 16 hex digits of
//	                 SHA-256(key)), tagged with the spec hash
//	<table>.csv      merged job tables, rows in plan order
//	manifest.json    provenance and timings
//	(anything Finish writes: derived tables, figures, notes)
const (
	jobsDir      = "jobs"
	specCopy     = "spec.toml"
	manifestFile = "manifest.json"
	lockFile     = ".lock"
	tempPrefix   = atomicfile.TempPrefix
	recordFormat = 1
)

// removeTemps deletes temporary files left under dir by a run that was
// killed mid-write. The caller holds dir's lock, so no live writer owns them.
func removeTemps(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), tempPrefix) {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove stale temporary file: %w", err)
			}
		}
		return nil
	})
}

// jobFileName is the store's file name for a job key.
func jobFileName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8]) + ".json"
}

// record is one stored job result.
type record struct {
	Format   int           `json:"format"`
	SpecHash string        `json:"spec_hash"`
	Key      string        `json:"key"`
	Seconds  float64       `json:"seconds"`
	Tables   []recordTable `json:"tables"`
}

type recordTable struct {
	Name   string     `json:"name"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

func newRecord(hash, key string, seconds float64, tables []Table) *record {
	r := &record{Format: recordFormat, SpecHash: hash, Key: key, Seconds: seconds, Tables: make([]recordTable, len(tables))}
	for i, t := range tables {
		rows := t.Rows
		if rows == nil {
			rows = [][]string{}
		}
		r.Tables[i] = recordTable{Name: t.Name, Header: t.Header, Rows: rows}
	}
	return r
}

func writeRecord(path string, r *record) error {
	return atomicfile.WriteFileNoSync(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		return enc.Encode(r)
	})
}

// readRecord returns the stored record at path if it belongs to the job
// (key) of the spec (hash); a missing, foreign or damaged file gives nil
// and the reason, so the job is recomputed.
func readRecord(path, hash, key string) (*record, string) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "missing"
		}
		return nil, err.Error()
	}
	var r record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, "damaged: " + err.Error()
	}
	switch {
	case r.Format != recordFormat:
		return nil, fmt.Sprintf("record format %d", r.Format)
	case r.Key != key:
		return nil, "belongs to another job"
	case r.SpecHash != hash:
		return nil, "from another version of the spec"
	}
	for _, t := range r.Tables {
		if err := checkTable(Table{Name: t.Name, Header: t.Header, Rows: t.Rows}); err != nil {
			return nil, "damaged: " + err.Error()
		}
	}
	return &r, ""
}

// checkTable enforces what every stored table satisfies.
func checkTable(t Table) error {
	if t.err != nil {
		return t.err
	}
	if !namePattern.MatchString(t.Name) {
		return fmt.Errorf("table name %q: use only a-z, 0-9, '_' and '-'", t.Name)
	}
	if len(t.Header) == 0 {
		return fmt.Errorf("table %s: empty header", t.Name)
	}
	seen := make(map[string]bool, len(t.Header))
	for _, h := range t.Header {
		if h == "" || seen[h] {
			return fmt.Errorf("table %s: header %q: column names must be non-empty and distinct", t.Name, t.Header)
		}
		seen[h] = true
	}
	for i, row := range t.Rows {
		if len(row) != len(t.Header) {
			return fmt.Errorf("table %s: row %d has %d fields, the header has %d", t.Name, i, len(row), len(t.Header))
		}
	}
	return nil
}

// encodeCSV writes t as CSV with "\n" line ends, the same bytes on every
// platform.
func encodeCSV(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

func readCSV(path, name string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", name, err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.ReuseRecord = false
	all, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", name, err)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("read table %s: %s is empty (no header)", name, path)
	}
	rows := all[1:]
	if rows == nil {
		rows = [][]string{}
	}
	return &Table{Name: name, Header: all[0], Rows: rows}, nil
}

// mergeTables concatenates the records' tables in record order.
func mergeTables(recs []*record) ([]Table, error) {
	byName := map[string]*Table{}
	first := map[string]string{}
	var names []string
	for _, r := range recs {
		for _, t := range r.Tables {
			m, ok := byName[t.Name]
			if !ok {
				m = &Table{Name: t.Name, Header: t.Header, Rows: [][]string{}}
				byName[t.Name] = m
				first[t.Name] = r.Key
				names = append(names, t.Name)
			} else if !slices.Equal(m.Header, t.Header) {
				return nil, fmt.Errorf("job %s: table %s has header %q but job %s gave %q", r.Key, t.Name, t.Header, first[t.Name], m.Header)
			}
			m.Rows = append(m.Rows, t.Rows...)
		}
	}
	slices.Sort(names)
	out := make([]Table, len(names))
	for i, n := range names {
		out[i] = *byName[n]
	}
	return out, nil
}

// ReadSection reads the Section an experiment directory holds. A missing
// file contributes nothing; found is false when the directory has none of
// the three. A malformed file contributes nothing and is named in err,
// while the rest is still returned.
func ReadSection(dir string) (s Section, found bool, err error) {
	var problems []error
	b, rerr := os.ReadFile(filepath.Join(dir, sectionFile))
	switch {
	case rerr == nil:
		found = true
		s.Markdown = string(b)
	case !errors.Is(rerr, fs.ErrNotExist):
		problems = append(problems, fmt.Errorf("%s: %w", sectionFile, rerr))
	}
	rows, ok, rerr := readSmallCSV(filepath.Join(dir, claimsFile), claimsHeader, oldClaimsHeader)
	found = found || ok
	if rerr != nil {
		problems = append(problems, rerr)
	}
	for _, r := range rows {
		if len(r) == len(oldClaimsHeader) {
			s.Claims = append(s.Claims, Claim{Claim: r[0], Evidence: r[1], Verdict: r[2]})
			continue
		}
		s.Claims = append(s.Claims, Claim{Claim: r[0], Data: r[1], Rule: r[2], Simulations: r[3], Evidence: r[4], Verdict: r[5], Reason: r[6]})
	}
	rows, ok, rerr = readSmallCSV(filepath.Join(dir, skippedFile), skippedHeader)
	found = found || ok
	if rerr != nil {
		problems = append(problems, rerr)
	}
	for _, r := range rows {
		s.Skipped = append(s.Skipped, Skip{Figure: r[0], Reason: r[1]})
	}
	return s, found, errors.Join(problems...)
}

// readSmallCSV reads a report CSV with the given header, or one of the
// older headers it replaced (its rows then have that header's width); a
// missing file gives no rows, no error and found false.
func readSmallCSV(path string, header []string, older ...[]string) (rows [][]string, found bool, err error) {
	name := filepath.Base(path)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = 0 // every record as wide as the header
	recs, err := r.ReadAll()
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) > 0 && slices.Equal(recs[0], header) {
		return recs[1:], true, nil
	}
	for _, h := range older {
		if len(recs) > 0 && slices.Equal(recs[0], h) {
			return recs[1:], true, nil
		}
	}
	return nil, true, fmt.Errorf("%s: want header %s", name, strings.Join(header, ","))
}
