package harness

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// schedKind is a kind for the scheduling test: exclusive, with costs
// (Arg is the cost), or neither.
type schedKind struct {
	name      string
	exclusive bool
}

func (k schedKind) Name() string                                { return k.name }
func (schedKind) Describe() string                              { return "" }
func (schedKind) Outputs() []string                             { return nil }
func (schedKind) NewParams() Params                             { return nil }
func (schedKind) Plan(Params) ([]Job, error)                    { return nil, nil }
func (schedKind) Finish(context.Context, Params, *Output) error { return nil }
func (schedKind) Run(context.Context, Job, *rand.Rand) ([]Table, error) {
	return nil, nil
}
func (k schedKind) Exclusive() bool { return k.exclusive }

type costKind struct{ schedKind }

func (costKind) EstimateCost(j Job) float64 { return j.Arg.(float64) }

// TestSchedule checks the submission order: exclusive jobs first, then
// jobs of unknown cost in plan order, then the costed specs heaviest
// first, each in longest-processing-time order (ties in plan order).
func TestSchedule(t *testing.T) {
	mk := func(k Kind, name string, args ...any) *specRun {
		r := &specRun{spec: &Spec{Kind: k, Name: name}}
		for i, a := range args {
			r.jobs = append(r.jobs, PlannedJob{Job: Job{Key: name + string(rune('a'+i)), Arg: a}, Index: i})
			r.todo = append(r.todo, i)
		}
		return r
	}
	light := mk(costKind{schedKind{name: "light"}}, "light", 1.0, 3.0, 2.0)
	plain := mk(schedKind{name: "plain"}, "plain", nil, nil)
	heavy := mk(costKind{schedKind{name: "heavy"}}, "heavy", 5.0, 9.0, 5.0)
	alone := mk(schedKind{name: "alone", exclusive: true}, "alone", nil)
	done := mk(costKind{schedKind{name: "done"}}, "done", 100.0)
	done.todo = nil // stored already: nothing to schedule
	var got []string
	for _, tk := range schedule([]*specRun{light, plain, heavy, alone, done}) {
		got = append(got, tk.run.jobs[tk.job].Key)
	}
	want := []string{"alonea", "plaina", "plainb", "heavyb", "heavya", "heavyc", "lightb", "lightc", "lighta"}
	if !slices.Equal(got, want) {
		t.Errorf("schedule %v, want %v", got, want)
	}
}
