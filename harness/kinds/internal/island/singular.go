package island

import (
	"fmt"
	"math"

	"privic/harness"
	"privic/kernels"
)

// SVDMaxCells is the largest grid whose BA channels get a dense SVD for
// their smallest singular value: the SVD costs O(m^3) time and several
// m x m matrices (about 2 s and 200 MB at 2,048 cells). Larger grids get
// certified bounds instead (kernels.BAChannel.SingularBounds, O(m)).
const SVDMaxCells = 2048

// Singular is what is known of a BA channel's smallest singular value:
// the exact value (dense SVD; NaN when not computed) and certified
// bounds Lo <= sigma_min <= Hi.
type Singular struct {
	Exact, Lo, Hi float64
	Method        string // "svd" (exact and bounds) or "bounds"
}

// SingularOf measures the smallest singular value of b: by dense SVD on
// grids of at most SVDMaxCells cells (where it also records the bounds),
// by the bounds alone on larger ones.
func SingularOf(b *kernels.BAChannel) (Singular, error) {
	lo, hi, err := b.SingularBounds()
	if err != nil {
		return Singular{}, err
	}
	s := Singular{Exact: math.NaN(), Lo: lo, Hi: hi, Method: "bounds"}
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
	return []string{"cells", "min_singular_value", "lower_bound", "upper_bound", "method"}
}

// Row lays s out as SingularHeader's columns for a grid of cells cells.
func (s Singular) Row(cells int) []string {
	return []string{fmt.Sprint(cells), s.ExactCell(), harness.FormatFloat(s.Lo), harness.FormatFloat(s.Hi), s.Method}
}

// ReadSingular reads the SingularHeader columns of row i (an empty
// min_singular_value is NaN).
func ReadSingular(rd *harness.Reader, i int) Singular {
	s := Singular{Exact: math.NaN(), Lo: rd.Float(i, "lower_bound"), Hi: rd.Float(i, "upper_bound"), Method: rd.Str(i, "method")}
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
