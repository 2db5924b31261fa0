// Package convergence is the experiment kind "privic-convergence" (paper
// Sec. V, Fig. 7-9, Tables III-IV): PRIVIC's EMD between the estimate and
// the true distribution after every cycle, for every combination of the
// protocol options where the paper and its reference code differ (see
// package privic), set beside the paper's tables with every variant's
// distance to them.
package convergence

import (
	"context"
	"math/rand/v2"

	"privic/harness"
	"privic/harness/kinds/internal/privic"
)

// Kind returns the privic-convergence kind.
func Kind() harness.Kind { return harness.Typed[*params, *privic.Job](def{}) }

// params are the kind's [params]: every combination of the variant lists
// is simulated; the first value of each list forms the default variant
// shown in Fig. 7-9.
type params struct {
	privic.Protocol
	FirstMechanism []string `toml:"first_mechanism"`
	IBUStart       []string `toml:"ibu_start"`
	Mixing         []string `toml:"mixing"`
	Batches        []string `toml:"batches"`
}

func (p *params) Validate() error {
	if err := p.Protocol.Validate(); err != nil {
		return err
	}
	for _, l := range []struct {
		key     string
		v       []string
		allowed []string
	}{
		{"first_mechanism", p.FirstMechanism, privic.FirstMechanisms()},
		{"ibu_start", p.IBUStart, privic.IBUStarts()},
		{"mixing", p.Mixing, privic.Mixings()},
		{"batches", p.Batches, privic.BatchModes()},
	} {
		if err := privic.ListOf(l.key, l.v, l.allowed); err != nil {
			return err
		}
	}
	return nil
}

// variants is the cross product of the variant lists, default first.
func (p *params) variants() []privic.Variant {
	var out []privic.Variant
	for _, f := range p.FirstMechanism {
		for _, s := range p.IBUStart {
			for _, m := range p.Mixing {
				for _, b := range p.Batches {
					out = append(out, privic.Variant{FirstMechanism: f, IBUStart: s, Mixing: m, Batches: b})
				}
			}
		}
	}
	return out
}

type def struct{}

func (def) About() harness.About {
	return harness.About{
		Name:     "privic-convergence",
		Describe: "PRIVIC's EMD to the true PMF per cycle, every protocol variant (Fig. 7-9, Tables III-IV), on any dataset",
		Tables:   []string{"emd_by_cycle", "final_emd", "estimate", "table3", "table4", "table_<city>", "variant_distance"},
		Figures: []string{"fig7a", "fig7b", "fig7c", "fig7d", "fig8a", "fig8b", "fig9a", "fig9b",
			"estimate-<city>-<beta>", "emd-by-cycle-<city>-<beta>"},
		Files:   []string{"table3.md", "table4.md", "table_<city>.md"},
		Claims:  true,
		Skips:   true,
		Version: "2",
	}
}

// NewParams: the paper's protocol, every variant.
func (def) NewParams() *params {
	return &params{
		Protocol:       privic.DefaultProtocol(1, 0.5, 1),
		FirstMechanism: privic.FirstMechanisms(),
		IBUStart:       privic.IBUStarts(),
		Mixing:         privic.Mixings(),
		Batches:        privic.BatchModes(),
	}
}

func (def) Plan(p *params) ([]harness.Work[*privic.Job], error) {
	return privic.Plan(&p.Protocol, p.variants(), true)
}

func (def) Run(ctx context.Context, j *privic.Job, rng *rand.Rand) ([]harness.Table, error) {
	return privic.Run(ctx, j, rng)
}

// EstimateBytes implements harness.MemoryEstimator.
func (def) EstimateBytes(j *privic.Job) int64 { return privic.EstimateBytes(j) }

// EstimateCost implements harness.CostEstimator (scheduling only).
func (def) EstimateCost(j *privic.Job) float64 { return privic.EstimateCost(j) }

// Finish writes Tables III/IV beside the paper, the variant distances and
// Fig. 7-9, and returns the section with the claims.
func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	f, err := newFinish(p, out)
	if err != nil {
		return harness.Section{}, err
	}
	return f.run(ctx)
}
