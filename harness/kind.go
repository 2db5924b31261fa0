package harness

import (
	"context"
	"math/rand/v2"
)

// Kind is one experiment kind ("elastic", "ba-vs-lap", ...) as the
// harness runs it. Kinds are written against their own parameter and job
// types (Def) and handed to the harness through Typed, which implements
// Kind; the CLI registers every kind with a Registry. A spec names its kind
// with the top-level `kind` key and carries the kind's own settings in its
// [params] table.
type Kind interface {
	// Name is the value of the spec's `kind` key.
	Name() string
	// Describe says in one line what the kind computes.
	Describe() string
	// Outputs lists the tables and figures the kind writes, relative to
	// its output directory (for `privic list` and the README). Listing
	// claims.csv or skipped.csv makes the harness write that file on
	// every run, with a header and no rows when the Section has none.
	Outputs() []string
	// NewParams returns a pointer to a fresh parameter struct with every
	// default set. The loader decodes the spec's [params] table into it
	// strictly (unknown keys are errors) and then calls Validate.
	NewParams() Params
	// Plan expands validated parameters into jobs. Keys are unique,
	// stable across runs and independent of scheduling; each job's
	// random stream is derived from the spec seed and its key.
	Plan(p Params) ([]Job, error)
	// Run computes one job. It must be deterministic given rng, must not
	// share mutable state with other jobs (jobs run concurrently) and
	// should return promptly when ctx is cancelled.
	Run(ctx context.Context, job Job, rng *rand.Rand) ([]Table, error)
	// Finish runs once after every job is stored (never on a shard run):
	// it reads the merged job tables from out, writes derived tables and
	// figures through out, and returns its part of the report, which the
	// harness writes (section.md, claims.csv, skipped.csv).
	Finish(ctx context.Context, p Params, out *Output) (Section, error)
}

// Params is a kind's decoded [params] table.
type Params interface {
	// Validate checks every field; its error names the key and what is
	// allowed, e.g. "params.beta[3] = -0.2: beta must be > 0".
	Validate() error
}

// Job is one independent unit of work of a spec as the harness stores and
// schedules it. Kinds never unpack Arg themselves: Typed hands each job to
// its kind as the kind's own job type.
type Job struct {
	// Key identifies the job within its spec, e.g.
	// "city=paris/mechanism=ba/beta=0.2/sim=3". It seeds the job's random
	// stream and orders rows in the merged tables.
	Key string
	// Arg is the kind's own description of the job.
	Arg any
}

// Table is a tidy table: a header row and one observation per row.
// Values are already formatted (Add takes rows by column name and formats
// numbers with FormatFloat, so that the bytes never depend on the
// machine). Rows from all jobs of a spec are concatenated in plan order
// under the same Name into <Name>.csv.
type Table struct {
	Name   string
	Header []string
	Rows   [][]string

	err error // the first row Add refused
}

// The optional interfaces below refine a Kind. Typed passes each on from
// the kind's Def when the Def implements its typed counterpart.

// MemoryEstimator is implemented by kinds that can bound a job's memory
// before running it; the harness refuses jobs above its memory limit.
type MemoryEstimator interface {
	EstimateBytes(job Job) int64
}

// SizeLimited is implemented by parameters that can say, once validated
// (their datasets loaded), what a run will refuse or leave out because
// of a dataset's size: a quantity whose exact computation is too costly
// there (a brute force, a dense-only metric), or a job skipped for its
// size. Each line names the dataset and the quantity and says why.
// `privic validate` prints them, and a run logs them before any job
// runs, so that no one learns of them after a long run.
type SizeLimited interface {
	SizeLimits() []string
}

// DatasetTitler is implemented by parameters that run on named datasets:
// DatasetTitles gives their titles ("Paris", "San Francisco, 100 m
// cells"), in the spec's order, once validated. The manifest records
// them, and the report names them in the experiment's heading.
type DatasetTitler interface {
	DatasetTitles() []string
}

// CostEstimator is implemented by kinds that can say, before running a
// job, about how many CPU seconds it takes. The harness only uses it to
// order the work of a run (heaviest first, so that the last jobs are short
// and both cores stay busy to the end); results never depend on it.
type CostEstimator interface {
	EstimateCost(job Job) float64
}

// Exclusive is implemented by kinds whose jobs must run alone, such as
// ones that time kernels: while such a job runs, no other job of the run
// (of any spec) does, whatever -j says.
type Exclusive interface {
	Exclusive() bool
}

// FinishesLast is implemented by kinds whose Finish reads the results of
// other experiments in the same output directory (a comparison across
// experiments): when FinishLast says so, the spec completes after every
// other spec of the run has, so that it reads their final tables.
type FinishesLast interface {
	FinishLast() bool
}

// Versioned is implemented by kinds whose computation changes in a way
// that invalidates stored results: the version is part of the spec hash,
// so bumping it makes the next run recompute every job.
type Versioned interface {
	Version() string
}

// Sourced is implemented by kinds that know the Go package that computes
// them (Typed kinds do): staleness checks compare the code of that
// package and its dependencies with the commit a result came from.
type Sourced interface {
	Package() string
}
