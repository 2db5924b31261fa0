package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromLocalCopy runs the whole fetch-data pipeline on a small
// synthetic SNAP file (no network).
func TestFromLocalCopy(t *testing.T) {
	snap := "" +
		"1\t2010-10-18T22:17:43Z\t48.85\t2.35\t1\n" +
		"2\t2010-10-18T22:17:43Z\t37.78\t-122.41\t2\n" +
		"3\t2010-10-18T22:17:43Z\t91\t0\t3\n" +
		"4\t2010-10-18T22:17:43Z\t0\t0\t4\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(snap))
	zw.Close()
	src := filepath.Join(t.TempDir(), "loc.txt.gz")
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log bytes.Buffer
	if err := run(context.Background(), []string{"-from", src, "-out", out}, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for name, want := range map[string]string{"paris_checkins.csv": "48.85,2.35\n", "sf_checkins.csv": "37.78,-122.41\n"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, want := range []string{"NOT verified", "1 malformed", ":3: latitude 91", "documented to have 6442890"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if err := run(context.Background(), []string{"-from", src, "-out", out, "-sha256", strings.Repeat("ab", 32)}, &log); err == nil ||
		!strings.Contains(err.Error(), "expected abab") {
		t.Errorf("wrong -sha256: %v", err)
	}
}
