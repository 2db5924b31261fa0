package harness_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/harness"
	"privic/harness/internal/testkind"
)

// writeExperiment writes an experiment directory holding a manifest of
// kind "testkind" and the given CSV files.
func writeExperiment(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files["manifest.json"] = `{"format": 1, "name": "exp", "kind": "testkind", "git_commit": "unknown"}`
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCompare(t *testing.T) {
	const base = "city,value,seconds,status\nparis,1.5,0.1,ok\nsf,2.25,3,ok\n"
	const spread = "emd_mean,emd_sd,emd_mean_m,emd_sd_m\n2,1e-06,1000,5e-04\n3,0.5,1500,250\n"
	volatile := &testkind.Hooks{Volatile: func(sides ...harness.TableSet) []harness.Exclusion {
		return []harness.Exclusion{
			harness.ColumnRule("t", "timings", "seconds"),
			{Table: "t", Why: "cut by a time limit", Rows: func(row map[string]string) bool { return row["status"] == "time limit" }},
			{Table: "load", Why: "the machine's load"},
		}
	}}
	for _, tc := range []struct {
		name  string
		hooks *testkind.Hooks
		old   map[string]string
		new   map[string]string
		want  []string // substrings of the differences; none: OK
		cells int
	}{
		{name: "equal", old: map[string]string{"t.csv": base}, new: map[string]string{"t.csv": base}, cells: 8},
		{name: "within tolerance", old: map[string]string{"t.csv": base},
			new: map[string]string{"t.csv": strings.Replace(base, "2.25", "2.2500000000001", 1)}, cells: 8},
		{name: "number beyond tolerance", old: map[string]string{"t.csv": base},
			new:  map[string]string{"t.csv": strings.Replace(base, "2.25", "2.2501", 1)},
			want: []string{"t.csv", "value: up to 4.44e-05 relative (line 3: 2.25 -> 2.2501)"}},
		{name: "text", old: map[string]string{"t.csv": base},
			new:  map[string]string{"t.csv": strings.Replace(base, "paris", "lyon", 1)},
			want: []string{`city: line 2 "paris" -> "lyon"`}},
		{name: "NaN against a number", old: map[string]string{"t.csv": base},
			new:  map[string]string{"t.csv": strings.Replace(base, "1.5", "NaN", 1)},
			want: []string{"value: up to +Inf relative"}},
		{name: "timings differ, no rules", old: map[string]string{"t.csv": base},
			new:  map[string]string{"t.csv": strings.Replace(base, "0.1", "0.2", 1)},
			want: []string{"seconds: up to 0.5 relative"}},
		{name: "timings differ, volatile", hooks: volatile, old: map[string]string{"t.csv": base},
			new: map[string]string{"t.csv": strings.Replace(base, "0.1", "0.2", 1)}, cells: 6},
		{name: "time-limited row on one side", hooks: volatile,
			old: map[string]string{"t.csv": base + "lyon,NaN,60,time limit\n"},
			new: map[string]string{"t.csv": base}, cells: 6},
		{name: "volatile table", hooks: volatile,
			old: map[string]string{"t.csv": base, "load.csv": "load\n1.5\n"},
			new: map[string]string{"t.csv": base, "load.csv": "load\n7\n"}, cells: 6},
		// The fine Paris frontier's emd_sd moved 9.4e-8 relative to itself
		// when the EMD of each sample moved in its 13th digit.
		{name: "deviation within tolerance of its mean", old: map[string]string{"s.csv": spread},
			new: map[string]string{"s.csv": strings.Replace(spread, "1e-06", "1.0001e-06", 1)}, cells: 8},
		{name: "deviation beyond tolerance of its mean", old: map[string]string{"s.csv": spread},
			new:  map[string]string{"s.csv": strings.Replace(spread, "1e-06", "2e-06", 1)},
			want: []string{"emd_sd: up to 5e-07 relative (line 2: 1e-06 -> 2e-06)"}}, // of the mean, 2
		{name: "deviation with a unit suffix", old: map[string]string{"s.csv": spread},
			new: map[string]string{"s.csv": strings.Replace(spread, "5e-04", "5.0001e-04", 1)}, cells: 8},
		{name: "deviation without its mean", old: map[string]string{"s.csv": "sd\n1e-06\n"},
			new:  map[string]string{"s.csv": "sd\n1.0001e-06\n"},
			want: []string{"sd: up to 0.0001 relative"}},
		{name: "rows", old: map[string]string{"t.csv": base}, new: map[string]string{"t.csv": base + "lyon,1,1,ok\n"},
			want: []string{"2 rows committed, 3 fresh"}},
		{name: "header", old: map[string]string{"t.csv": base}, new: map[string]string{"t.csv": strings.Replace(base, "value", "val", 1)},
			want: []string{"columns differ"}},
		{name: "table missing", old: map[string]string{"t.csv": base, "u.csv": "a\n1\n"}, new: map[string]string{"t.csv": base},
			want: []string{"u.csv", "not written by the fresh run"}},
		{name: "table added", old: map[string]string{"t.csv": base}, new: map[string]string{"t.csv": base, "u.csv": "a\n1\n"},
			want: []string{"u.csv", "not committed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			old := writeExperiment(t, filepath.Join(dir, "old", "exp"), tc.old)
			cur := writeExperiment(t, filepath.Join(dir, "new", "exp"), tc.new)
			hooks := tc.hooks
			if hooks == nil {
				hooks = &testkind.Hooks{}
			}
			reg := registry(t, hooks)
			c, err := harness.Compare(old, cur, harness.CompareOptions{Kinds: reg.Lookup})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range c.Diffs {
				got = append(got, d.Table+": "+d.What)
			}
			all := strings.Join(got, "\n")
			if len(tc.want) == 0 {
				if !c.OK() {
					t.Errorf("differences %q, want none", all)
				}
				if c.Cells != tc.cells {
					t.Errorf("%d cells compared, want %d", c.Cells, tc.cells)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("differences %q do not say %q", all, w)
				}
			}
			if tc.hooks == volatile && len(c.Excluded) != 3 {
				t.Errorf("excluded %q, want the 3 volatile parts listed", c.Excluded)
			}
		})
	}
}
