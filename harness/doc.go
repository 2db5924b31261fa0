// Package harness turns experiment specs into results: strict TOML
// loading and validation, planning (sweeps into jobs with seeds derived
// from the spec seed and each job's key), parallel execution with
// errgroup, an atomic result store that lets interrupted runs resume,
// manifests, progress, shards and their merge.
//
// An experiment kind plugs in by implementing Kind (kind.go) in a package
// of its own, exporting Kinds() []Kind; the CLI registers every kind:
//
//	reg, _ := harness.NewRegistry(paper.Kinds()...)
//	spec, err := reg.Load("experiments/elastic.toml") // "file: key: what is allowed" on bad input
//	results, err := harness.Run(ctx, []*harness.Spec{spec}, harness.RunOptions{Jobs: 8})
//
// A kind's NewParams returns a pointer to a struct with `toml:"snake_case"`
// tags and every default set; Sweep is the type for swept numbers.
// Validate returns errors such as "params.beta[3] = -0.2: beta must be > 0"
// (Sweep.Check writes that form). Plan returns jobs with unique keys; Run
// computes one job from its own *rand.Rand and returns tidy tables whose
// numbers are formatted with FormatFloat; Finish reads the merged tables
// through an Output and writes derived tables and figures. Optional
// interfaces refine this: MemoryEstimator (the memory guard), Versioned
// (invalidate stored results when the computation changes) and Exclusive
// (jobs that must run alone, e.g. timings).
//
// Results land in results/<name>/: jobs/ (one record per job, tagged
// with the spec hash), <table>.csv (job tables merged in plan order),
// whatever Finish writes, spec.toml and manifest.json. Same spec and seed
// give the same table bytes whatever the parallelism, the sharding or the
// number of interruptions.
package harness
