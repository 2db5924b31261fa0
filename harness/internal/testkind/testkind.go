// Package testkind is an experiment kind for the harness's own tests: it
// exercises sweeps, nested tables, several tables per job, Finish,
// memory estimates, and failure on demand, without any real kernel.
package testkind

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"time"

	"privic/harness"
)

// New returns the test kind "testkind" with the given hooks (nil: none).
func New(h *Hooks) harness.Kind {
	if h == nil {
		h = &Hooks{}
	}
	return harness.Typed[*Params, arg](def{h})
}

// Hooks let a test act at precise points of the test kind (they are not
// part of the spec, so they do not change its hash).
type Hooks struct {
	// KindName overrides the name (default "testkind").
	KindName string
	// OnRun is called at the start of every job, OnDone when it returns.
	OnRun, OnDone func(key string)
	// OnFinish is called by Finish before it writes anything.
	OnFinish func(out *harness.Output)
	// Alone makes the kind harness.Exclusive.
	Alone bool
	// Last makes the kind finish after every other spec of a run
	// (harness.FinishesLast).
	Last bool
	// Datasets are what the parameters give as the titles of their
	// datasets (harness.DatasetTitler).
	Datasets []string
	// Volatile is the kind's About.Volatile.
	Volatile func(sides ...harness.TableSet) []harness.Exclusion
}

// def is the test kind's harness.Def.
type def struct{ *Hooks }

// Params are testkind's parameters.
type Params struct {
	Beta     harness.Sweep `toml:"beta"`      // each > 0
	Reps     int           `toml:"reps"`      // 1..1000
	Draws    int           `toml:"draws"`     // 1..100000 values per job
	Mode     string        `toml:"mode"`      // "gauss" or "uniform"
	Fail     string        `toml:"fail"`      // key of a job that fails ("" none)
	Panic    string        `toml:"panic"`     // key of a job that panics
	Hang     string        `toml:"hang"`      // key of a job that runs until cancelled (then takes 100 ms to return), reporting its progress
	SleepMS  int           `toml:"sleep_ms"`  // per-job sleep up to this (key-dependent jitter)
	MemBytes int64         `toml:"mem_bytes"` // each job's memory estimate
	Grid     Grid          `toml:"grid"`
	Tags     []string      `toml:"tags"`
	// TooBig are what the run will leave out by size
	// (harness.SizeLimited), as the spec gives them.
	TooBig []string `toml:"too_big" json:"too_big,omitempty"`
	// datasets are the titles the kind gives as its datasets'
	// (Hooks.Datasets).
	datasets []string
}

// DatasetTitles implements harness.DatasetTitler.
func (p *Params) DatasetTitles() []string { return p.datasets }

// SizeLimits implements harness.SizeLimited.
func (p *Params) SizeLimits() []string { return p.TooBig }

// Grid is a nested table, to test nested key errors.
type Grid struct {
	Rows int `toml:"rows"` // >= 1
	Cols int `toml:"cols"` // >= 1
}

// Validate implements harness.Params.
func (p *Params) Validate() error {
	if err := p.Beta.Check("params.beta", "beta must be > 0", func(v float64) bool { return v > 0 }); err != nil {
		return err
	}
	if p.Beta.Len() == 0 {
		return errors.New("params.beta: give at least one value")
	}
	switch {
	case p.Reps < 1 || p.Reps > 1000:
		return fmt.Errorf("params.reps = %d: reps must be in [1, 1000]", p.Reps)
	case p.Draws < 1 || p.Draws > 100000:
		return fmt.Errorf("params.draws = %d: draws must be in [1, 100000]", p.Draws)
	case p.Mode != "gauss" && p.Mode != "uniform":
		return fmt.Errorf("params.mode = %q: mode must be \"gauss\" or \"uniform\"", p.Mode)
	case p.SleepMS < 0 || p.SleepMS > 10000:
		return fmt.Errorf("params.sleep_ms = %d: sleep_ms must be in [0, 10000]", p.SleepMS)
	case p.MemBytes < 0:
		return fmt.Errorf("params.mem_bytes = %d: mem_bytes must be >= 0", p.MemBytes)
	case p.Grid.Rows < 1:
		return fmt.Errorf("params.grid.rows = %d: rows must be >= 1", p.Grid.Rows)
	case p.Grid.Cols < 1:
		return fmt.Errorf("params.grid.cols = %d: cols must be >= 1", p.Grid.Cols)
	}
	return nil
}

