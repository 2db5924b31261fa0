package mechanism

import (
	"fmt"
	"math"
	"sort"
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
	// Claim bounds the tight epsilon (kernels.TightEps) of the channel that
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

// Names lists the names accepted by Lookup, sorted.
func Names() []string {
	names := []string{"ba", "lap", "rr", "planar-laplace", "planar-laplace-centre", "optimal", "optimal-spanner1", "optimal-spanner2", "elastic-metric"}
	sort.Strings(names)
	return names
}

// Lookup returns the mechanism called name with its default settings.
func Lookup(name string) (Mechanism, error) {
	switch name {
	case "ba":
		return BA{}, nil
	case "lap":
		return LAP{}, nil
	case "rr":
		return RR{}, nil
	case "planar-laplace":
		return PlanarLaplace{}, nil
	case "planar-laplace-centre":
		return PlanarLaplace{Point: CellCentre}, nil
	case "optimal":
		return Optimal{}, nil
	case "optimal-spanner1":
		return Optimal{Spanner: 1}, nil
	case "optimal-spanner2":
		return Optimal{Spanner: 2}, nil
	case "elastic-metric":
		return Elastic{}, nil
	}
	return nil, fmt.Errorf("unknown mechanism %q (known: %s)", name, strings.Join(Names(), ", "))
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
