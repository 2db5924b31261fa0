package mechanism

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"privic/kernels"
)

// Mechanism builds a channel from one privacy parameter.
//
// Contract: a larger parameter never gives more privacy. Calibrate relies on
// this monotonicity to bracket a target.
type Mechanism interface {
	// Info describes the mechanism and its parameter.
	Info() Info
	// Claim bounds the tight epsilon (kernels.Channel.TightEpsilon) of the channel that
	// Channel(in, out, prior, param) returns.
	Claim(in, out kernels.Grid, param float64) Claim
	// Channel builds the mechanism's channel from in to out. Mechanisms
	// whose Info says PriorDependent use prior (a distribution over in);
	// the others ignore it and accept nil.
	Channel(in, out kernels.Grid, prior []float64, param float64) (*kernels.Channel, error)
}

// Info is a mechanism's metadata.
type Info struct {
	// Name identifies the mechanism in specs and tables ("rr", "lap", ...).
	Name string
	// Param names the privacy parameter ("eps", "beta").
	Param string
	// Min and Max bound the parameter values calibration may try (both
	// > 0; Channel accepts any value in (0, Max]).
	Min, Max float64
	// PriorDependent is true when the channel depends on the prior.
	PriorDependent bool
	// SameGrid is true when the mechanism needs out == in.
	SameGrid bool
	// Reference is the literature the mechanism comes from.
	Reference string
}

// Claim is what a mechanism promises about the tight epsilon of its
// channel: Lo (1 - Tol) <= TightEps <= Hi (1 + Tol). Lo == Hi is an exact
// claim.
type Claim struct {
	Lo, Hi float64
	// Tol is the relative slack of numerical solutions (0 for claims that
	// hold to rounding).
	Tol float64
	// Note says where the bounds come from.
	Note string
}

// Exact reports whether the claim pins the tight epsilon to one value.
func (c Claim) Exact() bool { return c.Lo == c.Hi }

// Options are the settings an experiment gives every mechanism it builds;
// each constructor of the registry takes what applies to its mechanism
// and ignores the rest.
type Options struct {
	// BAIterations is BA's fixed number of iterations from the uniform
	// channel (0: BA's default of 10).
	BAIterations int
	// PlanarPoint is where the planar Laplace mechanism puts the true
	// point in its cell.
	PlanarPoint PointModel
	// LPSolver, LPMethod and LPSpanner configure the optimal mechanism's
	// linear program (see Optimal).
	LPSolver  string
	LPMethod  string
	LPSpanner int
}

// Entry is one mechanism of a Registry: its name in specs, what its
// parameter means, and its constructor.
type Entry struct {
	// Name is the mechanism's name in specs ([a-z0-9-]+).
	Name string
	// Param says what the privacy parameter means, for the docs.
	Param string
	// New builds the mechanism with the experiment's options.
	New func(o Options) Mechanism
	// WideOutput marks mechanisms whose reports may fall outside the input
	// grid: experiments give them the output grid widened on every side
	// (LAP's, as in the paper's reference code). Others report on the
	// input grid.
	WideOutput bool
	// Coarsen marks mechanisms too costly for a city grid, which
	// experiments run on blocks of cells through Coarsened (the optimal
	// mechanism's LP).
	Coarsen bool
	// Style is how figures draw the mechanism, the same in all of them.
	Style Style
}

// Style is how figures draw a mechanism's series: its colour, its
// marker (a name of package plots' markers: circle, ring, box, square,
// pyramid, triangle, diamond, cross, plus) and its line's dash pattern
// (lengths in points, drawn and skipped in turn; nil: solid). The fields
// match plots.Style, so plots.Style(s) converts one.
type Style struct {
	Color  color.RGBA
	Marker string
	Dash   []float64
}

// Reference is the literature of the mechanism (from its Info).
func (e Entry) Reference() string { return e.New(Options{}).Info().Reference }

