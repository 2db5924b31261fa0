package incremental

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"privic/harness"
)

// Kinds returns the experiment kinds of this package.
func Kinds() []harness.Kind {
	return []harness.Kind{Convergence{}, BetaSweep{}}
}

// Convergence is kind "privic-convergence" (paper Sec. V, Fig. 7-9,
// Tables III-IV).
type Convergence struct{}

// BetaSweep is kind "beta-sweep" (paper Sec. V, Fig. 10).
type BetaSweep struct{}

// Version is part of the spec hash: bump it when a change alters stored
// job results.
func (Convergence) Version() string { return "1" }

// Version is part of the spec hash.
func (BetaSweep) Version() string { return "1" }

// Name implements harness.Kind.
func (Convergence) Name() string { return "privic-convergence" }

// Name implements harness.Kind.
func (BetaSweep) Name() string { return "beta-sweep" }

// Describe implements harness.Kind.
func (Convergence) Describe() string {
	return "PRIVIC's EMD to the true PMF per cycle, every protocol variant (Fig. 7-9, Tables III-IV)"
}

// Describe implements harness.Kind.
func (BetaSweep) Describe() string {
	return "PRIVIC's final EMD against beta, per city and protocol variant (Fig. 10)"
}

// Outputs implements harness.Kind.
func (Convergence) Outputs() []string {
	return []string{
		"emd_by_cycle.csv", "final_emd.csv", "estimate.csv",
		"table3.csv", "table3.md", "table4.csv", "table4.md", "variant_distance.csv",
		"fig7a.png", "fig7b.png", "fig7c.png", "fig7d.png",
		"fig8a.png", "fig8b.png", "fig9a.png", "fig9b.png",
		"section.md", "claims.csv", "skipped.csv",
	}
}

// Outputs implements harness.Kind.
func (BetaSweep) Outputs() []string {
	return []string{"final_emd.csv", "final_emd_summary.csv", "fig10a.png", "fig10b.png", "section.md", "claims.csv", "skipped.csv"}
}

// NewParams implements harness.Kind: the paper's protocol, every variant.
func (Convergence) NewParams() harness.Params {
	return &ConvergenceParams{
		protocol:       defaultProtocol(1, 0.5, 1),
		FirstMechanism: slices.Clone(firstMechanisms),
		IBUStart:       slices.Clone(ibuStarts),
		Mixing:         slices.Clone(mixings),
		Batches:        slices.Clone(batchModes),
	}
}

// NewParams implements harness.Kind: the paper's betas, the paper's and
// the reference code's variants.
func (BetaSweep) NewParams() harness.Params {
	return &SweepParams{
		protocol: defaultProtocol(5, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0),
		Variant:  []variant{paperVariant, referenceVariant},
	}
}

// job is the Arg of one planned job: the rounds of the variants sharing a
// batches mode at one (city, beta). Within a round the variants see the
// same true check-ins (common random numbers) and share every step on
// which their histories agree; rounds are independent.
type job struct {
	pop      *population
	rounds   []int
	variants []variant
	cfg      simConfig
	refs     []string
	// estimate: write the final estimate of this variant (the default
	// variant; nil: none in this job).
	estimate *variant
}

// Plan implements harness.Kind: one job per (city, beta, batches mode,
// rounds_per_job rounds).
func (Convergence) Plan(hp harness.Params) ([]harness.Job, error) {
	p, ok := hp.(*ConvergenceParams)
	if !ok {
		return nil, fmt.Errorf("privic-convergence: params of type %T", hp)
	}
	return plan(&p.protocol, p.variants(), true)
}

// Plan implements harness.Kind.
func (BetaSweep) Plan(hp harness.Params) ([]harness.Job, error) {
	p, ok := hp.(*SweepParams)
	if !ok {
		return nil, fmt.Errorf("beta-sweep: params of type %T", hp)
	}
	return plan(&p.protocol, p.Variant, false)
}

