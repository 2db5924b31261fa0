package island

import (
	"fmt"
	"math"
	"strings"

	"privic/harness"
	"privic/kernels"
)

// SVDMaxCells is the largest grid whose BA channels get a dense SVD for
// their smallest singular value: the SVD costs O(m^3) time and several
// m x m matrices (about 2 s and 200 MB at 2,048 cells, a few minutes and
// 800 MB at 4,096). Larger grids get certified bounds instead
// (kernels.BAChannel.SingularBounds, O(m)).
const SVDMaxCells = 4096

// Singular is what is known of a BA channel's smallest singular value:
// the exact value (dense SVD; NaN when not computed), certified bounds
// Lo <= sigma_min <= Hi, and the channel's floating-point noise floor.
type Singular struct {
	Exact, Lo, Hi float64
	// Floor is m · eps_mach · ||C||_2 (with the bound ||C||_2 <=
	// sqrt(||C||_1 ||C||_inf) = sqrt(largest column sum) of a
	// row-stochastic matrix): the size of the rounding errors of the m x m
	// matrix as stored. A singular value at or below it cannot be told
	// from zero in double precision.
	Floor  float64
	Method string // "svd" (exact and bounds) or "bounds"
}

// SingularOf measures the smallest singular value of b: by dense SVD on
// grids of at most SVDMaxCells cells (where it also records the bounds),
// by the bounds alone on larger ones.
func SingularOf(b *kernels.BAChannel) (Singular, error) {
	lo, hi, err := b.SingularBounds()
	if err != nil {
		return Singular{}, err
	}
	floor, err := NoiseFloor(b)
	if err != nil {
		return Singular{}, err
	}
	s := Singular{Exact: math.NaN(), Lo: lo, Hi: hi, Floor: floor, Method: "bounds"}
	if b.Grid.Len() > SVDMaxCells {
		return s, nil
	}
	ch := kernels.DenseOf(b)
	if ch == nil {
		if ch, err = b.Dense(); err != nil {
			return Singular{}, err
		}
	}
	if s.Exact, err = kernels.MinSingularValue(ch); err != nil {
		return Singular{}, err
	}
	s.Method = "svd"
	return s, nil
}

// epsMach is the unit roundoff of float64 (2^-52).
const epsMach = 0x1p-52

// NoiseFloor is m · eps_mach · sqrt(largest column sum) for a
// row-stochastic channel op over m inputs: Singular.Floor.
func NoiseFloor(op kernels.ChannelOp) (float64, error) {
	in, out := op.Grids()
	ones := make([]float64, in.Len())
	for i := range ones {
		ones[i] = 1
	}
	col := make([]float64, out.Len())
	if err := op.ApplyT(col, ones); err != nil {
		return 0, fmt.Errorf("column sums: %w", err)
	}
	big := 0.0
	for _, v := range col {
		big = math.Max(big, v)
	}
	return float64(in.Len()) * epsMach * math.Sqrt(max(big, 1)), nil
}

// Verdict is what s says of the channel's invertibility (Theorem 4.1,
// exact arithmetic): "invertible" when the exact value, or else the lower
// bound, is above the noise floor; "numerically singular" when the exact
// value, or else the upper bound, is at or below it (double precision
// cannot refute an exact theorem, only show ill-conditioning); otherwise
// "undecided" (the bounds straddle the floor).
func (s Singular) Verdict() string {
	v, hi := s.Lo, s.Hi
	if !math.IsNaN(s.Exact) {
		v, hi = s.Exact, s.Exact
	}
	switch {
	case v > s.Floor:
		return Invertible
	case hi <= s.Floor:
		return NumericallySingular
	}
	return BoundsStraddle
}

// The verdicts of Singular.Verdict.
const (
	Invertible          = "invertible"
	NumericallySingular = "numerically singular"
	BoundsStraddle      = "undecided by the bounds"
)

// ExactCell is the exact value as a table cell: empty when not computed.
func (s Singular) ExactCell() string {
	if math.IsNaN(s.Exact) {
		return ""
	}
	return harness.FormatFloat(s.Exact)
}

// Words is the value for a section: the exact value to sig significant
// digits, or the bounds as "[lo, hi] (bounds)".
func (s Singular) Words(sig int) string {
	if !math.IsNaN(s.Exact) {
		return harness.FormatSig(s.Exact, sig)
	}
	return "[" + harness.FormatSig(s.Lo, sig) + ", " + harness.FormatSig(s.Hi, sig) + "] (bounds)"
}

