package mechanisms

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
	"privic/kernels/mechanism"
)

// params is the [params] table of the "mechanisms" kind.
type params struct {
	param.Data
	// Mechanisms are compared; allowed: the names of the registry.
	Mechanisms []string `toml:"mechanisms"`
	// Calibrations are the footings: eps, distortion, mi.
	Calibrations []string `toml:"calibrations"`
	// Eps, Distortion and MI are the levels of each calibration: tight
	// epsilon (per cell), average distortion (cells), mutual information
	// (nats).
	Eps        harness.Sweep `toml:"eps"`
	Distortion harness.Sweep `toml:"distortion"`
	MI         harness.Sweep `toml:"mi"`
	// Island is the island prior around A for identification.
	Island island.Params `toml:"island"`
	// Sims is the number of obfuscate-and-estimate simulations per level.
	Sims int `toml:"sims"`
	// LP configures the mechanisms solved as linear programs.
	LP            lpParams `toml:"lp"`
	IBUIterations int      `toml:"ibu_iterations"`
	BAIterations  int      `toml:"ba_iterations"`
	// LapWiden widens the output grid of the mechanisms whose reports may
	// leave the input grid (LAP; reference code: 5).
	LapWiden int `toml:"lap_widen"`
	// PlanarPoint: the true point of the planar Laplace mechanism is
	// "uniform" in its cell or at its "centre".
	PlanarPoint string `toml:"planar_point"`
	// CalibrationTol is the relative tolerance on the calibrated quantity.
	CalibrationTol float64 `toml:"calibration_tol"`
	// CalibrationMethod is "bisection" or "illinois".
	CalibrationMethod string `toml:"calibration_method"`
	// A maps a dataset to its vulnerable location: a place name or [row,
	// col] ("default": for the datasets without an entry). A dataset
	// without one uses its place A, and one without that gets no
	// identification values.
	A param.ByDataset[param.Loc] `toml:"a"`

	// reg is the mechanism registry the names come from (not a key).
	reg *mechanism.Registry
	// aCells is A resolved per dataset of Cities (by Validate; not a key).
	aCells map[string]param.Cell
}

// lpParams is [params.lp].
type lpParams struct {
	// Solver is "auto" (glpk if compiled in, else gonum), "gonum", "glpk"
	// or "clp".
	Solver string `toml:"solver"`
	// Method is the solve method of mechanism.Optimal: "" (the solver's
	// default), "decompose" (certified Dantzig-Wolfe decomposition, whole
	// city grids), "dual", "primal" or "interior".
	Method string `toml:"method"`
	// Spanner: 0 all pairs, k >= 1 the spanner of mechanism.Optimal.
	Spanner int `toml:"spanner"`
	// Spanners overrides Spanner per dataset ("default": the others).
	Spanners param.ByDataset[int] `toml:"spanners"`
	// CalibrationTol, if > 0, replaces calibration_tol for the mechanisms
	// solved as linear programs (their calibrations over eps cost a solve
	// per step).
	CalibrationTol float64 `toml:"calibration_tol"`
	// TimeLimit bounds the LP solves of one job of the optimal mechanism
	// on a whole grid (its calibration and the island prior's solve), in
	// seconds (0: none); a job that reaches it is recorded as such, not as
	// a failure.
	TimeLimit float64 `toml:"time_limit"`
	// Calibrations, if set, are the only calibrations the optimal
	// mechanism runs on whole grids (not on blocks); its others are
	// skipped and say so. The distortion and mutual-information
	// calibrations solve the LP at every step of the search over eps.
	Calibrations []string `toml:"calibrations"`
	// Coarsen maps a dataset to the block size the costly mechanisms are
	// solved on (1: the full grid), with a "default" entry for the
	// others; a dataset without either gets autoCoarsen's.
	Coarsen param.ByDataset[int] `toml:"coarsen"`
	// MaxConstraints skips LPs with more constraints (0: 1000 for gonum,
	// 200000 for glpk).
	MaxConstraints int `toml:"max_constraints"`
}

func defaultParams(reg *mechanism.Registry) *params {
	return &params{
		Data:              param.Data{Cities: param.Presets(), Rows: datasets.HeaderQuirk},
		Mechanisms:        reg.Names(),
		Calibrations:      mechanism.Targets(),
		Eps:               harness.SweepOf(0.5, 1, 2, 4),
		Distortion:        harness.SweepOf(0.5, 1, 2),
		MI:                harness.SweepOf(0.5, 1, 2),
		Sims:              3,
		IBUIterations:     10,
		BAIterations:      10,
		LapWiden:          5,
		PlanarPoint:       "uniform",
		CalibrationTol:    mechanism.DefaultRelTol,
		CalibrationMethod: "illinois",
		LP:                lpParams{Solver: "auto", Spanner: 1, Spanners: map[string]int{}, Coarsen: map[string]int{}},
		A:                 map[string]param.Loc{},
		Island:            island.Default(),
		reg:               reg,
	}
}

