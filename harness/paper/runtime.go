package paper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
)

// runtimeKind is Table II: the time of one BA and one IBU as in one PRIVIC
// cycle (Paris: BA 8 and IBU 10 iterations; SF: 5 and 5).
type runtimeKind struct{}

type runtimeParams struct {
	Cities []string           `toml:"cities"`
	Rows   datasets.RowPolicy `toml:"rows"`
	// Beta is BA's loss parameter (the PRIVIC runs use 0.5 and 1).
	Beta float64 `toml:"beta"`
	// BAIterations and IBUIterations per city (paper Sec. V: Paris 8 and
	// 10, SF 5 and 5).
	BAIterations  map[string]int `toml:"ba_iterations"`
	IBUIterations map[string]int `toml:"ibu_iterations"`
	// Repeats is the number of timed repetitions per kernel (the median
	// is reported); one untimed warm-up run precedes them.
	Repeats int `toml:"repeats"`
}

// paperSeconds is Table II of the paper (Python on an Intel Core i9).
var paperSeconds = map[string]map[string]float64{
	"paris": {"ba": 3.256, "ibu": 1.30},
	"sf":    {"ba": 16.805, "ibu": 128.192},
}

func (runtimeKind) Name() string { return "runtime" }

// Exclusive implements harness.Exclusive: the kernels are timed with no
// other job of the run competing for the cores (the harness runs such
// jobs first, alone).
func (runtimeKind) Exclusive() bool { return true }
func (runtimeKind) Describe() string {
	return "Table II: median time of one BA and one IBU as in one PRIVIC cycle, Paris and SF, beside the paper's Python timings"
}
func (runtimeKind) Outputs() []string {
	return []string{"kernels.csv", "section.md"}
}

func (runtimeKind) NewParams() harness.Params {
	return &runtimeParams{
		Cities:        []string{"paris", "sf"},
		Rows:          datasets.HeaderQuirk,
		Beta:          1,
		BAIterations:  map[string]int{"paris": 8, "sf": 5},
		IBUIterations: map[string]int{"paris": 10, "sf": 5},
		Repeats:       21,
	}
}

func (p *runtimeParams) Validate() error {
	if err := citiesOK(p.Cities); err != nil {
		return err
	}
	if err := positiveFinite("beta", p.Beta); err != nil {
		return err
	}
	for _, m := range []struct {
		key string
		v   map[string]int
	}{{"ba_iterations", p.BAIterations}, {"ibu_iterations", p.IBUIterations}} {
		for _, c := range p.Cities {
			n, ok := m.v[c]
			if !ok {
				return fmt.Errorf("params.%s: no count for city %q (give e.g. %s = {%s = 8})", m.key, c, m.key, c)
			}
			if err := harness.IntIn(m.key+"."+c, n, 1, 100000); err != nil {
				return err
			}
		}
		// Entries for cities not in params.cities are ignored (the spec's
		// table is merged into the defaults), but must name real cities.
		for c := range m.v {
			if _, err := datasets.Lookup(c); err != nil {
				return fmt.Errorf("params.%s.%s: %w", m.key, c, err)
			}
		}
	}
	if err := harness.IntIn("repeats", p.Repeats, 1, 10000); err != nil {
		return err
	}
	return nil
}

type runtimeJob struct {
	p    *runtimeParams
	city string
}

func (runtimeKind) Plan(hp harness.Params) ([]harness.Job, error) {
	p, ok := hp.(*runtimeParams)
	if !ok {
		return nil, fmt.Errorf("runtime: params of type %T", hp)
	}
	var jobs []harness.Job
	for _, c := range p.Cities {
		jobs = append(jobs, harness.Job{Key: "city=" + c, Arg: runtimeJob{p: p, city: c}})
	}
	return jobs, nil
}

// timeIt runs f once untimed, then repeats times, and returns the median
// and the minimum wall time in seconds.
func timeIt(ctx context.Context, repeats int, f func() error) (median, fastest float64, err error) {
	if err := f(); err != nil {
		return 0, 0, err
	}
	ts := make([]float64, repeats)
	for i := range ts {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, 0, err
		}
		ts[i] = time.Since(t0).Seconds()
	}
	slices.Sort(ts)
	n := len(ts)
	median = ts[n/2]
	if n%2 == 0 {
		median = (ts[n/2-1] + ts[n/2]) / 2
	}
	return median, ts[0], nil
}

