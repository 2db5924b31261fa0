// Package timing is the experiment kind "runtime" (the paper's Table II):
// the time of one BA and one IBU as in one PRIVIC cycle (Paris: BA 8 and
// IBU 10 iterations; SF: 5 and 5), beside the paper's Python timings.
package timing

import (
	"context"
	"embed"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
	"privic/kernels"
)

// Kind returns the runtime kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

type params struct {
	param.Data
	// Beta is BA's loss parameter (the PRIVIC runs use 0.5 and 1).
	Beta float64 `toml:"beta"`
	// BAIterations and IBUIterations per dataset (paper Sec. V: Paris 8
	// and 10, SF 5 and 5), with a "default" entry for the others.
	BAIterations  param.ByDataset[int] `toml:"ba_iterations"`
	IBUIterations param.ByDataset[int] `toml:"ibu_iterations"`
	// Repeats is the number of timed repetitions per kernel (the median
	// is reported); one untimed warm-up run precedes them.
	Repeats int `toml:"repeats"`
}

func (p *params) Validate() error {
	if err := p.Data.Validate(); err != nil {
		return err
	}
	if err := harness.PositiveFinite("beta", p.Beta); err != nil {
		return err
	}
	for _, m := range []struct {
		key string
		v   map[string]int
	}{{"ba_iterations", p.BAIterations}, {"ibu_iterations", p.IBUIterations}} {
		// Entries for datasets not in params.cities are ignored (the
		// spec's table is merged into the defaults), but must name
		// datasets of the spec.
		if err := param.PerData(&p.Catalog, m.key, m.v, param.IntsIn(1, 100000)); err != nil {
			return err
		}
	}
	return harness.IntIn("repeats", p.Repeats, 1, 10000)
}

type def struct{}

// job is one city.
type job struct {
	ds *datasets.Dataset
	p  *params
}

func (def) About() harness.About {
	return harness.About{
		Name:     "runtime",
		Describe: "Table II: median time of one BA and one IBU as in one PRIVIC cycle, Paris and SF (or any dataset), beside the paper's Python timings",
		Tables:   []string{"kernels"},
		Version:  "3",
		// The kernels are timed with no other job of the run competing for
		// the cores (the harness runs such jobs first, alone).
		Exclusive: true,
		Volatile: func(...harness.TableSet) []harness.Exclusion {
			return []harness.Exclusion{harness.ColumnRule("kernels", "timings of this machine", "median_seconds", "min_seconds", "speedup_vs_paper")}
		},
	}
}

func (def) NewParams() *params {
	return &params{
		Data:          param.Data{Cities: param.Presets(), Rows: datasets.HeaderQuirk},
		Beta:          1,
		BAIterations:  paper.Schedule("ba_iterations"),
		IBUIterations: paper.Schedule("ibu_iterations"),
		Repeats:       21,
	}
}

func (def) Plan(p *params) ([]harness.Work[job], error) {
	return param.CityJobs(&p.Data, func(ds *datasets.Dataset) job { return job{ds: ds, p: p} })
}

// EstimateBytes: BA's factorised channel (kernels.BAMemory), with its
// dense form below kernels.DenseOpCells cells, the dense IBU's work space
// there, and the IBU vectors.
func (def) EstimateBytes(j job) int64 {
	g := j.ds.Grid
	m := int64(g.Len())
	b := kernels.BAMemory(g) + 8*8*m
	if g.Len() < kernels.DenseOpCells {
		b += 3 * kernels.DenseChannelMemory(g, g)
	}
	return b
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

func (def) Run(ctx context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	p, ds := j.p, j.ds
	g, prior := ds.Grid, ds.Prior()
	baIt := param.Get(p.BAIterations, ds.Name, privic.DefaultBAIterations)
	ibuIt := param.Get(p.IBUIterations, ds.Name, privic.DefaultIBUIterations)
	// One BA as in a PRIVIC cycle: the fixed iterations from the uniform
	// channel, then the channel in the form the cycle obfuscates with
	// (materialised on grids below kernels.DenseOpCells cells, factorised
	// above).
	var ch kernels.ChannelOp
	baMed, baMin, err := timeIt(ctx, p.Repeats, func() error {
		b, err := kernels.BA(g, prior, kernels.BAConfig{Beta: p.Beta, Iterations: baIt})
		if err != nil {
			return err
		}
		kernels.DenseOf(b)
		ch = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ba: %w", err)
	}
	// IBU on that channel from uniform, with the exact report
	// distribution q = prior . C (as the peer NumPy timing does).
	q, err := kernels.Marginal(prior, ch)
	if err != nil {
		return nil, fmt.Errorf("marginal: %w", err)
	}
	ibuMed, ibuMin, err := timeIt(ctx, p.Repeats, func() error {
		_, _, err := kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: ibuIt})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ibu: %w", err)
	}
	t := harness.NewTable("kernels", "city", "kernel", "iterations", "cells", "median_seconds", "min_seconds", "repeats",
		"paper_seconds", "speedup_vs_paper")
	facts, _ := paper.Of(ds.Name)
	for _, r := range []struct {
		k        string
		it       int
		med, min float64
	}{{"ba", baIt, baMed, baMin}, {"ibu", ibuIt, ibuMed, ibuMin}} {
		ps, sp := "", ""
		if s, ok := facts.Seconds[r.k]; ok {
			ps, sp = harness.FormatFloat(s), harness.FormatFloat(s/r.med)
		}
		t.Add(harness.Row{"city": ds.Name, "kernel": r.k, "iterations": r.it, "cells": g.Len(), "median_seconds": r.med,
			"min_seconds": r.min, "repeats": p.Repeats, "paper_seconds": ps, "speedup_vs_paper": sp})
	}
	return []harness.Table{*t}, nil
}

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Beta, Machine string
	Repeats       int
	Header        []string
	Rows          [][]string
	// Paper says whether a dataset of the spec is the paper's: only then
	// are the paper's timings a column of the table.
	Paper bool
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	t, err := out.ReadTable("kernels")
	if err != nil {
		return harness.Section{}, err
	}
	rd, err := t.Reader("city", "kernel", "iterations", "cells", "median_seconds", "paper_seconds", "speedup_vs_paper")
	if err != nil {
		return harness.Section{}, err
	}
	d := sectionData{Beta: harness.FormatSig(p.Beta, 3), Repeats: p.Repeats,
		Machine: fmt.Sprintf("%s/%s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()),
		Paper:   paper.Any(p.Cities...), Header: []string{"city", "cells", "kernel", "iterations", "ours (median)"}}
	if d.Paper {
		d.Header = append(d.Header, "paper (mean)", "speed-up")
	}
	for i := range t.Rows {
		ps, sp := "-", "-"
		if rd.Str(i, "paper_seconds") != "" {
			ps = rd.Str(i, "paper_seconds") + " s"
			s := rd.Float(i, "speedup_vs_paper")
			sp = fmt.Sprintf("%.0fx", s)
			if s < 100 {
				sp = harness.FormatSig(s, 3) + "x"
			}
		}
		row := []string{p.Title(rd.Str(i, "city")), rd.Str(i, "cells"), strings.ToUpper(rd.Str(i, "kernel")),
			rd.Str(i, "iterations"), harness.FormatSig(rd.Float(i, "median_seconds")*1e3, 4) + " ms"}
		if d.Paper {
			row = append(row, ps, sp)
		}
		d.Rows = append(d.Rows, row)
	}
	if err := rd.Err(); err != nil {
		return harness.Section{}, err
	}
	md, err := harness.RenderFile(templates, "section.md.tmpl", d)
	return harness.Section{Markdown: md}, err
}
