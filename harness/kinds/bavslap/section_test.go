package bavslap

import "testing"

// TestCityRowsWinnerNeedsSignificance: the section's winner column names
// a mechanism only where Welch's test with Holm's correction separates
// the means (the claims' rule), and says "tie" where the lower mean is
// within noise.
func TestCityRowsWinnerNeedsSignificance(t *testing.T) {
	c := func(mech string, beta float64, emd ...float64) *cell {
		return &cell{city: "x", mech: mech, beta: beta, emd: emd}
	}
	cells := []*cell{
		// beta 0.5: BA's mean is lower (0.99 < 1.0), well within noise.
		c("ba", 0.5, 1.0, 1.1, 0.9, 1.05, 0.9),
		c("lap", 0.5, 1.02, 0.98, 1.1, 0.9, 1.0),
		// beta 1: LAP's mean far above BA's, with little spread.
		c("ba", 1, 1.0, 1.01, 0.99, 1.0, 1.0),
		c("lap", 1, 2.0, 2.01, 1.99, 2.0, 2.0),
		// beta 2: LAP far below.
		c("ba", 2, 3.0, 3.01, 2.99, 3.0, 3.0),
		c("lap", 2, 1.0, 1.01, 0.99, 1.0, 1.0),
	}
	rows := cityRows(&params{}, "x", cells, nil)
	want := []string{"tie", "BA", "LAP"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		// On a dataset the paper does not have, the winner is the last column.
		if got := r[len(r)-1]; got != want[i] {
			t.Errorf("beta %s: winner %q, want %q (row %q)", r[0], got, want[i], r)
		}
	}
}
