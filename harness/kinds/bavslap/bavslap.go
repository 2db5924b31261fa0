// Package bavslap is the experiment kind "ba-vs-lap" (paper Sec. III-B,
// Fig. 3a/3b): the statistical utility of BA and of LAP calibrated to the
// same epsilon, per city and beta. Utility is the exact earth mover's
// distance (EMD) between the prior and its IBU estimate from the
// obfuscated check-ins.
//
// The paper's Fig. 3 was made with its reference code, whose LAP values
// are not EMDs: the LAP estimate lives on the base grid, but the code
// pairs it with the ground distances of the first cells of the widened
// output grid (row-major), which lie elsewhere. The kind computes the
// true EMD and, for the first reference_defect_sims simulations, also
// replays that pairing (column emd_reference_defect), so that both can be
// set beside the paper's figure.
package bavslap

import (
	"context"
	"fmt"
	"math/rand/v2"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
)

// Kind returns the ba-vs-lap kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

type params struct {
	param.Data
	// Beta is BA's loss parameter sweep (paper: 0.2, 0.4, ..., 5.0).
	Beta harness.Sweep `toml:"beta"`
	// Sims is the number of simulations per (city, beta) (paper: 5).
	Sims int `toml:"sims"`
	// SimsByCity overrides Sims for some datasets (the reference code ran
	// 3 for SF: sims_by_city = {sf = 3}); a "default" entry for the
	// others.
	SimsByCity param.ByDataset[int] `toml:"sims_by_city"`
	// BAIterations and IBUIterations are fixed counts (reference: 10, 10).
	BAIterations  int `toml:"ba_iterations"`
	IBUIterations int `toml:"ibu_iterations"`
	param.LAP
	// ReferenceDefectSims is the number of simulations (the first ones)
	// whose LAP estimate is also measured the reference code's defective
	// way (column emd_reference_defect; empty in the other rows). It is a
	// diagnostic of the paper's Fig. 3, one more EMD per simulation: 0
	// turns it off, and values above sims are capped.
	ReferenceDefectSims int `toml:"reference_defect_sims"`
}

func (p *params) Validate() error {
	if err := p.Data.Validate(); err != nil {
		return err
	}
	if err := param.Betas("beta", p.Beta.Values()); err != nil {
		return err
	}
	if err := harness.IntIn("sims", p.Sims, 1, 10000); err != nil {
		return err
	}
	if err := param.PerData(&p.Catalog, "sims_by_city", p.SimsByCity, param.IntsIn(1, 10000)); err != nil {
		return err
	}
	if err := harness.IntIn("ba_iterations", p.BAIterations, 1, 100000); err != nil {
		return err
	}
	if err := harness.IntIn("ibu_iterations", p.IBUIterations, 1, 100000); err != nil {
		return err
	}
	if err := p.LAP.Validate(); err != nil {
		return err
	}
	if p.ReferenceDefectSims < 0 || p.ReferenceDefectSims > 10000 {
		return fmt.Errorf("params.reference_defect_sims = %d: must lie in [0, 10000] (0 = off)", p.ReferenceDefectSims)
	}
	return nil
}

func (p *params) sims(city string) int { return param.Get(p.SimsByCity, city, p.Sims) }

// defectSims is how many simulations of a dataset replay the reference
// code's defective LAP EMD: ReferenceDefectSims on the presets (the
// paper's datasets, whose Fig. 3 it explains), and none on others (the
// defect is the reference code's, and says nothing of another dataset).
func (p *params) defectSims(preset bool) int {
	if !preset {
		return 0
	}
	return p.ReferenceDefectSims
}

type def struct{}

type job struct {
	p    *params
	ds   *datasets.Dataset // read-only, shared by the city's jobs
	beta float64
}

func (def) About() harness.About {
	return harness.About{
		Name:     "ba-vs-lap",
		Describe: "Fig. 3a/3b: statistical utility (true EMD of the IBU estimate to the prior) of BA and LAP at the same epsilon vs beta, Paris and SF (or any dataset)",
		Tables:   []string{"utility", "levels", "utility_summary"},
		Figures:  []string{"fig3a", "fig3b", "utility-<city>"},
		Claims:   true,
		Version:  "4",
	}
}

func (def) NewParams() *params {
	beta, _ := harness.SweepRange(0.2, 5.0, 0.2)
	return &params{
		Data:                param.Data{Cities: param.Presets(), Rows: datasets.HeaderQuirk},
		Beta:                beta,
		Sims:                5,
		SimsByCity:          map[string]int{},
		BAIterations:        10,
		IBUIterations:       10,
		LAP:                 param.DefaultLAP(),
		ReferenceDefectSims: 1,
	}
}