func plan(p *protocol, variants []variant, perCycle bool) ([]harness.Job, error) {
	betas := p.Beta.Values()
	// Group the variants by batches mode, in order of first appearance.
	var modes []string
	groups := map[string][]variant{}
	for _, v := range variants {
		if _, ok := groups[v.Batches]; !ok {
			modes = append(modes, v.Batches)
		}
		groups[v.Batches] = append(groups[v.Batches], v)
	}
	def := variants[0]
	var jobs []harness.Job
	for _, city := range p.Cities {
		pop, err := newPopulation(city, p.Rows, p.BatchFraction, p.BatchSize[city], betas)
		if err != nil {
			return nil, err
		}
		if pop.partitions < 1 && slices.ContainsFunc(variants, func(v variant) bool { return v.Batches == "partition" }) {
			return nil, fmt.Errorf("params.batch_size.%s = %d exceeds the %d check-ins: partition batches need at least one batch", city, pop.batch, len(pop.cells))
		}
		for _, beta := range betas {
			for _, mode := range modes {
				for r0 := 1; r0 <= p.Rounds; r0 += p.RoundsPerJob {
					var rounds []int
					for r := r0; r < r0+p.RoundsPerJob && r <= p.Rounds; r++ {
						rounds = append(rounds, r)
					}
					cfg := simConfig{
						Beta:       beta,
						Schedule:   p.schedule(city),
						LaplaceEps: p.LaplaceEps,
						PerCycle:   perCycle,
						Population: slices.Contains(p.EMDReference, "population"),
						Batch:      slices.Contains(p.EMDReference, "batch"),
						FinalGIBU:  p.FinalGIBU,
						GIBUStart:  p.GIBUStart,
						FinalBA:    p.FinalBA,
					}
					roundKey := fmt.Sprintf("round=%d", rounds[0])
					if len(rounds) > 1 {
						roundKey = fmt.Sprintf("rounds=%d-%d", rounds[0], rounds[len(rounds)-1])
					}
					a := &job{pop: pop, rounds: rounds, variants: groups[mode], cfg: cfg, refs: p.EMDReference}
					if perCycle && def.Batches == mode {
						a.estimate = &def
					}
					jobs = append(jobs, harness.Job{
						Key: fmt.Sprintf("city=%s/beta=%s/batches=%s/%s", city, ff(beta), mode, roundKey),
						Arg: a,
					})
				}
			}
		}
	}
	return jobs, nil
}

// EstimateBytes implements harness.MemoryEstimator: a job keeps every
// cycle's dense channel of each variant for the final GIBU.
func (Convergence) EstimateBytes(j harness.Job) int64 { return estimateBytes(j) }

// EstimateBytes implements harness.MemoryEstimator.
func (BetaSweep) EstimateBytes(j harness.Job) int64 { return estimateBytes(j) }

func estimateBytes(j harness.Job) int64 {
	a, ok := j.Arg.(*job)
	if !ok {
		return 0
	}
	m := int64(a.pop.grid.Len())
	cycles := int64(a.cfg.Schedule.Cycles)
	return int64(len(a.variants))*(cycles+2)*m*m*8 + int64(len(a.pop.cells))*4 + 64*m*8
}

// EstimateCost implements harness.CostEstimator (scheduling only).
func (Convergence) EstimateCost(j harness.Job) float64 { return estimateCost(j) }

// EstimateCost implements harness.CostEstimator.
func (BetaSweep) EstimateCost(j harness.Job) float64 { return estimateCost(j) }

// estimateCost is a rough CPU-seconds figure for a job: every cycle of
// every variant passes over dense m x m channels (BA, obfuscation, IBU,
// GIBU) and solves EMDs of about m points, so the work grows with m^2
// cycles variants rounds; the per-cycle EMDs double it. The constant
// was fitted to measured job times on the paper's cities.
func estimateCost(j harness.Job) float64 {
	a, ok := j.Arg.(*job)
	if !ok {
		return 0
	}
	m := float64(a.pop.grid.Len())
	c := 4e-8 * m * m * float64(a.cfg.Schedule.Cycles) * float64(len(a.variants)) * float64(len(a.rounds))
	if a.cfg.PerCycle {
		c *= 2
	}
	return c
}

