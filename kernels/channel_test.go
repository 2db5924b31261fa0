package kernels

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestNewChannelErrors: the size guard of dense channels is reached
// without allocating, and bad grids are named.
func TestNewChannelErrors(t *testing.T) {
	side := int(math.Sqrt(maxChannelEntries)) // 16384: side*side is the limit
	for _, tc := range []struct {
		in, out Grid
		want    string
	}{
		{Grid{Rows: 1, Cols: side + 1}, Grid{Rows: 1, Cols: side},
			fmt.Sprintf("channel 1x%d -> 1x%d: %d entries; at most %d", side+1, side, (side+1)*side, maxChannelEntries)},
		{Grid{Rows: 0, Cols: 2}, Grid{Rows: 1, Cols: 1}, "input grid 0x2: rows and cols must be > 0"},
		{Grid{Rows: 1, Cols: 1}, Grid{Rows: 2, Cols: -2}, "output grid 2x-2: rows and cols must be > 0"},
	} {
		if ch, err := NewChannel(tc.in, tc.out); err == nil || ch != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewChannel(%v, %v): error %v, want one saying %q", tc.in, tc.out, err, tc.want)
		}
	}
}

// TestChannelValidate: every defect is named with its place.
func TestChannelValidate(t *testing.T) {
	g := Grid{Rows: 1, Cols: 2}
	mk := func(p ...float64) *Channel { return &Channel{In: g, Out: g, P: p} }
	for _, tc := range []struct {
		ch   *Channel
		want string
	}{
		{nil, "channel is nil"},
		{mk(1, 0, 0), "channel 1x2 -> 1x2 has 3 entries, want 4"},
		{mk(1, 0, math.NaN(), 1), "channel[1,0] = NaN: entries must be finite and >= 0"},
		{mk(1, 0, 0, math.Inf(1)), "channel[1,1] = +Inf: entries must be finite and >= 0"},
		{mk(1, 0, -0.5, 1.5), "channel[1,0] = -0.5: entries must be finite and >= 0"},
		{mk(0.5, 0.4, 0, 1), "channel row 0 sums to 0.9, want 1"},
	} {
		if err := tc.ch.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one saying %q", tc.ch, err, tc.want)
		}
	}
	// Row sums within StochasticTol*|Y| pass.
	if err := mk(0.5, 0.5+1.5*StochasticTol, 0, 1).Validate(); err != nil {
		t.Errorf("row off by 1.5e-9 (tolerance 2e-9): %v", err)
	}
	if err := mk(0.5, 0.5+3*StochasticTol, 0, 1).Validate(); err == nil {
		t.Error("row off by 3e-9 (tolerance 2e-9) accepted")
	}
}