// About implements harness.Def.
func (k def) About() harness.About {
	name := k.KindName
	if name == "" {
		name = "testkind"
	}
	return harness.About{Name: name, Describe: "random draws per beta and repetition (harness tests)",
		Tables: []string{"draws", "means", "summary"}, Files: []string{"notes/summary.txt"}, Exclusive: k.Alone, FinishLast: k.Last, Volatile: k.Volatile}
}

// NewParams implements harness.Def.
func (k def) NewParams() *Params {
	return &Params{Beta: harness.SweepOf(0.5, 1, 2), Reps: 3, Draws: 20, Mode: "gauss", Grid: Grid{Rows: 2, Cols: 3}, datasets: k.Datasets}
}

type arg struct {
	key   string
	beta  float64
	rep   int
	p     *Params
	sleep time.Duration
}

// Plan implements harness.Kind.
func (k def) Plan(p *Params) ([]harness.Work[arg], error) {
	var jobs []harness.Work[arg]
	for _, b := range p.Beta.Values() {
		for r := range p.Reps {
			key := fmt.Sprintf("beta=%s/rep=%d", harness.FormatFloat(b), r)
			var sleep time.Duration
			if p.SleepMS > 0 {
				// Jitter from the key, not the job's random stream, so the
				// numbers do not depend on it but finishing order varies.
				h := fnv.New64a()
				io.WriteString(h, key)
				sleep = time.Duration(h.Sum64()%uint64(p.SleepMS*1000)) * time.Microsecond
			}
			jobs = append(jobs, harness.Work[arg]{Key: key, Job: arg{key: key, beta: b, rep: r, p: p, sleep: sleep}})
		}
	}
	return jobs, nil
}

// EstimateBytes implements harness.MemoryEstimator.
func (k def) EstimateBytes(a arg) int64 { return a.p.MemBytes }

// Run implements harness.Kind.
func (k def) Run(ctx context.Context, a arg, rng *rand.Rand) ([]harness.Table, error) {
	if k.OnRun != nil {
		k.OnRun(a.key)
	}
	if k.OnDone != nil {
		defer k.OnDone(a.key)
	}
	if a.sleep > 0 {
		select {
		case <-time.After(a.sleep):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if a.key == a.p.Hang {
		for step := 1; ; step++ {
			harness.Progress(ctx, "step %d", step)
			select {
			case <-time.After(time.Millisecond):
			case <-ctx.Done():
				time.Sleep(100 * time.Millisecond) // a job takes a while to stop
				return nil, ctx.Err()
			}
		}
	}
	switch a.key {
	case a.p.Fail:
		return nil, errors.New("failed on purpose")
	case a.p.Panic:
		var m map[string]int
		m["boom"]++ // a real runtime panic (nil map), not a panic(string)
	}
	draws := harness.NewTable("draws", "beta", "rep", "i", "value")
	sum := 0.0
	for i := range a.p.Draws {
		var v float64
		if a.p.Mode == "gauss" {
			v = a.beta + rng.NormFloat64()
		} else {
			v = a.beta * rng.Float64()
		}
		sum += v
		draws.Add(harness.Row{"beta": a.beta, "rep": a.rep, "i": i, "value": v})
	}
	means := harness.NewTable("means", "beta", "rep", "mean")
	means.Add(harness.Row{"beta": a.beta, "rep": a.rep, "mean": sum / float64(a.p.Draws)})
	return []harness.Table{*draws, *means}, nil
}

// Finish implements harness.Kind: per beta, the mean and count of the
// job means, from the merged means table.
func (k def) Finish(ctx context.Context, _ *Params, out *harness.Output) (harness.Section, error) {
	if k.OnFinish != nil {
		k.OnFinish(out)
	}
	t, err := out.ReadTable("means")
	if err != nil {
		return harness.Section{}, err
	}
	type acc struct {
		n   int
		sum float64
	}
	var order []string
	by := map[string]*acc{}
	for _, row := range t.Rows {
		v, err := harness.ParseFloat(row[2])
		if err != nil {
			return harness.Section{}, err
		}
		a, ok := by[row[0]]
		if !ok {
			a = &acc{}
			by[row[0]] = a
			order = append(order, row[0])
		}
		a.n++
		a.sum += v
	}
	sum := harness.NewTable("summary", "beta", "reps", "mean")
	for _, b := range order {
		a := by[b]
		sum.Add(harness.Row{"beta": b, "reps": a.n, "mean": a.sum / float64(a.n)})
	}
	if err := out.WriteTable(*sum); err != nil {
		return harness.Section{}, err
	}
	text := fmt.Sprintf("%d betas, %d job means\n", len(order), len(t.Rows))
	err = out.WriteText("notes/summary.txt", text)
	return harness.Section{Markdown: "## testkind\n\n" + text}, err
}