// Variant columns shared by the job tables.
var variantHeader = []string{"city", "beta", "first_mechanism", "ibu_start", "mixing", "batches"}

func variantCells(a *job, v variant) []string {
	return []string{a.pop.name, ff(a.cfg.Beta), v.FirstMechanism, v.IBUStart, v.Mixing, v.Batches}
}

// Run implements harness.Kind.
func (Convergence) Run(ctx context.Context, j harness.Job, rng *rand.Rand) ([]harness.Table, error) {
	return run(ctx, j, rng)
}

// Run implements harness.Kind.
func (BetaSweep) Run(ctx context.Context, j harness.Job, rng *rand.Rand) ([]harness.Table, error) {
	return run(ctx, j, rng)
}

func run(ctx context.Context, j harness.Job, rng *rand.Rand) ([]harness.Table, error) {
	a, ok := j.Arg.(*job)
	if !ok {
		return nil, fmt.Errorf("job %s: argument of type %T", j.Key, j.Arg)
	}
	final := harness.Table{Name: "final_emd", Header: append(slices.Clone(variantHeader),
		"emd_reference", "round", "cycles", "batch_size", "estimate", "emd", "gibu_iterations", "final_tight_eps")}
	byCycle := harness.Table{Name: "emd_by_cycle", Header: append(slices.Clone(variantHeader),
		"emd_reference", "round", "cycle", "emd", "batch_size", "ba_iterations", "ibu_iterations")}
	est := harness.Table{Name: "estimate", Header: append(slices.Clone(variantHeader),
		"round", "estimate", "row", "col", "probability")}
	for _, r := range a.rounds {
		trs, err := simulateGroup(ctx, rng, a.pop, a.cfg, a.variants)
		if err != nil {
			return nil, fmt.Errorf("job %s: round %d: %w", j.Key, r, err)
		}
		round := itoa(r)
		for i, v := range a.variants {
			tr := trs[i]
			vc := variantCells(a, v)
			for _, ref := range a.refs {
				last, gibu, vals := tr.Pop[tr.Cycles], tr.GIBUPop, tr.Pop
				if ref == "batch" {
					last, gibu, vals = tr.Batch[tr.Cycles], tr.GIBUBatch, tr.Batch
				}
				common := append(slices.Clone(vc), ref, round, itoa(tr.Cycles), itoa(tr.BatchSize))
				final.Rows = append(final.Rows, append(slices.Clone(common), "last-cycle", ff(last), "", ff(tr.FinalEps)))
				if tr.GIBU != nil {
					final.Rows = append(final.Rows, append(common, "gibu", ff(gibu), itoa(tr.GIBUIters), ff(tr.FinalEps)))
				}
				if !a.cfg.PerCycle {
					continue
				}
				for t := 0; t <= tr.Cycles; t++ {
					n := tr.BatchSize
					if t == 0 {
						n = 0
					}
					byCycle.Rows = append(byCycle.Rows, append(slices.Clone(vc), ref, round, itoa(t), ff(vals[t]),
						itoa(n), itoa(tr.BAIters[t]), itoa(tr.IBUIters[t])))
				}
			}
			if a.estimate != nil && *a.estimate == v {
				kind, vals := "last-cycle", tr.Last
				if tr.GIBU != nil {
					kind, vals = "gibu", tr.GIBU
				}
				g := a.pop.grid
				for x, p := range vals {
					r, c := g.Cell(x)
					est.Rows = append(est.Rows, append(slices.Clone(vc), round, kind, itoa(r), itoa(c), ff(p)))
				}
			}
		}
	}
	if !a.cfg.PerCycle {
		return []harness.Table{final}, nil
	}
	return []harness.Table{byCycle, final, est}, nil
}

func ff(v float64) string { return harness.FormatFloat(v) }

func itoa(v int) string { return fmt.Sprint(v) }