// distinct checks a non-empty list of distinct allowed values.
func distinct(key string, vals []string, allowed []string) error {
	if len(vals) == 0 {
		return fmt.Errorf("params.%s: empty; give at least one of %s", key, harness.QuoteJoin(allowed))
	}
	for i, v := range vals {
		if err := harness.OneOf(fmt.Sprintf("%s[%d]", key, i), v, allowed...); err != nil {
			return err
		}
		for _, w := range vals[:i] {
			if w == v {
				return fmt.Errorf("params.%s[%d] = %q: duplicate", key, i, v)
			}
		}
	}
	return nil
}

// Validate implements harness.Params.
func (p *params) Validate() error {
	if err := p.Data.Validate(); err != nil {
		return err
	}
	if err := distinct("mechanisms", p.Mechanisms, p.reg.Names()); err != nil {
		return err
	}
	if err := distinct("calibrations", p.Calibrations, mechanism.Targets()); err != nil {
		return err
	}
	if err := p.validateLevels(); err != nil {
		return err
	}
	for _, c := range []struct {
		key    string
		v, max int
	}{{"sims", p.Sims, 10000}, {"ibu_iterations", p.IBUIterations, 100000}, {"ba_iterations", p.BAIterations, 100000}} {
		if err := harness.IntIn(c.key, c.v, 1, c.max); err != nil {
			return err
		}
	}
	if err := harness.IntIn("lap_widen", p.LapWiden, 0, 100); err != nil {
		return err
	}
	if err := harness.OneOf("planar_point", p.PlanarPoint, "uniform", "centre"); err != nil {
		return err
	}
	if !(p.CalibrationTol >= 1e-12 && p.CalibrationTol <= 0.1) {
		return fmt.Errorf("params.calibration_tol = %v: must lie in [1e-12, 0.1]", p.CalibrationTol)
	}
	if err := harness.OneOf("calibration_method", p.CalibrationMethod, "bisection", "illinois"); err != nil {
		return err
	}
	if err := p.validateLP(); err != nil {
		return err
	}
	if err := p.Island.Validate("island"); err != nil {
		return err
	}
	return p.resolveA()
}

// resolveA checks params.a and resolves the vulnerable location of every
// dataset of Cities into aCells.
func (p *params) resolveA() error {
	if err := param.PerData(&p.Catalog, "a", p.A, nil); err != nil {
		return err
	}
	p.aCells = map[string]param.Cell{}
	for _, n := range slices.Sorted(maps.Keys(p.A)) {
		if n == datasets.DefaultName {
			continue
		}
		ds, err := p.Dataset(n, p.Rows)
		if err != nil {
			return fmt.Errorf("params.a.%s: %w", n, err)
		}
		loc := p.A[n]
		if err := loc.Resolve("a."+n, ds, "A"); err != nil {
			return err
		}
	}
	for _, c := range p.Cities {
		ds, err := p.Dataset(c, p.Rows)
		if err != nil {
			return fmt.Errorf("params.cities: %w", err)
		}
		loc, given := p.A[c]
		if !given {
			loc, given = p.A[datasets.DefaultName]
		}
		if !given {
			if _, ok := ds.Place("A"); !ok {
				continue // no A: no identification values
			}
		}
		if err := loc.Resolve("a."+c, ds, "A"); err != nil {
			return err
		}
		if err := p.Island.ValidateOn("island", ds); err != nil {
			return err
		}
		p.aCells[c] = loc.Cell
	}
	return nil
}

func (p *params) validateLevels() error {
	positive := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	for _, c := range p.Calibrations {
		s := p.levels(c)
		if s.Len() == 0 {
			return fmt.Errorf("params.%s: empty, but calibration %q is requested", levelKey(c), c)
		}
		if err := s.Check("params."+levelKey(c), "levels must be finite and > 0", positive); err != nil {
			return err
		}
	}
	return nil
}

func (p *params) validateLP() error {
	if err := harness.OneOf("lp.solver", p.LP.Solver, "auto", mechanism.SolverGonum, mechanism.SolverGLPK, mechanism.SolverCLP); err != nil {
		return err
	}
	if p.LP.Method != "" {
		if err := harness.OneOf("lp.method", p.LP.Method, mechanism.MethodDecompose, mechanism.MethodDual, mechanism.MethodPrimal, mechanism.MethodInterior); err != nil {
			return err
		}
	}
	if err := harness.IntIn("lp.spanner", p.LP.Spanner, 0, 10); err != nil {
		return err
	}
	if err := param.PerData(&p.Catalog, "lp.spanners", p.LP.Spanners, param.IntsIn(0, 10)); err != nil {
		return err
	}
	if t := p.LP.TimeLimit; !(t >= 0 && t <= 1e6) {
		return fmt.Errorf("params.lp.time_limit = %v: must be 0 (none) or seconds in (0, 1e6]", t)
	}
	if len(p.LP.Calibrations) > 0 {
		if err := distinct("lp.calibrations", p.LP.Calibrations, mechanism.Targets()); err != nil {
			return err
		}
	}
	if c := p.LP.CalibrationTol; c != 0 && !(c >= 1e-12 && c <= 0.1) {
		return fmt.Errorf("params.lp.calibration_tol = %v: must be 0 (calibration_tol) or lie in [1e-12, 0.1]", c)
	}
	if err := param.PerData(&p.Catalog, "lp.coarsen", p.LP.Coarsen, param.IntsIn(1, 100)); err != nil {
		return err
	}
	if p.LP.MaxConstraints < 0 {
		return fmt.Errorf("params.lp.max_constraints = %d: must be >= 0", p.LP.MaxConstraints)
	}
	return nil
}