// Builtin is the table of the mechanisms this package provides, in the
// order experiments list them. Adding a mechanism is adding its file and
// its line here.
func Builtin() []Entry {
	return []Entry{
		{Name: "ba", Param: "beta, BA's loss parameter (1/cell); BA is 2·beta-geo-indistinguishable",
			New:   func(o Options) Mechanism { return BA{Iterations: o.BAIterations} },
			Style: Style{Color: okabeIto[0], Marker: "circle"}},
		{Name: "lap", Param: "eps, the Laplace noise's geo-indistinguishability level (1/cell)", WideOutput: true,
			New:   func(Options) Mechanism { return LAP{} },
			Style: Style{Color: okabeIto[1], Marker: "box", Dash: []float64{5, 3}}},
		{Name: "rr", Param: "eps, the local differential privacy level of k-ary randomized response",
			New:   func(Options) Mechanism { return RR{} },
			Style: Style{Color: okabeIto[2], Marker: "pyramid", Dash: []float64{1.5, 2}}},
		{Name: "planar-laplace", Param: "eps, the continuous planar Laplace noise's level (1/cell), before snapping to a cell",
			New:   func(o Options) Mechanism { return PlanarLaplace{Point: o.PlanarPoint} },
			Style: Style{Color: okabeIto[3], Marker: "cross", Dash: []float64{6, 2, 1.5, 2}}},
		{Name: "optimal", Param: "eps, the geo-indistinguishability constraint of the linear program (1/cell)", Coarsen: true,
			New: func(o Options) Mechanism {
				return Optimal{Spanner: o.LPSpanner, Solver: o.LPSolver, Method: o.LPMethod}
			},
			Style: Style{Color: okabeIto[4], Marker: "ring", Dash: []float64{9, 3}}},
		{Name: "elastic-metric", Param: "eps, the privacy level on the elastic metric built from the prior (the exponential mechanism is eps d_l-private)",
			New:   func(Options) Mechanism { return Elastic{} },
			Style: Style{Color: okabeIto[5], Marker: "diamond", Dash: []float64{3, 2, 3, 5}}},
	}
}

// okabeIto is the Okabe-Ito palette, whose colours colour-blind readers
// tell apart: blue, vermillion, bluish green, reddish purple, orange, sky
// blue.
var okabeIto = [...]color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, {0xD5, 0x5E, 0x00, 0xFF}, {0x00, 0x9E, 0x73, 0xFF},
	{0xCC, 0x79, 0xA7, 0xFF}, {0xE6, 0x9F, 0x00, 0xFF}, {0x56, 0xB4, 0xE9, 0xFF},
}

// StyleOf is the style of the built-in mechanism that label names: its
// name, or a variant's label that starts with it and a '-' (the longest
// such name: "optimal-spanner1-coarse3" is optimal's, "planar-laplace-
// centre" planar-laplace's). False for any other label.
func StyleOf(label string) (Style, bool) {
	var best Entry
	for _, e := range Builtin() {
		if (label == e.Name || strings.HasPrefix(label, e.Name+"-")) && len(e.Name) > len(best.Name) {
			best = e
		}
	}
	return best.Style, best.Name != ""
}

// Registry maps mechanism names to their entries. It is a value built
// explicitly (NewRegistry(Builtin()...)); nothing registers itself.
type Registry struct {
	entries []Entry
}

// NewRegistry checks the entries (names [a-z0-9-]+ and distinct, a
// constructor each) and returns their registry, in the given order.
func NewRegistry(entries ...Entry) (*Registry, error) {
	seen := map[string]bool{}
	for _, e := range entries {
		if !validName(e.Name) {
			return nil, fmt.Errorf("mechanism registry: name %q: use a-z, 0-9 and '-'", e.Name)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("mechanism registry: %q registered twice", e.Name)
		}
		if e.New == nil {
			return nil, fmt.Errorf("mechanism registry: %q has no constructor", e.Name)
		}
		seen[e.Name] = true
	}
	return &Registry{entries: slices.Clone(entries)}, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Names lists the registered names in registry order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.Name
	}
	return names
}

