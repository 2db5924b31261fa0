// Package harness turns experiment specs into results: strict TOML
// loading and validation, planning (sweeps into jobs with seeds derived
// from the spec seed and each job's key), parallel execution with
// errgroup, an atomic result store that lets interrupted runs resume,
// manifests, progress, shards and their merge. It imports no experiment
// kind and no numerics.
//
// # Kinds
//
// An experiment kind is a Kind (kind.go), in a package of its own under
// harness/kinds. The CLI builds a Registry of every kind explicitly:
//
//	reg, _ := harness.NewRegistry(kinds.All()...)
//	spec, err := reg.Load("experiments/elastic.toml") // "file: key: what is allowed" on bad input
//	results, err := harness.Run(ctx, []*harness.Spec{spec}, harness.RunOptions{Jobs: 8})
//
// Kinds are written against their own types through Typed, which adapts a
// Def[P, J] (P its parameters, J its job) to Kind, so that kind code never
// converts an interface value itself. A Def declares itself with About
// (name, description, the tables, figures and other files it writes,
// whether it checks claims or skips figures); NewParams returns a pointer
// to a struct with `toml:"snake_case"` tags and every default set (Sweep
// is the type for swept numbers) whose Validate returns errors such as
// "params.beta[3] = -0.2: beta must be > 0"; Plan returns Work with unique
// keys; Run computes one job from its own *rand.Rand and returns tidy
// Tables (NewTable, Table.Add: rows by column name) whose numbers are
// formatted with FormatFloat; Finish reads the merged tables through an
// Output (Output.ReadTable, Table.Reader), writes derived tables and
// Figures, and returns the kind's Section. The optional interfaces sit
// beside Kind: MemoryEstimator (the memory guard), CostEstimator
// (scheduling), Versioned (invalidate stored results when the
// computation changes) and Exclusive (jobs that must run alone, e.g.
// timings); on the parameters, SizeLimited (what a run leaves out by
// size) and DatasetTitler (the datasets the manifest and the report's
// headings name).
//
// # Datasets
//
// A spec may declare datasets in [datasets.NAME] tables. The harness
// knows nothing of data: a Registry given a Data (WithData) decodes each
// table strictly into a fresh declaration of the Data's, lets it make a
// Catalog (relative paths resolve against the spec's directory, recorded
// in the manifest for merges), mixes the catalog's Fingerprint into the
// spec hash, and hands the catalog to parameters that implement DataUser
// before validating them. LoadData reads the datasets of a file alone.
//
// # Sections
//
// A Section is a kind's part of the report: Markdown (rendered from the
// kind's embedded text/template files with Templates and Render, whose
// functions format numbers the same way in every kind), the Claims
// checked (claim, paper, ours, verdict) and the figures Skipped with the
// reason. The harness alone writes it, as section.md, claims.csv and
// skipped.csv, and ReadSection alone reads it back; package
// harness/report assembles the report from the sections.
//
// # Results
//
// Results land in results/<name>/: jobs/ (one record per job, tagged
// with the spec hash), <table>.csv (job tables merged in plan order),
// whatever Finish writes, the section's files, spec.toml and
// manifest.json. Same spec and seed give the same table bytes whatever the
// parallelism, the sharding or the number of interruptions.
package harness