func (runtimeKind) Run(ctx context.Context, job harness.Job, _ *rand.Rand) ([]harness.Table, error) {
	j, ok := job.Arg.(runtimeJob)
	if !ok {
		return nil, fmt.Errorf("runtime job %s: argument of type %T", job.Key, job.Arg)
	}
	p := j.p
	ds, err := datasets.Load(j.city, datasets.LoadOptions{Rows: p.Rows})
	if err != nil {
		return nil, err
	}
	g, prior := ds.Grid, ds.Prior()
	baIt, ibuIt := p.BAIterations[j.city], p.IBUIterations[j.city]
	// One BA as in a PRIVIC cycle: the fixed iterations from the uniform
	// channel, then the channel the cycle obfuscates with.
	var ch *kernels.Channel
	baMed, baMin, err := timeIt(ctx, p.Repeats, func() error {
		b, err := kernels.BA(g, prior, kernels.BAConfig{Beta: p.Beta, Iterations: baIt})
		if err != nil {
			return err
		}
		ch = b.Channel()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("BA: %w", err)
	}
	// IBU on that channel from uniform, with the exact report
	// distribution q = prior . C (as the peer NumPy timing does).
	q := make([]float64, ch.Out.Len())
	for x, px := range prior {
		for y, c := range ch.Row(x) {
			q[y] += px * c
		}
	}
	ibuMed, ibuMin, err := timeIt(ctx, p.Repeats, func() error {
		_, _, err := kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: ibuIt})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("IBU: %w", err)
	}
	t := newTable("kernels", "city", "kernel", "iterations", "cells", "median_seconds", "min_seconds", "repeats",
		"paper_seconds", "speedup_vs_paper")
	for _, r := range []struct {
		k        string
		it       int
		med, min float64
	}{{"ba", baIt, baMed, baMin}, {"ibu", ibuIt, ibuMed, ibuMin}} {
		paper, sp := "", ""
		if ps, ok := paperSeconds[j.city][r.k]; ok {
			paper, sp = ff(ps), ff(ps/r.med)
		}
		t.add(j.city, r.k, itoa(r.it), itoa(g.Len()), ff(r.med), ff(r.min), itoa(p.Repeats), paper, sp)
	}
	return []harness.Table{t.Table}, nil
}

func (runtimeKind) Finish(ctx context.Context, hp harness.Params, out *harness.Output) error {
	p, ok := hp.(*runtimeParams)
	if !ok {
		return fmt.Errorf("runtime: params of type %T", hp)
	}
	t, err := out.ReadTable("kernels")
	if err != nil {
		return err
	}
	col, err := columns(t, "city", "kernel", "iterations", "cells", "median_seconds", "paper_seconds", "speedup_vs_paper")
	if err != nil {
		return err
	}
	var rows [][]string
	for i, r := range t.Rows {
		med, err := num(t, r, col, "median_seconds", i)
		if err != nil {
			return err
		}
		paper, sp := "-", "-"
		if r[col["paper_seconds"]] != "" {
			paper = r[col["paper_seconds"]] + " s"
			s, err := num(t, r, col, "speedup_vs_paper", i)
			if err != nil {
				return err
			}
			sp = fmt.Sprintf("%.0fx", s)
			if s < 100 {
				sp = fmtG(s, 3) + "x"
			}
		}
		rows = append(rows, []string{cityTitle(r[col["city"]]), r[col["cells"]], strings.ToUpper(r[col["kernel"]]), r[col["iterations"]],
			fmtG(med*1e3, 4) + " ms", paper, sp})
	}
	var b strings.Builder
	b.WriteString("## Run time of BA and IBU per PRIVIC cycle (Table II)\n\n")
	fmt.Fprintf(&b, "One BA (fixed iterations from the uniform channel, beta = %s, including materialising the channel) and one IBU (fixed iterations from uniform, on that channel, with the exact report distribution) per city, "+
		"median over %d timed repetitions after one warm-up, on this machine (%s/%s, %d CPUs, %s). "+
		"The paper's numbers are Python on an Intel Core i9 (MacOS), so the ratio compares implementations and machines together. "+
		"Timings are not byte-reproducible: rerunning gives other numbers, and jobs of other experiments running at the same time slow them down.\n\n",
		fmtG(p.Beta, 3), p.Repeats, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	b.WriteString(mdTable([]string{"city", "cells", "kernel", "iterations", "ours (median)", "paper (mean)", "speed-up"}, rows))
	b.WriteString("\nThe paper gives both kernels complexity O(n^2) per iteration for n cells.\n\n")
	b.WriteString("Table: `kernels.csv` (median and fastest seconds, repeats, the paper's seconds and the speed-up).\n")
	return writeSection(out, b.String())
}