// Entries returns the entries in registry order.
func (r *Registry) Entries() []Entry { return slices.Clone(r.entries) }

// Lookup returns the entry called name.
func (r *Registry) Lookup(name string) (Entry, error) {
	for _, e := range r.entries {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("unknown mechanism %q (known: %s)", name, strings.Join(r.Names(), ", "))
}

// LP is implemented by mechanisms whose channel is the solution of a
// linear program: experiments report the solver and the size, and skip
// programs too large for the solver before building them.
type LP interface {
	LPSize(in, out kernels.Grid) LPSize
}

// LPSize describes the linear program a mechanism solves.
type LPSize struct {
	Solver string
	// Method is the solve method (see Optimal.Method): with
	// MethodDecompose the constraints are never built, so their count
	// limits nothing.
	Method      string
	Grid        kernels.Grid // the grid the program is posed on
	Constraints int          // rows, the stochastic ones included
}

// LPSize implements LP.
func (m Optimal) LPSize(in, out kernels.Grid) LPSize {
	_, rows := m.Size(in, out)
	return LPSize{Solver: m.Solver, Method: m.method(), Grid: in, Constraints: rows}
}

// LPSize implements LP when the base mechanism does: the program is posed
// on the block grid.
func (m Coarsened) LPSize(in, out kernels.Grid) LPSize {
	lp, ok := m.Base.(LP)
	if !ok {
		return LPSize{}
	}
	c := m.Coarse(in)
	return lp.LPSize(c, c)
}

// checkParam rejects parameters outside (0, info.Max].
func checkParam(info Info, param float64) error {
	if !(param > 0) || param > info.Max || math.IsInf(param, 0) {
		return fmt.Errorf("%s: %s = %v: must be in (0, %v]", info.Name, info.Param, param, info.Max)
	}
	return nil
}

// checkGrids validates both grids and, for same-grid mechanisms, that they
// coincide.
func checkGrids(info Info, in, out kernels.Grid) error {
	if err := in.Validate(); err != nil {
		return fmt.Errorf("%s: input %w", info.Name, err)
	}
	if err := out.Validate(); err != nil {
		return fmt.Errorf("%s: output %w", info.Name, err)
	}
	if info.SameGrid && in != out {
		return fmt.Errorf("%s: output grid %v must equal input grid %v", info.Name, out, in)
	}
	return nil
}

// checkArgs is the argument check every parametrised mechanism's Channel
// and Op begin with: the parameter within (0, info.Max] (checkParam), then
// the grids (checkGrids).
func checkArgs(info Info, in, out kernels.Grid, param float64) error {
	if err := checkParam(info, param); err != nil {
		return err
	}
	return checkGrids(info, in, out)
}

// checkedBuild is the body of a mechanism's Channel or Op that needs no
// more than its arguments checked: checkArgs for m at parameter p, then
// build, whose error gets m's name and parameter as context. On an error
// it returns T's zero value (a nil interface, never a typed nil).
func checkedBuild[T any](m Mechanism, in, out kernels.Grid, p float64, build func(in, out kernels.Grid, p float64) (T, error)) (T, error) {
	var zero T
	info := m.Info()
	if err := checkArgs(info, in, out, p); err != nil {
		return zero, err
	}
	v, err := build(in, out, p)
	if err != nil {
		return zero, fmt.Errorf("%s: %s=%v: %w", info.Name, info.Param, p, err)
	}
	return v, nil
}

// checkPrior validates a distribution over g.
func checkPrior(name string, g kernels.Grid, prior []float64) error {
	if len(prior) != g.Len() {
		return fmt.Errorf("%s: prior has %d entries, grid %v has %d cells", name, len(prior), g, g.Len())
	}
	s := 0.0
	for i, v := range prior {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: prior[%d] = %v: must be finite and >= 0", name, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > kernels.StochasticTol*float64(len(prior)) {
		return fmt.Errorf("%s: prior sums to %v, want 1", name, s)
	}
	return nil
}