// Plan makes one job per (city, beta): the job builds the BA channel and
// the LAP channel once and runs every simulation of both mechanisms on
// them, so no channel is computed twice.
func (def) Plan(p *params) ([]harness.Work[job], error) {
	all, err := p.Load()
	if err != nil {
		return nil, err
	}
	var jobs []harness.Work[job]
	for _, ds := range all {
		for _, b := range p.Beta.Values() {
			jobs = append(jobs, harness.Work[job]{Key: "city=" + ds.Name + "/beta=" + harness.FormatFloat(b), Job: job{p: p, ds: ds, beta: b}})
		}
	}
	return jobs, nil
}

// EstimateBytes bounds a job's memory: BA's factorised channel and LAP's
// operator (kernels.BAMemory, kernels.LaplaceOpMemory) with their dense
// forms on grids below kernels.DenseOpCells cells; the obfuscation's and
// IBU's vectors; the EMDs (emdBytes: the table of distances between the
// cells on small grids, twice with reference_defect_sims, and the network
// simplex's costs between surpluses and deficits); the utility table
// (about 200 bytes a cell). Measured on San Francisco at 100 m cells (m =
// 9,680, n = 11,790), one job alone: 390 MiB peak resident, of which
// about 38 MiB is the process's before any job; this says 409 MiB.
func (def) EstimateBytes(j job) int64 {
	g := j.ds.Grid
	wide := g.Widen(j.p.LapWiden)
	m, n := int64(g.Len()), int64(wide.Len())
	b := kernels.BAMemory(g) + kernels.LaplaceOpMemory(g, wide) + 8*8*(m+n)
	if g.Len() < kernels.DenseOpCells {
		b += kernels.DenseChannelMemory(g, g) + kernels.DenseChannelMemory(g, wide)
	}
	tables := 1
	if j.p.defectSims(j.ds.Preset) > 0 {
		tables = 2
	}
	return b + emdBytes(g, tables) + 200*10*int64(j.p.sims(j.ds.Name))
}

// simSeeds draws the per-simulation, per-mechanism stream seeds from the
// job's stream in a fixed order (simulation-major), so that a spec with
// fewer simulations reproduces the first simulations of a longer one.
func simSeeds(rng *rand.Rand, sims, mechs int) [][][2]uint64 {
	s := make([][][2]uint64, sims)
	for i := range s {
		s[i] = make([][2]uint64, mechs)
		for k := range s[i] {
			s[i][k] = [2]uint64{rng.Uint64(), rng.Uint64()}
		}
	}
	return s
}

// mech is one of the two mechanisms of a job, with what its simulations
// share.
type mech struct {
	name    string
	op      kernels.ChannelOp
	dense   *kernels.Channel // its dense form on small grids (kernels.DenseOf), else nil
	eps     float64
	offGrid []bool // outputs outside the city grid
}

func (def) Run(ctx context.Context, j job, rng *rand.Rand) ([]harness.Table, error) {
	p, ds := j.p, j.ds
	g := ds.Grid
	prior := ds.Prior()
	ba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: j.beta, Iterations: p.BAIterations})
	if err != nil {
		return nil, fmt.Errorf("ba at beta %v: %w", j.beta, err)
	}
	tight, err := ba.TightEpsilon()
	if err != nil {
		return nil, fmt.Errorf("BA at beta %v: %w", j.beta, err)
	}
	eps := tight
	if p.LapEpsilon == "two-beta" {
		eps = 2 * j.beta
	}
	wide := g.Widen(p.LapWiden)
	lap, err := kernels.NewLaplaceOp(g, wide, eps)
	if err != nil {
		return nil, fmt.Errorf("lap at eps %v: %w", eps, err)
	}
	mechs := []*mech{{name: "ba", op: ba, eps: tight}, {name: "lap", op: lap, eps: eps}}
	for _, m := range mechs {
		// A dense channel serves every simulation of the job: check its
		// rows once here, and let utilityOnce use the kernels that skip
		// the check. The operators are stochastic by construction.
		if m.dense = kernels.DenseOf(m.op); m.dense != nil {
			if err := m.dense.Validate(); err != nil {
				return nil, fmt.Errorf("%s channel: %w", m.name, err)
			}
		}
		_, out := m.op.Grids()
		m.offGrid = make([]bool, out.Len())
		for y := range m.offGrid {
			r, c := out.Abs(y)
			m.offGrid[y] = g.IndexOf(r, c) < 0
		}
	}
	util, err := simulate(ctx, j, mechs, simSeeds(rng, p.sims(ds.Name), len(mechs)))
	if err != nil {
		return nil, err
	}
	levels := harness.NewTable("levels", "city", "beta", "two_beta", "ba_tight_epsilon", "lap_epsilon", "ba_iterations")
	levels.Add(harness.Row{"city": ds.Name, "beta": j.beta, "two_beta": 2 * j.beta, "ba_tight_epsilon": tight, "lap_epsilon": eps,
		"ba_iterations": ba.Iterations})
	return []harness.Table{*util, *levels}, nil
}

