package privic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
)

// Job is one planned job of a PRIVIC kind: the rounds of the variants
// sharing a batches mode at one (city, beta). Within a round the variants
// see the same true check-ins (common random numbers) and share every step
// on which their histories agree; rounds are independent.
type Job struct {
	pop      *population
	rounds   []int
	variants []Variant
	cfg      simConfig
	refs     []string
	// estimate: write the final estimate of this variant (the default
	// variant; nil: none in this job).
	estimate *Variant
}

// Plan makes one job per (city, beta, batches mode, rounds_per_job
// rounds). perCycle measures the EMDs after every cycle (kind
// privic-convergence) rather than after the last one only (beta-sweep);
// the first variant is the default, whose final estimates a per-cycle run
// also writes.
func Plan(p *Protocol, variants []Variant, perCycle bool) ([]harness.Work[*Job], error) {
	betas := p.Beta.Values()
	// Group the variants by batches mode, in order of first appearance.
	var modes []string
	groups := map[string][]Variant{}
	for _, v := range variants {
		if _, ok := groups[v.Batches]; !ok {
			modes = append(modes, v.Batches)
		}
		groups[v.Batches] = append(groups[v.Batches], v)
	}
	def := variants[0]
	var jobs []harness.Work[*Job]
	for _, city := range p.Cities {
		ds, err := p.Dataset(city, p.Rows)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", city, err)
		}
		pop, err := newPopulation(ds, p.BatchFraction, p.BatchSizeOf(city), betas)
		if err != nil {
			return nil, err
		}
		if pop.partitions < 1 && slices.ContainsFunc(variants, func(v Variant) bool { return v.Batches == "partition" }) {
			return nil, fmt.Errorf("params.batch_size.%s = %d exceeds the %d check-ins: partition batches need at least one batch", city, pop.batch, len(pop.cells))
		}
		for _, beta := range betas {
			cfg := simConfig{
				Beta:       beta,
				Schedule:   p.Schedule(city),
				LaplaceEps: p.LaplaceEps,
				PerCycle:   perCycle,
				Population: slices.Contains(p.EMDReference, "population"),
				Batch:      slices.Contains(p.EMDReference, "batch"),
				FinalGIBU:  p.FinalGIBU,
				GIBUStart:  p.GIBUStart,
				FinalBA:    p.FinalBA,
			}
			for _, mode := range modes {
				for r0 := 1; r0 <= p.Rounds; r0 += p.RoundsPerJob {
					var rounds []int
					for r := r0; r < r0+p.RoundsPerJob && r <= p.Rounds; r++ {
						rounds = append(rounds, r)
					}
					roundKey := fmt.Sprintf("round=%d", rounds[0])
					if len(rounds) > 1 {
						roundKey = fmt.Sprintf("rounds=%d-%d", rounds[0], rounds[len(rounds)-1])
					}
					a := &Job{pop: pop, rounds: rounds, variants: groups[mode], cfg: cfg, refs: p.EMDReference}
					if perCycle && def.Batches == mode {
						a.estimate = &def
					}
					jobs = append(jobs, harness.Work[*Job]{
						Key: fmt.Sprintf("city=%s/beta=%s/batches=%s/%s", city, harness.FormatFloat(beta), mode, roundKey),
						Job: a,
					})
				}
			}
		}
	}
	return jobs, nil
}

// EstimateBytes bounds a job's memory. Each variant keeps every cycle's
// channel, with the cycle's reports, for the final GIBU: dense m x m
// matrices on grids below kernels.DenseOpCells cells (where the kernels
// use them), factorised BA channels and LAP operators above (O(m) each:
// the marginal and normalisers, the sampler's alias tables, the reports
// and their distribution), next to one BA run's work space and the
// kernel products (kernels.BAMemory, kernels.LaplaceOpMemory), the
// estimates, the EMDs (the cells' distance table up to TableMaxCells
// cells, the network simplex's costs between surpluses and deficits) and
// the check-ins (4 bytes each, a second copy for partition batches).
// Measured on San Francisco at 100 m cells (two variants, 8 cycles), the
// job alone: 452 MiB peak resident, of which about 38 MiB is the
// process's before any job; this says 419 MiB.
func EstimateBytes(a *Job) int64 {
	g := a.pop.grid
	m := int64(g.Len())
	chans := int64(len(a.variants)) * int64(a.cfg.Schedule.Cycles+1)
	cells := 2 * int64(len(a.pop.cells)) * 4
	emd := 8 * (m / 2) * ((m + 1) / 2)
	if g.Len() <= TableMaxCells {
		emd += 8 * m * m
	} else {
		emd *= 2 // allocated afresh by every EMD
	}
	if g.Len() < kernels.DenseOpCells {
		return chans*(m*m*8+16*m) + 2*m*m*8 + cells + 64*m*8 + emd
	}
	perChan := 8*2*m + 12*2*m + 8*2*m // c and Z; alias tables; reports and q
	states := chans * 8 * 2 * m       // theta and mu per state
	return kernels.BAMemory(g) + kernels.LaplaceOpMemory(g, g) + 2*(chans*perChan+states) + emd + cells
}

