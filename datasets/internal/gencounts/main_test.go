package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/datasets"
)

func sharedDir(t *testing.T) string {
	t.Helper()
	root, err := datasets.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := datasets.SharedDir(root)
	if _, err := os.Stat(filepath.Join(dir, "datasets", "gowalla", "paris_checkins.csv")); err != nil {
		t.Skipf("SKIPPING: needs the shared Gowalla subsets in ../shared/datasets/gowalla next to the repository (%v)", err)
	}
	return dir
}

func TestCheckAndWrite(t *testing.T) {
	shared := sharedDir(t)
	var log bytes.Buffer
	// The committed files are up to date (default -shared and -out).
	if err := run([]string{"-check"}, &log); err != nil {
		t.Fatalf("-check: %v\n%s", err, log.String())
	}
	// Writing into a fresh directory gives the embedded bytes.
	out := t.TempDir()
	if err := run([]string{"-shared", shared, "-out", out}, &log); err != nil {
		t.Fatal(err)
	}
	for _, c := range datasets.CityNames() {
		got, err := os.ReadFile(filepath.Join(out, c+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := datasets.EmbeddedCounts(c)
		if !bytes.Equal(got, want) {
			t.Errorf("%s.csv written by gencounts differs from the embedded file", c)
		}
	}
	// A stale file is caught by -check.
	if err := os.WriteFile(filepath.Join(out, "sf.csv"), []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-shared", shared, "-out", out, "-check"}, &log); err == nil || !strings.Contains(err.Error(), "sf.csv differs") {
		t.Errorf("-check on a stale file: %v", err)
	}
	if err := run([]string{"-shared", t.TempDir()}, &log); err == nil {
		t.Error("a shared dir without subsets accepted")
	}
}
