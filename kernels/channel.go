package kernels

import (
	"fmt"
	"math"
)

// Channel is a mechanism as a dense row-stochastic matrix:
// P[x*Out.Len()+y] = P(report y | true x).
type Channel struct {
	In, Out Grid
	P       []float64
}

// maxChannelEntries bounds the entries of a dense channel (2 GiB).
const maxChannelEntries = 1 << 28

// NewChannel allocates a zero channel from in to out.
func NewChannel(in, out Grid) (*Channel, error) {
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("input %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("output %w", err)
	}
	if int64(in.Len())*int64(out.Len()) > maxChannelEntries {
		return nil, fmt.Errorf("channel %v -> %v: %d entries; at most %d (a dense channel of 2 GiB)", in, out, int64(in.Len())*int64(out.Len()), maxChannelEntries)
	}
	return &Channel{In: in, Out: out, P: make([]float64, in.Len()*out.Len())}, nil
}

// Row returns the report distribution of true cell x (aliases P).
func (c *Channel) Row(x int) []float64 {
	n := c.Out.Len()
	return c.P[x*n : (x+1)*n : (x+1)*n]
}

// StochasticTol is the tolerance on row sums and distribution totals
// accepted by the kernels.
const StochasticTol = 1e-9

// Validate checks dimensions, finiteness, non-negativity and row sums
// (within StochasticTol).
func (c *Channel) Validate() error {
	if c == nil {
		return fmt.Errorf("channel is nil")
	}
	if len(c.P) != c.In.Len()*c.Out.Len() {
		return fmt.Errorf("channel %v -> %v has %d entries, want %d", c.In, c.Out, len(c.P), c.In.Len()*c.Out.Len())
	}
	for x := 0; x < c.In.Len(); x++ {
		s := 0.0
		for y, v := range c.Row(x) {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("channel[%d,%d] = %v: entries must be finite and >= 0", x, y, v)
			}
			s += v
		}
		if math.Abs(s-1) > StochasticTol*float64(c.Out.Len()) {
			return fmt.Errorf("channel row %d sums to %v, want 1", x, s)
		}
	}
	return nil
}
