// Package smoke provides the "smoke" experiment kind: a Monte Carlo
// estimate of pi that exercises the whole pipeline (spec, plan, parallel
// jobs, store, merge, Finish) in well under a second, with an answer
// known in closed form. experiments/smoke.toml runs it.
package smoke

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"privic/harness"
)

// Kinds returns the kinds of this package.
func Kinds() []harness.Kind { return []harness.Kind{Kind{}} }

// Kind is the smoke kind.
type Kind struct{}

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
	if p.Samples.Len() == 0 {
		return errors.New("params.samples: give at least one sample size")
	}
	if err := p.Samples.Check("params.samples", "samples must be an integer in [1, 1e8]", func(v float64) bool {
		return v >= 1 && v <= 1e8 && v == math.Trunc(v)
	}); err != nil {
		return err
	}
	if p.Reps < 2 || p.Reps > 1000 {
		return fmt.Errorf("params.reps = %d: reps must be in [2, 1000]", p.Reps)
	}
	return nil
}

func (Kind) Name() string { return "smoke" }
func (Kind) Describe() string {
	return "Monte Carlo estimate of pi: checks the harness end to end in under a second"
}
func (Kind) Outputs() []string { return []string{"estimates.csv", "summary.csv", "summary.md"} }
func (Kind) NewParams() harness.Params {
	return &Params{Samples: harness.SweepOf(1000, 100000), Reps: 8}
}

type job struct{ samples, rep int }

func (Kind) Plan(ps harness.Params) ([]harness.Job, error) {
	p := ps.(*Params)
	var jobs []harness.Job
	for _, s := range p.Samples.Values() {
		for r := range p.Reps {
			n := int(s)
			jobs = append(jobs, harness.Job{Key: fmt.Sprintf("samples=%d/rep=%d", n, r), Arg: job{n, r}})
		}
	}
	return jobs, nil
}

// EstimateBytes implements harness.MemoryEstimator: the job streams its
// points, so its memory does not grow with samples.
func (Kind) EstimateBytes(harness.Job) int64 { return 1 << 10 }

func (Kind) Run(ctx context.Context, j harness.Job, rng *rand.Rand) ([]harness.Table, error) {
	a := j.Arg.(job)
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
	return []harness.Table{{
		Name:   "estimates",
		Header: []string{"samples", "rep", "estimate", "abs_error"},
		Rows:   [][]string{{strconv.Itoa(a.samples), strconv.Itoa(a.rep), harness.FormatFloat(est), harness.FormatFloat(math.Abs(est - math.Pi))}},
	}}, nil
}

// Finish writes summary.csv (per sample size: mean, sd, and the sd the
// binomial model predicts, 4*sqrt(q(1-q)/n) with q = pi/4) and a
// Markdown version.
func (Kind) Finish(ctx context.Context, ps harness.Params, out *harness.Output) error {
	t, err := out.ReadTable("estimates")
	if err != nil {
		return err
	}
	type acc struct{ vals []float64 }
	var order []string
	by := map[string]*acc{}
	for _, row := range t.Rows {
		v, err := harness.ParseFloat(row[2])
		if err != nil {
			return fmt.Errorf("estimates.csv: %w", err)
		}
		if by[row[0]] == nil {
			by[row[0]] = &acc{}
			order = append(order, row[0])
		}
		by[row[0]].vals = append(by[row[0]].vals, v)
	}
	sum := harness.Table{Name: "summary", Header: []string{"samples", "reps", "mean", "sd", "sd_binomial", "pi"}}
	for _, n := range order {
		vals := by[n].vals
		mean, sd := meanSD(vals)
		ns, _ := strconv.Atoi(n)
		q := math.Pi / 4
		model := 4 * math.Sqrt(q*(1-q)/float64(ns))
		sum.Rows = append(sum.Rows, []string{n, strconv.Itoa(len(vals)), harness.FormatFloat(mean), harness.FormatFloat(sd), harness.FormatFloat(model), harness.FormatFloat(math.Pi)})
	}
	if err := out.WriteTable(sum); err != nil {
		return err
	}
	return out.Create("summary.md", func(w io.Writer) error {
		fmt.Fprintf(w, "# smoke: Monte Carlo estimate of pi\n\n| samples | reps | mean | sd | sd (binomial model) |\n|---:|---:|---:|---:|---:|\n")
		for _, r := range sum.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r[0], r[1], r[2], r[3], r[4])
		}
		return nil
	})
}

func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}