// SingularHeader are the columns of Singular in the invertibility tables,
// in the order of Row.
func SingularHeader() []string {
	return []string{"cells", "min_singular_value", "lower_bound", "upper_bound", "method", "noise_floor"}
}

// Row gives s's SingularHeader columns for a grid of cells cells, a part
// of a table row.
func (s Singular) Row(cells int) harness.Row {
	return harness.Row{"cells": cells, "min_singular_value": s.ExactCell(), "lower_bound": s.Lo, "upper_bound": s.Hi, "method": s.Method,
		"noise_floor": s.Floor}
}

// ReadSingular reads the SingularHeader columns of row i (an empty
// min_singular_value is NaN).
func ReadSingular(rd *harness.Reader, i int) Singular {
	s := Singular{Exact: math.NaN(), Lo: rd.Float(i, "lower_bound"), Hi: rd.Float(i, "upper_bound"), Method: rd.Str(i, "method"),
		Floor: rd.Float(i, "noise_floor")}
	if v := rd.Str(i, "min_singular_value"); v != "" {
		s.Exact = rd.Float(i, "min_singular_value")
	}
	return s
}

// SkipReason says why a channel of a grid of cells cells has bounds
// instead of its exact smallest singular value (for skipped.csv).
func SkipReason(cells int) string {
	return fmt.Sprintf("exact smallest singular value of the BA channels: a dense SVD costs O(m^3) and is run up to %d cells, this grid has %d; certified bounds (lower_bound, upper_bound) instead",
		SVDMaxCells, cells)
}

// InvertibilityClaim checks Theorem 4.1 of the paper, BA channels are
// invertible, on the channels' singular values svs (Singular.Verdict
// each) on the dataset data; what says which channels they are. The
// theorem is about exact arithmetic: a channel at or below its noise
// floor is numerically singular, which double precision cannot tell from
// an invertible but ill-conditioned matrix, so the claim is never
// refuted here: reproduced when every channel is clearly invertible,
// undecided otherwise, with the counts as the reason.
func InvertibilityClaim(data, what string, svs []Singular) harness.Claim {
	count := map[string]int{}
	var ev []string
	for _, s := range svs {
		count[s.Verdict()]++
		w := "[" + harness.FormatSig(s.Lo, 3) + ", " + harness.FormatSig(s.Hi, 3) + "]"
		if !math.IsNaN(s.Exact) {
			w = harness.FormatSig(s.Exact, 3)
		}
		ev = append(ev, w+" (floor "+harness.FormatSig(s.Floor, 2)+")")
	}
	c := harness.Claim{
		Claim: "BA channels are invertible (Theorem 4.1)",
		Data:  data,
		Rule: fmt.Sprintf("each channel's smallest singular value (exact by dense SVD up to %d cells, else certified bounds [lower, upper]) against the channel's floating-point noise floor m·eps_mach·||C||_2: "+
			"reproduced when every value (or lower bound) is above its floor; undecided when some value (or upper bound) is at or below it (numerically singular) or the bounds straddle it; never refuted, as the theorem is about exact arithmetic", SVDMaxCells),
		Simulations: harness.Exact,
		Evidence: fmt.Sprintf("%s: smallest singular value (exact, or [lower, upper] bounds) and noise floor: %s. Clearly invertible: %d of %d; numerically singular: %d; undecided by the bounds: %d",
			what, strings.Join(ev, ", "), count[Invertible], len(svs), count[NumericallySingular], count[BoundsStraddle]),
		Verdict: harness.Reproduced,
	}
	if len(svs) == 0 || count[Invertible] < len(svs) {
		c.Verdict = harness.Undecided
		var why []string
		if n := count[NumericallySingular]; n > 0 {
			why = append(why, fmt.Sprintf("%d of %d channels numerically singular (smallest singular value at or below the noise floor: ill-conditioned in double precision, not shown singular)", n, len(svs)))
		}
		if n := count[BoundsStraddle]; n > 0 {
			why = append(why, fmt.Sprintf("the certified bounds of %d of %d channels straddle the noise floor", n, len(svs)))
		}
		if len(svs) == 0 {
			why = append(why, "no channel measured")
		}
		c.Reason = strings.Join(why, "; ")
	}
	return c
}