// levels returns the sweep of calibration c.
func (p *params) levels(c string) harness.Sweep {
	switch c {
	case "eps":
		return p.Eps
	case "distortion":
		return p.Distortion
	}
	return p.MI
}

// levelKey is the params key holding the levels of calibration c.
func levelKey(c string) string {
	if c == "eps" || c == "distortion" {
		return c
	}
	return "mi"
}

// lpSolver resolves params.lp.solver.
func (p *params) lpSolver() string {
	if p.LP.Solver == "auto" {
		if mechanism.SolverAvailable(mechanism.SolverGLPK) {
			return mechanism.SolverGLPK
		}
		return mechanism.SolverGonum
	}
	return p.LP.Solver
}

// lpLimit is the constraint count above which the LP is skipped.
func (p *params) lpLimit(solver string) int {
	if p.LP.MaxConstraints > 0 {
		return p.LP.MaxConstraints
	}
	if solver == mechanism.SolverGLPK {
		return 200000
	}
	return 1000
}

func (p *params) coarsen(city string) int {
	auto := 1
	if ds, err := p.Dataset(city, p.Rows); err == nil {
		auto = autoCoarsen(ds.Grid.Rows, ds.Grid.Cols)
	}
	return param.Get(p.LP.Coarsen, city, auto)
}

// maxCoarseBlocks is the size of the coarse grid autoCoarsen aims at:
// LPs over at most this many blocks stay within GLPK's reach in seconds.
const maxCoarseBlocks = 24

// autoCoarsen is the block size of a dataset without an lp.coarsen entry:
// the smallest whose coarse grid has at most maxCoarseBlocks blocks
// (the paper's grids: Paris 11 x 15 in 3 x 3 blocks, SF 16 x 24 in 4 x 4).
func autoCoarsen(rows, cols int) int {
	for k := 1; ; k++ {
		if ((rows+k-1)/k)*((cols+k-1)/k) <= maxCoarseBlocks {
			return k
		}
	}
}

// spanner is the LP spanner of city.
func (p *params) spanner(city string) int { return param.Get(p.LP.Spanners, city, p.LP.Spanner) }

// options are the mechanisms' settings from the params for city.
func (p *params) options(city string) mechanism.Options {
	pm := mechanism.UniformInCell
	if p.PlanarPoint == "centre" {
		pm = mechanism.CellCentre
	}
	return mechanism.Options{BAIterations: p.BAIterations, PlanarPoint: pm, LPSolver: p.lpSolver(), LPMethod: p.LP.Method, LPSpanner: p.spanner(city)}
}

// SizeLimits implements harness.SizeLimited: per dataset and mechanism,
// what the run will refuse or leave out by size, before any job runs:
// an LP above its constraint limit (skipped), the eps calibration of a
// structured channel whose tight epsilon is an intractable brute force
// (refused; its tight_epsilon column is empty in the other
// calibrations), and the Bayes error, dense by nature, above
// mechanism.BayesErrorMaxOps operations on grids run as operators.
func (p *params) SizeLimits() []string {
	var out []string
	for _, c := range p.Cities {
		ds, err := p.Dataset(c, p.Rows)
		if err != nil {
			continue // Validate has refused it
		}
		g := ds.Grid
		for _, name := range p.Mechanisms {
			s := build(p, c, name, g)
			at := fmt.Sprintf("%s, %s (%d x %d cells)", c, name, g.Rows, g.Cols)
			if s.skip != "" {
				out = append(out, fmt.Sprintf("%s: every job skipped: %s", at, s.skip))
				continue
			}
			if !s.ops {
				continue
			}
			if op, ok := s.m.(mechanism.Operator); ok {
				if err := mechanism.OpTightEpsLimit(op, s.in, s.out); err != nil {
					what := "tight_epsilon left empty"
					switch {
					case len(p.Calibrations) == 1 && p.Calibrations[0] == "eps":
						what = "the eps calibration refused (calibration.csv, skipped.csv)"
					case slices.Contains(p.Calibrations, "eps"):
						what = "the eps calibration refused (calibration.csv, skipped.csv), and tight_epsilon left empty in the others"
					}
					out = append(out, fmt.Sprintf("%s: %s: %v", at, what, err))
				}
			}
			if ops := float64(s.out.Len()) * float64(g.Len()) * float64(g.Len()); ops > mechanism.BayesErrorMaxOps {
				out = append(out, fmt.Sprintf("%s: bayes_error left empty: a minimum over guesses for every report, O(|Y| |X|^2) = %.3g operations, above %.3g",
					at, ops, mechanism.BayesErrorMaxOps))
			}
		}
	}
	return out
}
