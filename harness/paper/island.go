package paper

import (
	"fmt"
	"math"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
)

// islandParams is the [params.island] table: how the artificial island
// around the vulnerable location A is made (PROTOCOL.md experiment 1).
type islandParams struct {
	// Mode "set" is the reference code: zero the block around A, give A
	// the mass a_mass and rescale the rest to sum to 1 - a_mass. Mode
	// "move" is the paper's text: zero the block and move its mass onto A.
	Mode datasets.IslandMode `toml:"mode"`
	// AMass is A's mass in "set" mode (reference code: 0.01).
	AMass float64 `toml:"a_mass"`
	// Radius is the half-width of the zeroed square block (Chebyshev
	// radius): 2 gives the reference code's 5 x 5 block, rows 4-8 and
	// columns 1-5 around A = (6, 3).
	Radius int `toml:"radius"`
}

func defaultIsland() islandParams {
	return islandParams{Mode: datasets.SetMass, AMass: 0.01, Radius: 2}
}

func (ip islandParams) validate(key string) error {
	if ip.Mode != datasets.SetMass && ip.Mode != datasets.MoveMass {
		return fmt.Errorf("params.%s.mode: allowed values are \"set\", \"move\"", key)
	}
	if ip.Mode == datasets.SetMass && !(ip.AMass > 0 && ip.AMass < 1) {
		return fmt.Errorf("params.%s.a_mass = %v: must lie in (0, 1)", key, ip.AMass)
	}
	return harness.IntIn(key+".radius", ip.Radius, 0, 1000)
}

// describe says in words what the island is, for sections.
func (ip islandParams) describe() string {
	side := 2*ip.Radius + 1
	if ip.Mode == datasets.SetMass {
		return fmt.Sprintf("the %dx%d block around A zeroed, A given mass %s and the rest rescaled (reference code, mode \"set\")",
			side, side, fmtG(ip.AMass, 4))
	}
	return fmt.Sprintf("the %dx%d block around A zeroed and its mass moved onto A (paper's text, mode \"move\")", side, side)
}

// islandPrior builds the island prior of ds around cell a and the mask of
// the zeroed block (A excluded).
func islandPrior(ds *datasets.Dataset, a int, ip islandParams) ([]float64, []bool, error) {
	r, c := ds.Grid.Cell(a)
	opt := datasets.IslandOptions{Row: r, Col: c, Radius: ip.Radius, Mode: ip.Mode}
	if ip.Mode == datasets.SetMass {
		opt.Mass = ip.AMass
	}
	prior, err := datasets.Island(ds.Grid, ds.Prior(), opt)
	if err != nil {
		return nil, nil, fmt.Errorf("island prior of %s: %w", ds.Name, err)
	}
	block := islandBlock(ds.Grid, a, ip.Radius)
	return prior, block, nil
}

// islandBlock marks the cells within Chebyshev distance radius of a,
// a itself excluded.
func islandBlock(g kernels.Grid, a, radius int) []bool {
	ar, ac := g.Cell(a)
	block := make([]bool, g.Len())
	for i := range block {
		r, c := g.Cell(i)
		if i != a && max(abs(r-ar), abs(c-ac)) <= radius {
			block[i] = true
		}
	}
	return block
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// massCheck verifies a prior sums to 1 (defence against a transform bug
// silently skewing every downstream number).
func massCheck(name string, p []float64) error {
	s := 0.0
	for _, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: entry %v is not a probability", name, v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-9 {
		return fmt.Errorf("%s sums to %v, want 1", name, s)
	}
	return nil
}
