package privic

import (
	"fmt"
	"slices"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
)

// The values of the protocol options. The first value of each list is
// the paper's choice (Algorithm 1), the second the reference code's.

// FirstMechanisms: the first cycle obfuscates with BA on the uniform
// prior, or with LAP (laplace_eps) on the base grid.
func FirstMechanisms() []string { return []string{"ba-uniform", "laplace"} }

// IBUStarts: each cycle's IBU starts from the previous estimate, or from
// uniform.
func IBUStarts() []string { return []string{"previous", "uniform"} }

// Mixings: successive estimates are averaged weighted by sample size, or
// not at all.
func Mixings() []string { return []string{"weighted", "none"} }

// BatchModes: each cycle's batch is a fresh sample with replacement, or
// the next slice of a random partition of the check-ins.
func BatchModes() []string { return []string{"iid", "partition"} }

// EMDReferences: the estimate is measured against the population, or
// against the cycle's own batch.
func EMDReferences() []string { return []string{"population", "batch"} }

func gibuStarts() []string { return []string{"previous", "uniform"} }

// Variant is one simulated PRIVIC protocol: the options that change the
// trajectory. The EMD reference does not change it, so both references
// are measured on the same trajectory.
type Variant struct {
	FirstMechanism string `toml:"first_mechanism"`
	IBUStart       string `toml:"ibu_start"`
	Mixing         string `toml:"mixing"`
	Batches        string `toml:"batches"`
}

// PaperVariant is Algorithm 1 of the paper.
func PaperVariant() Variant { return Variant{"ba-uniform", "previous", "weighted", "iid"} }

// ReferenceVariant is the published reference code's protocol.
func ReferenceVariant() Variant { return Variant{"laplace", "uniform", "none", "partition"} }

// Label is a compact name for legends and Markdown tables.
func (v Variant) Label() string {
	return v.FirstMechanism + "/" + v.IBUStart + "/" + v.Mixing + "/" + v.Batches
}

// Name says whether v is the paper's or the reference code's protocol
// ("" for the others).
func (v Variant) Name() string {
	switch v {
	case PaperVariant():
		return "paper"
	case ReferenceVariant():
		return "reference"
	}
	return ""
}

// Title is the label with the name in parentheses, if v has one.
func (v Variant) Title() string {
	if n := v.Name(); n != "" {
		return v.Label() + " (" + n + ")"
	}
	return v.Label()
}

// NameOn is Name for a section about the datasets called cities: on
// none of the paper's, the paper's variant is "Algorithm 1" (the
// protocol, not the paper's run of it).
func (v Variant) NameOn(cities []string) string {
	if v == PaperVariant() && !paper.Any(cities...) {
		return "Algorithm 1"
	}
	return v.Name()
}

// TitleOn is Title for a section about the datasets called cities (see
// NameOn).
func (v Variant) TitleOn(cities []string) string {
	if n := v.NameOn(cities); n != "" {
		return v.Label() + " (" + n + ")"
	}
	return v.Label()
}

// Validate checks params.<key>.
func (v Variant) Validate(key string) error {
	for _, c := range []struct {
		k, v    string
		allowed []string
	}{
		{"first_mechanism", v.FirstMechanism, FirstMechanisms()},
		{"ibu_start", v.IBUStart, IBUStarts()},
		{"mixing", v.Mixing, Mixings()},
		{"batches", v.Batches, BatchModes()},
	} {
		if err := harness.OneOf(key+"."+c.k, c.v, c.allowed...); err != nil {
			return err
		}
	}
	return nil
}

// Protocol holds the settings both PRIVIC kinds share: data, schedule and
// estimator settings. Per-dataset settings are tables keyed by dataset
// name, with a "default" entry for the datasets without one of their
// own; a spec's table is merged into the defaults, so that it can
// override one dataset and keep the others'.
type Protocol struct {
	param.Data
	Beta          harness.Sweep        `toml:"beta"`
	Rounds        int                  `toml:"rounds"`
	RoundsPerJob  int                  `toml:"rounds_per_job"`
	EMDReference  []string             `toml:"emd_reference"`
	BatchFraction float64              `toml:"batch_fraction"`
	BatchSize     param.ByDataset[int] `toml:"batch_size"`
	LaplaceEps    float64              `toml:"laplace_eps"`
	Cycles        param.ByDataset[int] `toml:"cycles"`
	BAIterations  param.ByDataset[int] `toml:"ba_iterations"`
	IBUIterations param.ByDataset[int] `toml:"ibu_iterations"`
	BADelta       float64              `toml:"ba_delta"`
	IBUDelta      float64              `toml:"ibu_delta"`
	MaxIterations int                  `toml:"max_iterations"`
	FinalGIBU     bool                 `toml:"final_gibu"`
	GIBUStart     string               `toml:"gibu_start"`
	GIBUIter      param.ByDataset[int] `toml:"gibu_iterations"`
	GIBUDelta     float64              `toml:"gibu_delta"`
	FinalBA       bool                 `toml:"final_ba"`
}

// The schedule of a dataset that neither the paper nor the spec gives
// one: the paper's schedule for Paris.
const (
	DefaultCycles         = 15
	DefaultBAIterations   = 8
	DefaultIBUIterations  = 10
	DefaultGIBUIterations = 10
)

