package convergence

import (
	"context"
	"testing"

	"privic/harness"
	"privic/harness/kinds/internal/privic"
)

// Jobs share read-only state (the city, C_1, LAP, the cycle-0 EMD); run
// concurrently and in any order they must give the same tables as run one
// by one (go test -race checks the sharing).
func TestJobsDeterministicAndConcurrent(t *testing.T) {
	p := def{}.NewParams()
	p.Cities = []string{"paris"}
	p.Cycles["paris"] = 2
	p.Rounds = 2
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	runAll := func(parallel bool) [][]harness.Table {
		jobs, err := def{}.Plan(p)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]harness.Table, len(jobs))
		errs := make(chan error, len(jobs))
		done := make(chan struct{}, len(jobs))
		for i := len(jobs) - 1; i >= 0; i-- { // reverse order
			f := func() {
				tabs, err := def{}.Run(context.Background(), jobs[i].Job, harness.JobRand(7, jobs[i].Key))
				out[i] = tabs
				errs <- err
				done <- struct{}{}
			}
			if parallel {
				go f()
			} else {
				f()
			}
		}
		for range jobs {
			<-done
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	a, b := runAll(false), runAll(true)
	if len(a) != 2*2*2 {
		t.Fatalf("%d jobs, want 8", len(a))
	}
	for i := range a {
		for k := range a[i] {
			if len(a[i][k].Rows) == 0 && a[i][k].Name != "estimate" {
				t.Errorf("job %d table %s is empty", i, a[i][k].Name)
			}
			for r := range a[i][k].Rows {
				for c := range a[i][k].Rows[r] {
					if a[i][k].Rows[r][c] != b[i][k].Rows[r][c] {
						t.Fatalf("job %d table %s row %d col %d: %q sequential, %q concurrent", i, a[i][k].Name, r, c, a[i][k].Rows[r][c], b[i][k].Rows[r][c])
					}
				}
			}
		}
	}
}

func TestParamsRejectBadValues(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *params)
	}{
		{"unknown mechanism", func(p *params) { p.FirstMechanism = []string{"gauss"} }},
		{"duplicate option", func(p *params) { p.Mixing = []string{"none", "none"} }},
		{"bad fraction", func(p *params) { p.BatchFraction = 1.5 }},
		{"zero default cycles", func(p *params) { p.Cycles["default"] = 0 }},
		{"unknown city key", func(p *params) { p.Cycles["lyon"] = 3 }},
		{"bad reference", func(p *params) { p.EMDReference = []string{"prior"} }},
		{"negative beta", func(p *params) { p.Beta = harness.SweepOf(-1) }},
		{"rounds per job above rounds", func(p *params) { p.RoundsPerJob = 6 }},
		{"zero batch size", func(p *params) { p.BatchSize["paris"] = 0 }},
		{"bad gibu start", func(p *params) { p.GIBUStart = "last" }},
	} {
		p := def{}.NewParams()
		c.edit(p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if err := (def{}).NewParams().Validate(); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
	// A dataset without an entry of its own gets the table's default
	// entry, or the kind's default; the presets keep the paper's.
	p := def{}.NewParams()
	delete(p.Cycles, "sf")
	if err := p.Validate(); err != nil {
		t.Errorf("a table without an entry for sf rejected: %v", err)
	}
	if got := p.Schedule("sf").Cycles; got != privic.DefaultCycles {
		t.Errorf("sf without an entry: %d cycles, want the kind's default %d", got, privic.DefaultCycles)
	}
	p.Cycles["default"] = 4
	if a, b := p.Schedule("sf").Cycles, p.Schedule("paris").Cycles; a != 4 || b != 15 {
		t.Errorf("with default = 4: sf %d cycles (want 4), paris %d (want the paper's 15)", a, b)
	}
}