// simulate runs every simulation of both mechanisms and tabulates them.
func simulate(ctx context.Context, j job, mechs []*mech, seeds [][][2]uint64) (*harness.Table, error) {
	ds := j.ds
	g, prior := ds.Grid, ds.Prior()
	var ibu kernels.IBUWorkspace // reused by every simulation of the job
	trueEMD, err := newGridEMD(g, g.Len())
	if err != nil {
		return nil, err
	}
	// The reference code's LAP value: the same masses, placed on the first
	// cells of the widened grid (row-major) instead of their own cells.
	// Its distance table is as large as the true EMD's: made only when
	// some simulation measures it.
	var defectEMD *gridEMD
	if j.p.defectSims(ds.Preset) > 0 {
		if defectEMD, err = newGridEMD(g.Widen(j.p.LapWiden), g.Len()); err != nil {
			return nil, err
		}
	}
	util := harness.NewTable("utility", "city", "mechanism", "beta", "epsilon", "sim", "emd", "emd_reference_defect",
		"ibu_iterations", "n_reports", "p_reports_off_grid", "emd_m", "emd_reference_defect_m")
	for sim, ss := range seeds {
		for k, m := range mechs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r := rand.New(rand.NewPCG(ss[k][0], ss[k][1]))
			res, err := utilityOnce(r, ds, prior, m, j.p.IBUIterations, &ibu, trueEMD)
			if err != nil {
				return nil, fmt.Errorf("%s sim %d: %w", m.name, sim, err)
			}
			defect, defectM := "", ""
			if sim < j.p.defectSims(ds.Preset) {
				// BA's estimate and prior share the base grid, where the
				// reference code's ground distances are right.
				d := res.emd
				if m.name == "lap" {
					if d, err = defectEMD.dist(prior, res.est); err != nil {
						return nil, fmt.Errorf("lap sim %d: reference EMD: %w", sim, err)
					}
				}
				defect, defectM = harness.FormatFloat(d), param.Metres(ds, d)
			}
			util.Add(harness.Row{"city": ds.Name, "mechanism": m.name, "beta": j.beta, "epsilon": m.eps, "sim": sim, "emd": res.emd,
				"emd_reference_defect": defect, "ibu_iterations": res.iters, "n_reports": res.n, "p_reports_off_grid": res.offGrid,
				"emd_m": param.Metres(ds, res.emd), "emd_reference_defect_m": defectM})
		}
	}
	return util, nil
}

type utilityResult struct {
	est     []float64
	emd     float64
	iters   int
	n       int
	offGrid float64
}

// utilityOnce obfuscates every check-in of ds with m's channel, estimates
// the prior with IBU from uniform and measures the true EMD of the
// estimate to prior. The kernels use the dense form on small grids
// (without re-checking its rows), with the job's IBU work space, whose
// reuse changes nothing there; an operator gets a fresh work space on
// every call, as a reused one may split the FFT products differently.
func utilityOnce(r *rand.Rand, ds *datasets.Dataset, prior []float64, m *mech, ibuIters int,
	w *kernels.IBUWorkspace, e *gridEMD) (utilityResult, error) {
	var reports []int
	var err error
	reports, err = kernels.Obfuscate(r, ds.Counts, m.op)
	if err != nil {
		return utilityResult{}, fmt.Errorf("obfuscate: %w", err)
	}
	n := 0
	for _, v := range reports {
		n += v
	}
	if n == 0 {
		return utilityResult{}, fmt.Errorf("no reports")
	}
	q := make([]float64, len(reports))
	off := 0.0
	for y, v := range reports {
		q[y] = float64(v) / float64(n)
		if m.offGrid[y] {
			off += q[y]
		}
	}
	cfg := kernels.IBUConfig{Iterations: ibuIters}
	var est []float64
	var iters int
	if m.dense != nil {
		est, iters, err = w.IBU(nil, m.op, q, nil, cfg)
	} else {
		est, iters, err = kernels.IBU(m.op, q, nil, cfg)
	}
	if err != nil {
		return utilityResult{}, fmt.Errorf("ibu: %w", err)
	}
	d, err := e.dist(est, prior)
	if err != nil {
		return utilityResult{}, fmt.Errorf("emd: %w", err)
	}
	return utilityResult{est: est, emd: d, iters: iters, n: n, offGrid: off}, nil
}