// DefaultProtocol is the paper's protocol: Paris 15 cycles of BA x 8 and
// IBU x 10, San Francisco 8 cycles of BA x 5 and IBU x 5 (the paper's
// schedules, package paper), 5 rounds, batches of 10% of the check-ins.
func DefaultProtocol(roundsPerJob int, betas ...float64) Protocol {
	return Protocol{
		RoundsPerJob:  roundsPerJob,
		Data:          param.Data{Cities: param.Presets(), Rows: datasets.HeaderQuirk},
		Beta:          harness.SweepOf(betas...),
		Rounds:        5,
		EMDReference:  EMDReferences(),
		BatchFraction: 0.1,
		BatchSize:     map[string]int{},
		LaplaceEps:    2,
		Cycles:        paper.Schedule("cycles"),
		BAIterations:  paper.Schedule("ba_iterations"),
		IBUIterations: paper.Schedule("ibu_iterations"),
		BADelta:       1e-6,
		IBUDelta:      1e-6,
		MaxIterations: 10000,
		FinalGIBU:     true,
		GIBUStart:     "previous",
		GIBUIter:      paper.Schedule("gibu_iterations"),
		GIBUDelta:     1e-6,
		FinalBA:       true,
	}
}

// Validate checks the shared settings.
func (p *Protocol) Validate() error {
	if err := p.Data.Validate(); err != nil {
		return err
	}
	if _, err := p.Rows.MarshalText(); err != nil {
		return fmt.Errorf("params.rows: %w", err)
	}
	if p.Beta.Len() == 0 {
		return fmt.Errorf("params.beta: empty; give at least one value")
	}
	if err := p.Beta.Check("params.beta", "beta must be finite and > 0", func(v float64) bool { return v > 0 }); err != nil {
		return err
	}
	if err := harness.IntIn("rounds", p.Rounds, 1, 1000); err != nil {
		return err
	}
	if err := harness.IntIn("rounds_per_job", p.RoundsPerJob, 1, p.Rounds); err != nil {
		return err
	}
	if err := ListOf("emd_reference", p.EMDReference, EMDReferences()); err != nil {
		return err
	}
	if !(p.BatchFraction > 0 && p.BatchFraction <= 1) {
		return fmt.Errorf("params.batch_fraction = %v: must be in (0, 1]", p.BatchFraction)
	}
	if err := param.PerData(&p.Catalog, "batch_size", p.BatchSize, param.IntsIn(1, 100000000)); err != nil {
		return err
	}
	if err := harness.PositiveFinite("laplace_eps", p.LaplaceEps); err != nil {
		return err
	}
	if err := p.validateSchedule(); err != nil {
		return err
	}
	for _, d := range []struct {
		key string
		v   float64
	}{{"ba_delta", p.BADelta}, {"ibu_delta", p.IBUDelta}, {"gibu_delta", p.GIBUDelta}} {
		if err := harness.PositiveFinite(d.key, d.v); err != nil {
			return err
		}
	}
	if err := harness.IntIn("max_iterations", p.MaxIterations, 1, 1000000); err != nil {
		return err
	}
	return harness.OneOf("gibu_start", p.GIBUStart, gibuStarts()...)
}

// validateSchedule checks the per-dataset schedule tables.
func (p *Protocol) validateSchedule() error {
	for _, m := range []struct {
		key string
		m   map[string]int
		min int
	}{
		{"cycles", p.Cycles, 1},
		{"ba_iterations", p.BAIterations, 0},
		{"ibu_iterations", p.IBUIterations, 0},
		{"gibu_iterations", p.GIBUIter, 0},
	} {
		if err := param.PerData(&p.Catalog, m.key, m.m, param.IntsIn(m.min, 100000)); err != nil {
			return err
		}
	}
	return nil
}

// Schedule is one city's iteration plan.
type Schedule struct {
	Cycles         int
	BAIterations   int // 0: converge on BADelta
	IBUIterations  int // 0: converge on IBUDelta
	GIBUIterations int // 0: converge on GIBUDelta
	BADelta        float64
	IBUDelta       float64
	GIBUDelta      float64
	MaxIterations  int
}

// Schedule returns a dataset's iteration plan.
func (p *Protocol) Schedule(city string) Schedule {
	return Schedule{
		Cycles:         param.Get(p.Cycles, city, DefaultCycles),
		BAIterations:   param.Get(p.BAIterations, city, DefaultBAIterations),
		IBUIterations:  param.Get(p.IBUIterations, city, DefaultIBUIterations),
		GIBUIterations: param.Get(p.GIBUIter, city, DefaultGIBUIterations),
		BADelta:        p.BADelta,
		IBUDelta:       p.IBUDelta,
		GIBUDelta:      p.GIBUDelta,
		MaxIterations:  p.MaxIterations,
	}
}

// ListOf checks a non-empty, duplicate-free list of allowed strings.
func ListOf(key string, v, allowed []string) error {
	if len(v) == 0 {
		return fmt.Errorf("params.%s: empty; allowed values are %s", key, harness.QuoteJoin(allowed))
	}
	for i, s := range v {
		if err := harness.OneOf(fmt.Sprintf("%s[%d]", key, i), s, allowed...); err != nil {
			return err
		}
		if slices.Index(v, s) < i {
			return fmt.Errorf("params.%s[%d] = %q: duplicate value", key, i, s)
		}
	}
	return nil
}

// BatchSizeOf is the absolute batch size of a dataset (params.batch_size),
// 0 when the batch is a fraction of its check-ins.
func (p *Protocol) BatchSizeOf(city string) int { return param.Get(p.BatchSize, city, 0) }
