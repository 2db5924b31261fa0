// Package smoke provides the "smoke" experiment kind: a Monte Carlo
// estimate of pi that exercises the whole pipeline (spec, plan, parallel
// jobs, store, merge, Finish, report) in well under a second, with an
// answer known in closed form. experiments/smoke.toml runs it.
package smoke

import (
	"context"
	"embed"
	"fmt"
	"math"
	"math/rand/v2"

	"privic/harness"
)

// Kind returns the smoke kind.
func Kind() harness.Kind { return harness.Typed[*Params, job](def{}) }

// Params are the smoke kind's parameters.
type Params struct {
	// Samples is the number of random points per estimate (integers in
	// [1, 1e8]); default [1000, 100000].
	Samples harness.Sweep `toml:"samples"`
	// Reps is the number of independent estimates per sample size, in
	// [2, 1000]; default 8.
	Reps int `toml:"reps"`
}

// Validate implements harness.Params.
func (p *Params) Validate() error {
	if err := p.Samples.CheckCounts("params.samples", "sample size", 1, 1e8, "samples must be an integer in [1, 1e8]"); err != nil {
		return err
	}
	return harness.IntIn("reps", p.Reps, 2, 1000)
}

type def struct{}

type job struct{ samples, rep int }

func (def) About() harness.About {
	return harness.About{
		Name:     "smoke",
		Describe: "Monte Carlo estimate of pi: checks the harness end to end in under a second",
		Tables:   []string{"estimates", "summary"},
	}
}
func (def) NewParams() *Params {
	return &Params{Samples: harness.SweepOf(1000, 100000), Reps: 8}
}

func (def) Plan(p *Params) ([]harness.Work[job], error) {
	var jobs []harness.Work[job]
	for _, s := range p.Samples.Values() {
		for r := range p.Reps {
			n := int(s)
			jobs = append(jobs, harness.Work[job]{Key: fmt.Sprintf("samples=%d/rep=%d", n, r), Job: job{n, r}})
		}
	}
	return jobs, nil
}

// EstimateBytes implements harness.MemoryEstimator: the job streams its
// points, so its memory does not grow with samples.
func (def) EstimateBytes(job) int64 { return 1 << 10 }

func (def) Run(ctx context.Context, a job, rng *rand.Rand) ([]harness.Table, error) {
	inside := 0
	for i := range a.samples {
		if i%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		x, y := rng.Float64(), rng.Float64()
		if x*x+y*y < 1 {
			inside++
		}
	}
	est := 4 * float64(inside) / float64(a.samples)
	t := harness.NewTable("estimates", "samples", "rep", "estimate", "abs_error")
	t.Add(harness.Row{"samples": a.samples, "rep": a.rep, "estimate": est, "abs_error": math.Abs(est - math.Pi)})
	return []harness.Table{*t}, nil
}

//go:embed section.md.tmpl
var templates embed.FS

// summaryRow is one sample size of the summary.
type summaryRow struct {
	Samples            int
	Reps               int
	Mean, SD, Binomial float64
}

// Finish writes summary.csv (per sample size: mean, sd, and the sd the
// binomial model predicts, 4*sqrt(q(1-q)/n) with q = pi/4) and a section
// with the same numbers.
func (def) Finish(ctx context.Context, _ *Params, out *harness.Output) (harness.Section, error) {
	t, err := out.ReadTable("estimates")
	if err != nil {
		return harness.Section{}, err
	}
	rd, err := t.Reader("samples", "estimate")
	if err != nil {
		return harness.Section{}, err
	}
	var order []int
	by := map[int][]float64{}
	for i := range t.Rows {
		n, v := rd.Int(i, "samples"), rd.Float(i, "estimate")
		if _, ok := by[n]; !ok {
			order = append(order, n)
		}
		by[n] = append(by[n], v)
	}
	if err := rd.Err(); err != nil {
		return harness.Section{}, err
	}
	sum := harness.NewTable("summary", "samples", "reps", "mean", "sd", "sd_binomial", "pi")
	var rows []summaryRow
	for _, n := range order {
		mean, sd, reps := harness.MeanSD(by[n])
		q := math.Pi / 4
		model := 4 * math.Sqrt(q*(1-q)/float64(n))
		sum.Add(harness.Row{"samples": n, "reps": reps, "mean": mean, "sd": sd, "sd_binomial": model, "pi": math.Pi})
		rows = append(rows, summaryRow{n, reps, mean, sd, model})
	}
	if err := out.WriteTable(*sum); err != nil {
		return harness.Section{}, err
	}
	md, err := harness.RenderFile(templates, "section.md.tmpl", rows)
	return harness.Section{Markdown: md}, err
}
