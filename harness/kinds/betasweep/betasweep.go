// Package betasweep is the experiment kind "beta-sweep" (paper Sec. V,
// Fig. 10): PRIVIC's final EMD against the loss parameter beta, per city
// and protocol variant (see package privic).
package betasweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"privic/harness"
	"privic/harness/kinds/internal/privic"
)

// Kind returns the beta-sweep kind.
func Kind() harness.Kind { return harness.Typed[*params, *privic.Job](def{}) }

// params are the kind's [params]: each listed variant is run at every
// beta; the first variant is the default.
type params struct {
	privic.Protocol
	Variant []privic.Variant `toml:"variant"`
}

func (p *params) Validate() error {
	if err := p.Protocol.Validate(); err != nil {
		return err
	}
	if len(p.Variant) == 0 {
		return fmt.Errorf("params.variant: empty; give at least one [[params.variant]] table")
	}
	for i, v := range p.Variant {
		key := fmt.Sprintf("variant[%d]", i)
		if err := v.Validate(key); err != nil {
			return err
		}
		if slices.Index(p.Variant, v) < i {
			return fmt.Errorf("params.%s = %s: duplicate variant", key, v.Label())
		}
	}
	return nil
}

type def struct{}

func (def) About() harness.About {
	return harness.About{
		Name:     "beta-sweep",
		Describe: "PRIVIC's final EMD against beta, per dataset and protocol variant (Fig. 10)",
		Tables:   []string{"final_emd", "final_emd_summary"},
		Figures:  []string{"fig10a", "fig10b", "final-emd-<city>"},
		Claims:   true,
		Skips:    true,
		Version:  "2",
	}
}

// NewParams: the paper's betas, the paper's and the reference code's
// variants.
func (def) NewParams() *params {
	return &params{
		Protocol: privic.DefaultProtocol(5, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0),
		Variant:  []privic.Variant{privic.PaperVariant(), privic.ReferenceVariant()},
	}
}

func (def) Plan(p *params) ([]harness.Work[*privic.Job], error) {
	return privic.Plan(&p.Protocol, p.Variant, false)
}

func (def) Run(ctx context.Context, j *privic.Job, rng *rand.Rand) ([]harness.Table, error) {
	return privic.Run(ctx, j, rng)
}

// EstimateBytes implements harness.MemoryEstimator.
func (def) EstimateBytes(j *privic.Job) int64 { return privic.EstimateBytes(j) }

// EstimateCost implements harness.CostEstimator (scheduling only).
func (def) EstimateCost(j *privic.Job) float64 { return privic.EstimateCost(j) }
