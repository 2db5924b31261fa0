package resolution

import (
	"os"
	"path/filepath"
	"testing"

	"privic/harness"
)

// TestCompareLeavesOutLPRowsInMetres: two runs whose mechanisms-full
// optimal jobs hit lp.time_limit at different levels give in_metres.csv
// tables with other LP rows (as between two regenerations on this
// machine: 712 rows against 718); they compare equal, while a change in
// a row of another mechanism is still reported.
func TestCompareLeavesOutLPRowsInMetres(t *testing.T) {
	const head = "study,title,grid,experiment,dataset,cell_m,x_name,x,series,value_name,value_m\n"
	const ba = "mechanisms,Paris,paper,mechanisms-full,paris,479.6,level,1438.8,distortion ba emd_m,emd_m,500.5\n"
	const opt = "mechanisms,Paris,paper,mechanisms-full,paris,479.6,level,1438.8,distortion optimal emd_m,emd_m,390.9\n"
	const spanner = "mechanisms,San Francisco,paper,mechanisms-full,sf,499.4,level,499.4,distortion optimal-spanner1 emd_m,emd_m,196.7\n"
	const bavslap = "ba-vs-lap,Paris,paper,ba-vs-lap,paris,479.6,beta_per_km,0.417,ba,emd_mean_m,772.5\n"
	write := func(rows string) string {
		t.Helper()
		d := filepath.Join(t.TempDir(), "fine-resolution")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"manifest.json": `{"kind": "resolution"}`, "in_metres.csv": head + rows} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	lookup := func(string) (harness.Kind, error) { return Kind(), nil }
	committed := write(bavslap + ba + spanner)
	c, err := harness.Compare(committed, write(bavslap+ba+opt), harness.CompareOptions{Kinds: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Diffs) != 0 || c.Cells == 0 {
		t.Errorf("differences %v (%d cells compared), want none: only LP rows differ", c.Diffs, c.Cells)
	}
	c, err = harness.Compare(committed, write(bavslap+"mechanisms,Paris,paper,mechanisms-full,paris,479.6,level,1438.8,distortion ba emd_m,emd_m,500.6\n"+opt), harness.CompareOptions{Kinds: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Diffs) != 1 {
		t.Errorf("differences %v, want one: BA's row changed", c.Diffs)
	}
}
