package harness

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// schedDef is a kind for the scheduling test: exclusive, with costs (the
// job is its cost), or neither.
type schedDef struct {
	name      string
	exclusive bool
}

type schedParams struct{}

func (*schedParams) Validate() error { return nil }

func (k schedDef) About() About                             { return About{Name: k.name, Exclusive: k.exclusive} }
func (schedDef) NewParams() *schedParams                    { return nil }
func (schedDef) Plan(*schedParams) ([]Work[float64], error) { return nil, nil }
func (schedDef) Finish(context.Context, *schedParams, *Output) (Section, error) {
	return Section{}, nil
}
func (schedDef) Run(context.Context, float64, *rand.Rand) ([]Table, error) {
	return nil, nil
}

type costDef struct{ schedDef }

func (costDef) EstimateCost(cost float64) float64 { return cost }

func schedKind(name string, exclusive bool) Kind {
	return Typed[*schedParams, float64](schedDef{name, exclusive})
}

func costKind(name string) Kind { return Typed[*schedParams, float64](costDef{schedDef{name: name}}) }

// TestSchedule checks the submission order: exclusive jobs first, then
// jobs of unknown cost in plan order, then every costed job of every spec
// in longest-processing-time order (ties in plan order), a job's recorded
// time overriding its kind's estimate.
func TestSchedule(t *testing.T) {
	mk := func(k Kind, name string, args ...any) *specRun {
		r := &specRun{spec: &Spec{Kind: k, Name: name}}
		for i, a := range args {
			r.jobs = append(r.jobs, PlannedJob{Job: Job{Key: name + string(rune('a'+i)), Arg: a}, Index: i})
			r.todo = append(r.todo, i)
		}
		return r
	}
	light := mk(costKind("light"), "light", 1.0, 3.0, 2.0)
	plain := mk(schedKind("plain", false), "plain", 0.0, 0.0)
	heavy := mk(costKind("heavy"), "heavy", 5.0, 9.0, 5.0)
	alone := mk(schedKind("alone", true), "alone", 0.0)
	done := mk(costKind("done"), "done", 100.0)
	done.todo = nil // stored already: nothing to schedule
	// An earlier run recorded that lighta took 7 s and plainb 4 s: they
	// count as that long.
	light.history = map[string]float64{"lighta": 7}
	plain.history = map[string]float64{"plainb": 4}
	var got []string
	for _, tk := range schedule([]*specRun{light, plain, heavy, alone, done}) {
		got = append(got, tk.run.jobs[tk.job].Key)
	}
	want := []string{"alonea", "plaina", "heavyb", "lighta", "heavya", "heavyc", "plainb", "lightb", "lightc"}
	if !slices.Equal(got, want) {
		t.Errorf("schedule %v, want %v", got, want)
	}
}
