package mechanisms

import (
	"context"
	"encoding/csv"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/reftest"
	"privic/kernels"
)

// toy is a small uneven data set on a 4x5 grid, named paris so that the
// per-city settings of the tests apply to it (a few empty cells, like a
// city), so a whole job runs in milliseconds.
func toy() *datasets.Dataset {
	g := kernels.Grid{Rows: 4, Cols: 5}
	counts := []int{40, 3, 0, 12, 7, 1, 90, 25, 0, 4, 6, 30, 60, 8, 0, 2, 5, 11, 20, 9}
	n := 0
	for _, c := range counts {
		n += c
	}
	return &datasets.Dataset{Name: "paris", Grid: g, Counts: counts, N: n}
}

func toyParams(testing.TB) *params {
	p := defaultParams(builtin())
	p.Cities = []string{"paris"}
	p.Sims = 2
	p.LP = lpParams{Solver: "gonum", Spanner: 1, Coarsen: map[string]int{"paris": 2}}
	p.A = map[string]param.Loc{"paris": param.CellOf(2, 1)}
	p.aCells = map[string]param.Cell{"paris": {2, 1}} // as Validate resolves it
	p.Island.Radius = 1
	return p
}

func col(t *testing.T, tb harness.Table, row []string, name string) string {
	t.Helper()
	return reftest.Cell(t, &tb, row, name)
}

func fcol(t *testing.T, tb harness.Table, row []string, name string) float64 {
	t.Helper()
	return reftest.Float(t, &tb, row, name)
}

func runJob(t *testing.T, p *params, mech, cal string, level float64) (frontier, calib harness.Table) {
	t.Helper()
	j := job{p: p, ds: toy(), mech: mech, calibration: cal, level: level}
	ts, err := def{p.reg}.Run(context.Background(), j, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("%s %s %v: %v", mech, cal, level, err)
	}
	if len(ts) != 2 || ts[0].Name != "frontier" || ts[1].Name != "calibration" {
		t.Fatalf("tables %v", ts)
	}
	return ts[0], ts[1]
}

// writeTables stores job tables as the harness would.
func writeTables(t *testing.T, dir string, ts ...harness.Table) {
	t.Helper()
	for _, tb := range ts {
		f, err := os.Create(filepath.Join(dir, tb.Name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		w := csv.NewWriter(f)
		w.Write(tb.Header)
		w.WriteAll(tb.Rows)
		if err := errors.Join(w.Error(), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
}
