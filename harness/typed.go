package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
)

// Def is an experiment kind written against its own types: P is its
// parameter type (a pointer to a struct, see Kind.NewParams) and J the
// description of one job. Typed turns a Def into the Kind the harness
// runs, so kind code never converts from Params or Job.Arg itself. The
// methods mean what Kind's do.
//
// A Def may also implement, with its own job type, EstimateBytes(J) int64
// (MemoryEstimator) and EstimateCost(J) float64 (CostEstimator); Typed
// passes them on.
type Def[P Params, J any] interface {
	About() About
	NewParams() P
	Plan(p P) ([]Work[J], error)
	Run(ctx context.Context, job J, rng *rand.Rand) ([]Table, error)
	Finish(ctx context.Context, p P, out *Output) (Section, error)
}

// About is what a kind says of itself.
type About struct {
	// Name is the value of the spec's `kind` key.
	Name string
	// Describe says in one line what the kind computes.
	Describe string
	// Tables, Figures and Files are what the kind writes besides its
	// section: tables (<name>.csv, job tables and derived ones), figures
	// (<name>.png and <name>.svg; "<city>" in a name stands for each
	// city) and other files, by name.
	Tables, Figures, Files []string
	// Claims says that the kind checks claims and Skips that it may skip
	// figures: the harness then writes claims.csv or skipped.csv on every
	// run, with a header alone when the section has no rows.
	Claims, Skips bool
	// Version is mixed into the spec hash (Versioned): bump it when a
	// change alters stored job results, so that they are recomputed.
	Version string
	// Exclusive makes every job of the kind run alone (Exclusive).
	Exclusive bool
	// FinishLast completes the kind's specs after every other spec of
	// the run (FinishesLast): for kinds whose Finish reads other
	// experiments' results.
	FinishLast bool
	// Volatile, if set, lists the parts of the kind's tables that are not
	// a function of the spec and the seed (Volatile): timings,
	// measurements of the machine, LP solves cut by a time limit.
	Volatile func(sides ...TableSet) []Exclusion
}

// Outputs lists every file a kind with a section writes (Kind.Outputs).
func (a About) Outputs() []string {
	var out []string
	for _, t := range a.Tables {
		out = append(out, t+".csv")
	}
	for _, f := range a.Figures {
		out = append(out, f+".png", f+".svg")
	}
	out = append(out, a.Files...)
	if a.Claims {
		out = append(out, claimsFile)
	}
	if a.Skips {
		out = append(out, skippedFile)
	}
	return append(out, sectionFile)
}

// Work is one planned job of a typed kind: its key (see Job.Key) and the
// kind's own description of it.
type Work[J any] struct {
	Key string
	Job J
}

// Typed adapts d to Kind. The Kind it returns implements MemoryEstimator
// and CostEstimator exactly when d implements their typed forms, so that
// the harness treats a kind that says nothing as it always has.
func Typed[P Params, J any](d Def[P, J]) Kind {
	t := typed[P, J]{d: d}
	mem, hasMem := d.(interface{ EstimateBytes(J) int64 })
	cost, hasCost := d.(interface{ EstimateCost(J) float64 })
	switch {
	case hasMem && hasCost:
		return typedMemCost[P, J]{typedMem[P, J]{t, mem.EstimateBytes}, cost.EstimateCost}
	case hasMem:
		return typedMem[P, J]{t, mem.EstimateBytes}
	case hasCost:
		return typedCost[P, J]{t, cost.EstimateCost}
	}
	return t
}

type typed[P Params, J any] struct{ d Def[P, J] }

func (t typed[P, J]) Name() string      { return t.d.About().Name }
func (t typed[P, J]) Describe() string  { return t.d.About().Describe }
func (t typed[P, J]) Outputs() []string { return t.d.About().Outputs() }
func (t typed[P, J]) NewParams() Params { return t.d.NewParams() }

// Exclusive implements Exclusive.
func (t typed[P, J]) Exclusive() bool { return t.d.About().Exclusive }

// FinishLast implements FinishesLast.
func (t typed[P, J]) FinishLast() bool { return t.d.About().FinishLast }

// Version implements Versioned.
func (t typed[P, J]) Version() string { return t.d.About().Version }

// Volatile implements Volatile.
func (t typed[P, J]) Volatile(sides ...TableSet) []Exclusion {
	if f := t.d.About().Volatile; f != nil {
		return f(sides...)
	}
	return nil
}

// Package implements Sourced: the import path of the Def's package.
func (t typed[P, J]) Package() string {
	rt := reflect.TypeOf(t.d)
	for rt != nil && rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt == nil {
		return ""
	}
	return rt.PkgPath()
}
func (t typed[P, J]) params(p Params) (P, error) {
	tp, ok := p.(P)
	if !ok {
		return tp, fmt.Errorf("kind %s: parameters of type %T, want %T", t.Name(), p, tp)
	}
	return tp, nil
}

func (t typed[P, J]) job(j Job) (J, error) {
	a, ok := j.Arg.(J)
	if !ok {
		return a, fmt.Errorf("kind %s: job %s has an argument of type %T, want %T", t.Name(), j.Key, j.Arg, a)
	}
	return a, nil
}

func (t typed[P, J]) Plan(p Params) ([]Job, error) {
	tp, err := t.params(p)
	if err != nil {
		return nil, err
	}
	work, err := t.d.Plan(tp)
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, len(work))
	for i, w := range work {
		jobs[i] = Job{Key: w.Key, Arg: w.Job}
	}
	return jobs, nil
}

func (t typed[P, J]) Run(ctx context.Context, j Job, rng *rand.Rand) ([]Table, error) {
	a, err := t.job(j)
	if err != nil {
		return nil, err
	}
	return t.d.Run(ctx, a, rng)
}

func (t typed[P, J]) Finish(ctx context.Context, p Params, out *Output) (Section, error) {
	tp, err := t.params(p)
	if err != nil {
		return Section{}, err
	}
	return t.d.Finish(ctx, tp, out)
}

// estimate passes job j to the Def's estimator f; a job of a foreign type
// gets the zero value (unknown) and fails when it runs.
func estimate[P Params, J, R any](t typed[P, J], j Job, f func(J) R) R {
	a, err := t.job(j)
	if err != nil {
		var zero R
		return zero
	}
	return f(a)
}

type typedMem[P Params, J any] struct {
	typed[P, J]
	mem func(J) int64
}

func (t typedMem[P, J]) EstimateBytes(j Job) int64 { return estimate(t.typed, j, t.mem) }

type typedCost[P Params, J any] struct {
	typed[P, J]
	cost func(J) float64
}

func (t typedCost[P, J]) EstimateCost(j Job) float64 { return estimate(t.typed, j, t.cost) }

type typedMemCost[P Params, J any] struct {
	typedMem[P, J]
	cost func(J) float64
}

func (t typedMemCost[P, J]) EstimateCost(j Job) float64 { return estimate(t.typed, j, t.cost) }
