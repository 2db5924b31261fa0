package datasets

import (
	"fmt"
	"math"

	"privic/kernels"
	"privic/kernels/enum"
)

// IslandMode says what Island does with the mass of the zeroed cells.
type IslandMode int

const (
	// MoveMass moves the mass of the zeroed cells onto A, as the paper's
	// text describes (Sec. III-A): A gets its own mass plus theirs and no
	// other cell changes.
	MoveMass IslandMode = iota
	// SetMass gives A a set mass (the reference code uses 0.01), zeroes
	// the other cells of the block and rescales every other cell so the
	// total is unchanged.
	SetMass
)

// String returns the mode's spec name ("move", "set").
func (m IslandMode) String() string { return islandModes.String(m) }

// UnmarshalText parses a mode's spec name.
func (m *IslandMode) UnmarshalText(b []byte) error { return islandModes.Unmarshal(b, m) }

// MarshalText lets specs and manifests spell the mode by name.
func (m IslandMode) MarshalText() ([]byte, error) { return islandModes.Marshal(m) }

// ParseIslandMode parses a mode's spec name.
func ParseIslandMode(s string) (IslandMode, error) { return islandModes.Parse(s) }

// islandModes are the spec names of the island modes, by value
// (read-only).
var islandModes = enum.New[IslandMode]("IslandMode", "island mode", "move", "set")

// Block is a rectangle of local cells, bounds inclusive.
type Block struct {
	Row0 int `toml:"row0"`
	Row1 int `toml:"row1"`
	Col0 int `toml:"col0"`
	Col1 int `toml:"col1"`
}

// IslandOptions configures Island. Cells are local (row, col) of the grid.
type IslandOptions struct {
	Row int `toml:"row"` // A
	Col int `toml:"col"`
	// Radius is the Chebyshev radius of the zeroed neighbourhood of A,
	// clipped to the grid: 2 is the 5 x 5 block of the reference code.
	Radius int `toml:"radius"`
	// Block, when set, is the zeroed rectangle instead of Radius.
	Block *Block     `toml:"block"`
	Mode  IslandMode `toml:"mode"`
	// Mass is A's mass in SetMass mode (the reference code: 0.01).
	Mass float64 `toml:"mass"`
}

// ReferenceIsland is the island of the paper's reference code around a
// (the Paris preset's place A = (6, 3) in the paper): the 5 x 5 block
// around it (rows 4-8, cols 1-5 for that A) is zeroed, A gets mass 0.01
// and the rest is rescaled to 0.99.
func ReferenceIsland(a Place) IslandOptions {
	return IslandOptions{Row: a.Row, Col: a.Col, Radius: 2, Mode: SetMass, Mass: 0.01}
}

// PaperIsland is the island as the paper's text describes it: the same
// block, with its mass moved onto a.
func PaperIsland(a Place) IslandOptions {
	return IslandOptions{Row: a.Row, Col: a.Col, Radius: 2, Mode: MoveMass}
}

// block returns the zeroed rectangle of opt on g.
func (opt IslandOptions) block(g kernels.Grid) (Block, error) {
	if opt.Row < 0 || opt.Row >= g.Rows || opt.Col < 0 || opt.Col >= g.Cols {
		return Block{}, fmt.Errorf("island: A = (%d,%d) is not a cell of the %v grid", opt.Row, opt.Col, g)
	}
	if opt.Block != nil {
		b := *opt.Block
		if b.Row0 > b.Row1 || b.Col0 > b.Col1 || b.Row0 < 0 || b.Col0 < 0 || b.Row1 >= g.Rows || b.Col1 >= g.Cols {
			return Block{}, fmt.Errorf("island: block rows %d-%d, cols %d-%d is not a non-empty rectangle of the %v grid", b.Row0, b.Row1, b.Col0, b.Col1, g)
		}
		return b, nil
	}
	if opt.Radius < 0 {
		return Block{}, fmt.Errorf("island: radius = %d: want >= 0", opt.Radius)
	}
	return Block{
		Row0: max(0, opt.Row-opt.Radius), Row1: min(g.Rows-1, opt.Row+opt.Radius),
		Col0: max(0, opt.Col-opt.Radius), Col1: min(g.Cols-1, opt.Col+opt.Radius),
	}, nil
}

// Island returns a copy of prior with an artificial island at A: the cells
// of the block (the Chebyshev ball of opt.Radius around A, or opt.Block)
// other than A are zeroed. MoveMass adds their mass to A. SetMass sets A to
// opt.Mass and rescales every cell outside the block so that the total
// mass is unchanged. The prior must be a distribution on g.
func Island(g kernels.Grid, prior []float64, opt IslandOptions) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("island: %w", err)
	}
	total, err := checkPrior(prior, g.Len())
	if err != nil {
		return nil, fmt.Errorf("island: %w", err)
	}
	b, err := opt.block(g)
	if err != nil {
		return nil, err
	}
	a := g.Index(opt.Row, opt.Col)
	inBlock := func(i int) bool {
		r, c := g.Cell(i)
		return r >= b.Row0 && r <= b.Row1 && c >= b.Col0 && c <= b.Col1
	}
	out := make([]float64, len(prior))
	switch opt.Mode {
	case MoveMass:
		moved := 0.0
		for i, v := range prior {
			switch {
			case i == a:
			case inBlock(i):
				moved += v
			default:
				out[i] = v
			}
		}
		out[a] = prior[a] + moved
	case SetMass:
		if !(opt.Mass >= 0 && opt.Mass <= total) {
			return nil, fmt.Errorf("island: mass = %v: want a value in [0, %v]", opt.Mass, total)
		}
		rest := 0.0
		for i, v := range prior {
			if i != a && !inBlock(i) {
				rest += v
			}
		}
		if rest == 0 && opt.Mass != total {
			return nil, fmt.Errorf("island: no mass outside the block to rescale to %v", total-opt.Mass)
		}
		scale := 0.0
		if rest > 0 {
			scale = (total - opt.Mass) / rest
		}
		for i, v := range prior {
			if i != a && !inBlock(i) {
				out[i] = v * scale
			}
		}
		out[a] = opt.Mass
	default:
		return nil, fmt.Errorf("island: mode %v: want %v or %v", opt.Mode, MoveMass, SetMass)
	}
	return out, nil
}

// Inject models adversarial reports: a fraction f of the mass is placed at
// cell and the rest is scaled by 1 - f, giving (1-f)*prior + f*delta_cell.
func Inject(prior []float64, cell int, f float64) ([]float64, error) {
	if _, err := checkPrior(prior, len(prior)); err != nil {
		return nil, fmt.Errorf("inject: %w", err)
	}
	if cell < 0 || cell >= len(prior) {
		return nil, fmt.Errorf("inject: cell %d is not one of the %d cells", cell, len(prior))
	}
	if !(f >= 0 && f <= 1) {
		return nil, fmt.Errorf("inject: fraction %v: want a value in [0, 1]", f)
	}
	out := make([]float64, len(prior))
	for i, v := range prior {
		out[i] = (1 - f) * v
	}
	out[cell] += f
	return out, nil
}

// checkPrior checks that p is a distribution over n cells (non-negative,
// finite, summing to 1 within kernels.StochasticTol) and returns its sum.
func checkPrior(p []float64, n int) (float64, error) {
	if len(p) != n || n == 0 {
		return 0, fmt.Errorf("prior has %d entries, want %d", len(p), n)
	}
	sum := 0.0
	for i, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("prior[%d] = %v: want a finite value >= 0", i, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > kernels.StochasticTol {
		return 0, fmt.Errorf("prior sums to %v, not 1", sum)
	}
	return sum, nil
}
