package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// Def is an experiment kind written against its own types: P is its
// parameter type (a pointer to a struct, see Kind.NewParams) and J the
// description of one job. Typed turns a Def into the Kind the harness
// runs, so kind code never converts from Params or Job.Arg itself.
//
// A Def may also implement, with its own job type, EstimateBytes(J) int64
// (MemoryEstimator), EstimateCost(J) float64 (CostEstimator), and as they
// are Exclusive and Versioned; Typed passes each on.
type Def[P Params, J any] interface {
	Name() string
	Describe() string
	Outputs() []string
	NewParams() P
	Plan(p P) ([]Work[J], error)
	Run(ctx context.Context, job J, rng *rand.Rand) ([]Table, error)
	Finish(ctx context.Context, p P, out *Output) (Section, error)
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
		return typedMemCost[P, J]{typedMem[P, J]{t, mem}, cost}
	case hasMem:
		return typedMem[P, J]{t, mem}
	case hasCost:
		return typedCost[P, J]{t, cost}
	}
	return t
}

type typed[P Params, J any] struct{ d Def[P, J] }

func (t typed[P, J]) Name() string      { return t.d.Name() }
func (t typed[P, J]) Describe() string  { return t.d.Describe() }
func (t typed[P, J]) Outputs() []string { return t.d.Outputs() }
func (t typed[P, J]) NewParams() Params { return t.d.NewParams() }
func (t typed[P, J]) params(p Params) (P, error) {
	tp, ok := p.(P)
	if !ok {
		return tp, fmt.Errorf("kind %s: parameters of type %T, want %T", t.d.Name(), p, tp)
	}
	return tp, nil
}

func (t typed[P, J]) job(j Job) (J, error) {
	a, ok := j.Arg.(J)
	if !ok {
		return a, fmt.Errorf("kind %s: job %s has an argument of type %T, want %T", t.d.Name(), j.Key, j.Arg, a)
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

// Exclusive implements Exclusive (false unless the Def says otherwise).
func (t typed[P, J]) Exclusive() bool {
	ex, ok := t.d.(Exclusive)
	return ok && ex.Exclusive()
}

// Version implements Versioned ("" unless the Def has a version).
func (t typed[P, J]) Version() string {
	if v, ok := t.d.(Versioned); ok {
		return v.Version()
	}
	return ""
}

type typedMem[P Params, J any] struct {
	typed[P, J]
	mem interface{ EstimateBytes(J) int64 }
}

// EstimateBytes implements MemoryEstimator; a job of a foreign type gets
// 0 (unknown) and fails when it runs.
func (t typedMem[P, J]) EstimateBytes(j Job) int64 {
	a, err := t.job(j)
	if err != nil {
		return 0
	}
	return t.mem.EstimateBytes(a)
}

type typedCost[P Params, J any] struct {
	typed[P, J]
	cost interface{ EstimateCost(J) float64 }
}

// EstimateCost implements CostEstimator.
func (t typedCost[P, J]) EstimateCost(j Job) float64 {
	a, err := t.job(j)
	if err != nil {
		return 0
	}
	return t.cost.EstimateCost(a)
}

type typedMemCost[P Params, J any] struct {
	typedMem[P, J]
	cost interface{ EstimateCost(J) float64 }
}

// EstimateCost implements CostEstimator.
func (t typedMemCost[P, J]) EstimateCost(j Job) float64 {
	return typedCost[P, J]{t.typed, t.cost}.EstimateCost(j)
}
