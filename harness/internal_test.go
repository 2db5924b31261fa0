package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRenderBar(t *testing.T) {
	got := renderBar("privic", 10, 40, 4*time.Second, 80)
	// 10 of 40 done in 4 s: 12 s left at the same rate.
	if !strings.HasSuffix(got, " 10/40 jobs, 4.0s elapsed, ETA 12.0s") || !strings.HasPrefix(got, "privic [") {
		t.Fatalf("bar %q", got)
	}
	inner := got[strings.Index(got, "[")+1 : strings.Index(got, "]")]
	if filled := strings.Count(inner, "="); filled != len(inner)/4 {
		t.Errorf("bar %q: %d of %d filled for 1/4 done", inner, filled, len(inner))
	}
	if len(renderBar("privic", 1, 3, time.Second, 30)) > 30 {
		t.Error("bar wider than the terminal")
	}
	if s := progressText(0, 5, time.Second); !strings.HasSuffix(s, "ETA ?") {
		t.Errorf("no ETA before the first job: %q", s)
	}
	for d, want := range map[time.Duration]string{
		400 * time.Millisecond: "0.4s", 65 * time.Second: "1m05s", 2*time.Hour + 3*time.Minute: "2h03m",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestParseFormatBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"1024": 1024, "8GiB": 8 << 30, "512mib": 512 << 20, "1.5G": 3 << 29, "2GB": 2e9, "10kb": 10e3, "off": 0, "0": 0, " 3 KiB ": 3072,
	} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "-1G", "1.5.5G", "inf", "nan", "1e30GiB", "G"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
	for n, want := range map[int64]string{
		512: "512 B", 1536: "1.5 KiB", 3 << 30: "3 GiB", 1000 << 20: "1000 MiB", 1023 << 10: "1023 KiB", 150 << 20: "150 MiB", 999*1024 + 1000: "1000 KiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	if m := MachineMemory(); m < 0 {
		t.Errorf("MachineMemory = %d", m)
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "jobs"), 0o755)
	for _, f := range []string{".tmp-a.csv-1", "jobs/.tmp-x.json-2", "keep.csv", "jobs/keep.json"} {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
	}
	if err := removeTemps(dir); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{".tmp-a.csv-1": false, "jobs/.tmp-x.json-2": false, "keep.csv": true, "jobs/keep.json": true} {
		_, err := os.Stat(filepath.Join(dir, f))
		if (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", f, err == nil, want)
		}
	}
}

func TestCheckTable(t *testing.T) {
	for _, bad := range []Table{
		{Name: "", Header: []string{"a"}},
		{Name: "A", Header: []string{"a"}},
		{Name: "x.csv", Header: []string{"a"}},
		{Name: "x", Header: nil},
		{Name: "x", Header: []string{"a", "a"}},
		{Name: "x", Header: []string{"a", ""}},
		{Name: "x", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}, {"1"}}},
	} {
		if err := checkTable(bad); err == nil {
			t.Errorf("checkTable(%+v) accepted", bad)
		}
	}
	if err := checkTable(Table{Name: "emd_by_cycle", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2,3"}}}); err != nil {
		t.Error(err)
	}
}
