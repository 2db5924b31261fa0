package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"privic/internal/atomicfile"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// setup makes a directory holding t.csv = "old" and, as a subdirectory
// that no file can be renamed over, busy/ (with a file in it).
func setup(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "busy", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// TestWriteFile: both writers replace the content and give mode 0644.
func TestWriteFile(t *testing.T) {
	for name, write := range map[string]func(string, func(io.Writer) error) error{
		"WriteFile": atomicfile.WriteFile, "WriteFileNoSync": atomicfile.WriteFileNoSync,
	} {
		dir, path := setup(t)
		big := strings.Repeat("new", 10000) // more than the buffer holds
		if err := write(path, func(w io.Writer) error { _, err := io.WriteString(w, big); return err }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != big {
			t.Errorf("%s: target holds %d bytes, want %d", name, len(b), len(big))
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", name, st.Mode())
		}
		if got := names(t, dir); !slices.Equal(got, []string{"busy", "t.csv"}) {
			t.Errorf("%s: directory holds %q", name, got)
		}
	}
}

// TestFailuresLeaveNoTemp covers every error path a test can reach: the
// writer fails (after more than a buffer of data), the rename fails (the
// target is a non-empty directory), the directory does not exist. Each
// leaves the old target and no temporary
// file, and names the target in a one-line error.
func TestFailuresLeaveNoTemp(t *testing.T) {
	fire := errors.New("disk on fire")
	cases := []struct {
		name   string
		target string // relative to the directory
		run    func(path string) error
		want   string
	}{
		{"writer fails", "t.csv", func(path string) error {
			return atomicfile.WriteFile(path, func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("new", 10000))
				return fire
			})
		}, "disk on fire"},
		{"writer fails, no sync", "t.csv", func(path string) error {
			return atomicfile.WriteFileNoSync(path, func(w io.Writer) error { return fire })
		}, "disk on fire"},
		{"rename fails", "busy", func(path string) error {
			return atomicfile.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
		}, ""},
		{"commit fails", "busy", func(path string) error {
			f, err := atomicfile.Create(path)
			if err != nil {
				return err
			}
			defer f.Abort()
			io.WriteString(f, "new")
			return f.Commit()
		}, ""},
		{"no directory", "nowhere/t.csv", func(path string) error {
			return atomicfile.WriteFile(path, func(w io.Writer) error { return nil })
		}, "no such file or directory"},
	}
	for _, c := range cases {
		dir, _ := setup(t)
		path := filepath.Join(dir, c.target)
		err := c.run(path)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "write "+path+": ") || !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\n") || strings.Contains(msg, atomicfile.TempPrefix) {
			t.Errorf("%s: error %q, want one line \"write %s: ...%s...\" without the temporary name", c.name, msg, path, c.want)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "t.csv")); string(b) != "old" {
			t.Errorf("%s: target changed to %d bytes", c.name, len(b))
		}
		if got := names(t, dir); !slices.Equal(got, []string{"busy", "t.csv"}) {
			t.Errorf("%s: directory holds %q after the failure", c.name, got)
		}
		if got := names(t, filepath.Join(dir, "busy")); !slices.Equal(got, []string{"x"}) {
			t.Errorf("%s: busy/ holds %q", c.name, got)
		}
	}
}

// TestCreateAllOrNothing: replacements committed together, as a writer
// of several files does once it knows all of them are good, and an
// abandoned set that leaves every target as it was.
func TestCreateAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	open := func() []*atomicfile.File {
		var fs []*atomicfile.File
		for _, p := range paths {
			f, err := atomicfile.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(f, filepath.Base(p))
			fs = append(fs, f)
		}
		return fs
	}
	for _, f := range open() {
		f.Abort()
		f.Abort()
		if _, err := f.Write([]byte("x")); err == nil || f.WriteByte(1) == nil {
			t.Error("Write after Abort accepted")
		}
		if err := f.Commit(); err == nil {
			t.Error("Commit after Abort accepted")
		}
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("aborted set left %q", got)
	}
	for _, f := range open() {
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		f.Abort() // a no-op after Commit
		if err := f.Commit(); err == nil {
			t.Error("second Commit accepted")
		}
	}
	for _, p := range paths {
		if b, _ := os.ReadFile(p); string(b) != filepath.Base(p) {
			t.Errorf("%s holds %q", p, b)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("directory holds %q", got)
	}
}
