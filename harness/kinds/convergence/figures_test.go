package convergence

import "testing"

// TestEMDTitleHasCycleZero: the EMD-per-cycle figures draw cycles 1 on,
// and their title gives cycle 0's EMD, as the section says (the titles
// lacked it).
func TestEMDTitleHasCycleZero(t *testing.T) {
	c := &curve{byCycle: [][]float64{{1.234, 1.234}, {0.5, 0.7}}}
	if got, want := emdTitle("Paris", 0.5, c), "PRIVIC EMD per cycle, Paris, β = 0.5 (cycle 0: EMD 1.23)"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
}
