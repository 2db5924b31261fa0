package harness_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"privic/harness"
)

// word is a typed kind whose jobs are words: it checks that each job
// arrives as the kind planned it.
type word struct{ about harness.About }

type wordParams struct{ Words []string }

func (*wordParams) Validate() error { return nil }

func (k word) About() harness.About { return k.about }
func (word) NewParams() *wordParams { return &wordParams{Words: []string{"a", "bb"}} }
func (word) Plan(p *wordParams) ([]harness.Work[string], error) {
	var w []harness.Work[string]
	for _, s := range p.Words {
		w = append(w, harness.Work[string]{Key: "w=" + s, Job: s})
	}
	return w, nil
}
func (word) Run(_ context.Context, s string, _ *rand.Rand) ([]harness.Table, error) {
	t := harness.NewTable("words", "word", "len")
	t.Add(harness.Row{"word": s, "len": len(s)})
	return []harness.Table{*t}, nil
}
func (word) Finish(context.Context, *wordParams, *harness.Output) (harness.Section, error) {
	return harness.Section{Markdown: "## words\n"}, nil
}

// sizedWord also estimates memory and cost.
type sizedWord struct{ word }

func (sizedWord) EstimateBytes(s string) int64  { return int64(len(s)) << 10 }
func (sizedWord) EstimateCost(s string) float64 { return float64(len(s)) }

func TestTypedPassesTypes(t *testing.T) {
	k := harness.Typed[*wordParams, string](word{harness.About{Name: "word", Describe: "words", Tables: []string{"words"},
		Figures: []string{"f"}, Claims: true, Version: "7", Exclusive: true}})
	if got := strings.Join(k.Outputs(), " "); got != "words.csv f.png f.svg claims.csv section.md" {
		t.Errorf("Outputs = %s", got)
	}
	if v, ok := k.(harness.Versioned); !ok || v.Version() != "7" {
		t.Error("Version from About not passed on")
	}
	if ex, ok := k.(harness.Exclusive); !ok || !ex.Exclusive() {
		t.Error("Exclusive from About not passed on")
	}
	jobs, err := k.Plan(k.NewParams())
	if err != nil || len(jobs) != 2 || jobs[1].Key != "w=bb" || jobs[1].Arg != "bb" {
		t.Fatalf("Plan = %v, %v", jobs, err)
	}
	ts, err := k.Run(context.Background(), jobs[1], nil)
	if err != nil || ts[0].Rows[0][1] != "2" {
		t.Errorf("Run = %v, %v", ts, err)
	}
	// What the harness hands a kind is checked against the kind's types.
	if _, err := k.Run(context.Background(), harness.Job{Key: "x", Arg: 3}, nil); err == nil || !strings.Contains(err.Error(), "int") {
		t.Errorf("a job of another type: %v", err)
	}
	if _, err := k.Plan(&struct{ harness.Params }{}); err == nil {
		t.Error("parameters of another type: no error")
	}
	// A Def without estimators gives a Kind without them, so that the
	// harness schedules and guards it as a kind that says nothing.
	if _, ok := k.(harness.MemoryEstimator); ok {
		t.Error("a kind without EstimateBytes implements MemoryEstimator")
	}
	if _, ok := k.(harness.CostEstimator); ok {
		t.Error("a kind without EstimateCost implements CostEstimator")
	}
}

func TestTypedPassesEstimators(t *testing.T) {
	k := harness.Typed[*wordParams, string](sizedWord{word{harness.About{Name: "sized"}}})
	mem, ok1 := k.(harness.MemoryEstimator)
	cost, ok2 := k.(harness.CostEstimator)
	if !ok1 || !ok2 {
		t.Fatalf("estimators not passed on: memory %v, cost %v", ok1, ok2)
	}
	job := harness.Job{Key: "w=abc", Arg: "abc"}
	if mem.EstimateBytes(job) != 3<<10 || cost.EstimateCost(job) != 3 {
		t.Errorf("estimates %d, %v", mem.EstimateBytes(job), cost.EstimateCost(job))
	}
	// A foreign job gets no estimate (it fails when it runs).
	if mem.EstimateBytes(harness.Job{Arg: 1.5}) != 0 {
		t.Error("an estimate for a foreign job")
	}
	if ex, ok := k.(harness.Exclusive); !ok || ex.Exclusive() {
		t.Error("a kind that is not exclusive says it is")
	}
	if got := k.Outputs(); !slices.Equal(got, []string{"section.md"}) {
		t.Errorf("Outputs = %v", got)
	}
}
