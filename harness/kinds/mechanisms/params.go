package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"privic/datasets"
	"privic/harness"
	"privic/kernels/mechanism"
)

// params is the [params] table of the "mechanisms" kind.
type params struct {
	// Cities are the data sets.
	Cities []string           `toml:"cities"`
	Rows   datasets.RowPolicy `toml:"rows"`
	// Mechanisms are compared: ba, lap, rr, planar-laplace, optimal.
	Mechanisms []string `toml:"mechanisms"`
	// Calibrations are the footings: eps, distortion, mi.
	Calibrations []string `toml:"calibrations"`
	// Eps, Distortion and MI are the levels of each calibration: tight
	// epsilon (per cell), average distortion (cells), mutual information
	// (nats).
	Eps        harness.Sweep `toml:"eps"`
	Distortion harness.Sweep `toml:"distortion"`
	MI         harness.Sweep `toml:"mi"`
	// Sims is the number of obfuscate-and-estimate simulations per level.
	Sims          int `toml:"sims"`
	IBUIterations int `toml:"ibu_iterations"`
	BAIterations  int `toml:"ba_iterations"`
	// LapWiden widens LAP's output grid (reference code: 5).
	LapWiden int `toml:"lap_widen"`
	// PlanarPoint: the true point of the planar Laplace mechanism is
	// "uniform" in its cell or at its "centre".
	PlanarPoint string `toml:"planar_point"`
	// CalibrationTol is the relative tolerance on the calibrated quantity.
	CalibrationTol float64 `toml:"calibration_tol"`
	// CalibrationMethod is "bisection" or "illinois".
	CalibrationMethod string `toml:"calibration_method"`
	// LP configures the optimal mechanism.
	LP lpParams `toml:"lp"`
	// A maps a city to its vulnerable cell [row, col]; cities without an
	// entry get no identification figures.
	A map[string][]int `toml:"a"`
	// Island is the island prior around A for identification.
	Island islandParams `toml:"island"`
}

// lpParams is [params.lp].
type lpParams struct {
	// Solver is "auto" (glpk if compiled in, else gonum), "gonum" or "glpk".
	Solver string `toml:"solver"`
	// Spanner: 0 all pairs, k >= 1 the spanner of mechanism.Optimal.
	Spanner int `toml:"spanner"`
	// Coarsen maps a city to the block size the LP is solved on (1: the
	// full grid); missing cities use 1.
	Coarsen map[string]int `toml:"coarsen"`
	// MaxConstraints skips LPs with more constraints (0: 1000 for gonum,
	// 200000 for glpk).
	MaxConstraints int `toml:"max_constraints"`
}

// islandParams is [params.island] (as in the paper kinds).
type islandParams struct {
	Mode   datasets.IslandMode `toml:"mode"`
	AMass  float64             `toml:"a_mass"`
	Radius int                 `toml:"radius"`
}

// knownMechanisms are the names accepted in params.mechanisms.
var knownMechanisms = []string{"ba", "lap", "rr", "planar-laplace", "optimal"}

func defaultParams() *params {
	return &params{
		Cities:            []string{"paris", "sf"},
		Rows:              datasets.HeaderQuirk,
		Mechanisms:        slices.Clone(knownMechanisms),
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
		LP:                lpParams{Solver: "auto", Spanner: 1, Coarsen: map[string]int{"paris": 3, "sf": 4}},
		A:                 map[string][]int{"paris": {datasets.ARow, datasets.ACol}},
		Island:            islandParams{Mode: datasets.SetMass, AMass: 0.01, Radius: 2},
	}
}

func distinct(key string, vals []string, allowed []string) error {
	if len(vals) == 0 {
		return fmt.Errorf("params.%s: empty; give at least one of %s", key, quoteJoin(allowed))
	}
	seen := map[string]bool{}
	for i, v := range vals {
		if allowed != nil && !slices.Contains(allowed, v) {
			return fmt.Errorf("params.%s[%d] = %q: allowed values are %s", key, i, v, quoteJoin(allowed))
		}
		if seen[v] {
			return fmt.Errorf("params.%s[%d] = %q: duplicate", key, i, v)
		}
		seen[v] = true
	}
	return nil
}