// EstimateCost is a rough CPU-seconds figure for a job: every cycle of
// every variant passes over dense m x m channels (BA, obfuscation, IBU,
// GIBU) and solves EMDs of about m points, so the work grows with m^2
// cycles variants rounds; the per-cycle EMDs double it. The constant
// was fitted to measured job times on the paper's cities.
func EstimateCost(a *Job) float64 {
	m := float64(a.pop.grid.Len())
	c := 4e-8 * m * m * float64(a.cfg.Schedule.Cycles) * float64(len(a.variants)) * float64(len(a.rounds))
	if a.cfg.PerCycle {
		c *= 2
	}
	return c
}

// VariantHeader are the variant columns shared by the job tables (Run
// gives them as one part of each row).
func VariantHeader() []string {
	return []string{"city", "beta", "first_mechanism", "ibu_start", "mixing", "batches"}
}

// Run simulates a job's rounds and tabulates them: final_emd (every
// variant, EMD reference and estimate after the last cycle and of the
// final GIBU) and, for per-cycle jobs, emd_by_cycle and estimate.
func Run(ctx context.Context, a *Job, rng *rand.Rand) ([]harness.Table, error) {
	final := harness.NewTable("final_emd", append(VariantHeader(),
		"emd_reference", "round", "cycles", "batch_size", "estimate", "emd", "gibu_iterations", "final_tight_eps", "emd_m")...)
	byCycle := harness.NewTable("emd_by_cycle", append(VariantHeader(),
		"emd_reference", "round", "cycle", "emd", "batch_size", "ba_iterations", "ibu_iterations", "emd_m")...)
	est := harness.NewTable("estimate", append(VariantHeader(), "round", "estimate", "row", "col", "probability")...)
	for _, r := range a.rounds {
		trs, err := simulateGroup(ctx, rng, a.pop, a.cfg, a.variants)
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", r, err)
		}
		for i, v := range a.variants {
			vc := harness.Row{"city": a.pop.name, "beta": a.cfg.Beta, "first_mechanism": v.FirstMechanism, "ibu_start": v.IBUStart,
				"mixing": v.Mixing, "batches": v.Batches}
			a.tabulate(final, byCycle, vc, r, trs[i])
			if a.estimate != nil && *a.estimate == v {
				a.tabulateEstimate(est, vc, r, trs[i])
			}
		}
	}
	if !a.cfg.PerCycle {
		return []harness.Table{*final}, nil
	}
	return []harness.Table{*byCycle, *final, *est}, nil
}

// tabulate adds one trajectory's rows of final_emd and emd_by_cycle.
func (a *Job) tabulate(final, byCycle *harness.Table, vc harness.Row, round int, tr *trajectory) {
	for _, ref := range a.refs {
		last, gibu, vals := tr.Pop[tr.Cycles], tr.GIBUPop, tr.Pop
		if ref == "batch" {
			last, gibu, vals = tr.Batch[tr.Cycles], tr.GIBUBatch, tr.Batch
		}
		m := func(v float64) string { return param.Metres(a.pop.ds, v) }
		final.Add(vc, harness.Row{"emd_reference": ref, "round": round, "cycles": tr.Cycles, "batch_size": tr.BatchSize,
			"estimate": "last-cycle", "emd": last, "gibu_iterations": "", "final_tight_eps": tr.FinalEps, "emd_m": m(last)})
		if tr.GIBU != nil {
			final.Add(vc, harness.Row{"emd_reference": ref, "round": round, "cycles": tr.Cycles, "batch_size": tr.BatchSize,
				"estimate": "gibu", "emd": gibu, "gibu_iterations": tr.GIBUIters, "final_tight_eps": tr.FinalEps, "emd_m": m(gibu)})
		}
		if !a.cfg.PerCycle {
			continue
		}
		for t := 0; t <= tr.Cycles; t++ {
			n := tr.BatchSize
			if t == 0 {
				n = 0
			}
			byCycle.Add(vc, harness.Row{"emd_reference": ref, "round": round, "cycle": t, "emd": vals[t], "batch_size": n,
				"ba_iterations": tr.BAIters[t], "ibu_iterations": tr.IBUIters[t], "emd_m": m(vals[t])})
		}
	}
}

// tabulateEstimate adds the final estimate of a trajectory: the final
// GIBU's, or theta after the last cycle when there is none.
func (a *Job) tabulateEstimate(est *harness.Table, vc harness.Row, round int, tr *trajectory) {
	kind, vals := "last-cycle", tr.Last
	if tr.GIBU != nil {
		kind, vals = "gibu", tr.GIBU
	}
	g := a.pop.grid
	for x, p := range vals {
		r, c := g.Cell(x)
		est.Add(vc, harness.Row{"round": round, "estimate": kind, "row": r, "col": c, "probability": p})
	}
}