// quoteJoin is the shared spelling of a list of allowed values.
func quoteJoin(s []string) string { return harness.QuoteJoin(s) }

// Validate implements harness.Params.
func (p *params) Validate() error {
	if err := distinct("cities", p.Cities, datasets.CityNames()); err != nil {
		return err
	}
	if err := distinct("mechanisms", p.Mechanisms, knownMechanisms); err != nil {
		return err
	}
	if err := distinct("calibrations", p.Calibrations, mechanism.Targets()); err != nil {
		return err
	}
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
	if err := harness.IntIn("sims", p.Sims, 1, 10000); err != nil {
		return err
	}
	if err := harness.IntIn("ibu_iterations", p.IBUIterations, 1, 100000); err != nil {
		return err
	}
	if err := harness.IntIn("ba_iterations", p.BAIterations, 1, 100000); err != nil {
		return err
	}
	if err := harness.IntIn("lap_widen", p.LapWiden, 0, 100); err != nil {
		return err
	}
	if p.PlanarPoint != "uniform" && p.PlanarPoint != "centre" {
		return fmt.Errorf("params.planar_point = %q: allowed values are \"uniform\", \"centre\"", p.PlanarPoint)
	}
	if !(p.CalibrationTol >= 1e-12 && p.CalibrationTol <= 0.1) {
		return fmt.Errorf("params.calibration_tol = %v: must lie in [1e-12, 0.1]", p.CalibrationTol)
	}
	if _, err := mechanism.ParseMethod(p.CalibrationMethod); err != nil {
		return fmt.Errorf("params.calibration_method = %q: allowed values are \"bisection\", \"illinois\"", p.CalibrationMethod)
	}
	switch p.LP.Solver {
	case "auto", mechanism.SolverGonum, mechanism.SolverGLPK:
	default:
		return fmt.Errorf("params.lp.solver = %q: allowed values are \"auto\", \"gonum\", \"glpk\"", p.LP.Solver)
	}
	if err := harness.IntIn("lp.spanner", p.LP.Spanner, 0, 10); err != nil {
		return err
	}
	for _, c := range sortedKeys(p.LP.Coarsen) {
		if _, err := datasets.Lookup(c); err != nil {
			return fmt.Errorf("params.lp.coarsen.%s: %w", c, err)
		}
		if err := harness.IntIn("lp.coarsen."+c, p.LP.Coarsen[c], 1, 100); err != nil {
			return err
		}
	}
	if p.LP.MaxConstraints < 0 {
		return fmt.Errorf("params.lp.max_constraints = %d: must be >= 0", p.LP.MaxConstraints)
	}
	for _, c := range sortedKeys(p.A) {
		if _, err := datasets.Lookup(c); err != nil {
			return fmt.Errorf("params.a.%s: %w", c, err)
		}
		a := p.A[c]
		if len(a) != 2 || a[0] < 0 || a[1] < 0 {
			return fmt.Errorf("params.a.%s = %v: want [row, col] with row, col >= 0", c, a)
		}
		// Refuse a cell outside the city's grid now, not in the first job.
		ds, err := datasets.Load(c, datasets.LoadOptions{Rows: p.Rows})
		if err != nil {
			return fmt.Errorf("params.a.%s: %w", c, err)
		}
		if ds.Grid.IndexOf(a[0], a[1]) < 0 {
			return fmt.Errorf("params.a.%s = %v lies outside the %v grid", c, a, ds.Grid)
		}
	}
	if p.Island.Mode != datasets.SetMass && p.Island.Mode != datasets.MoveMass {
		return fmt.Errorf("params.island.mode: allowed values are \"set\", \"move\"")
	}
	if p.Island.Mode == datasets.SetMass && !(p.Island.AMass > 0 && p.Island.AMass < 1) {
		return fmt.Errorf("params.island.a_mass = %v: must lie in (0, 1)", p.Island.AMass)
	}
	if err := harness.IntIn("island.radius", p.Island.Radius, 0, 1000); err != nil {
		return err
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
	if k, ok := p.LP.Coarsen[city]; ok {
		return k
	}
	return 1
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
