// Package paper holds what the PRIVIC paper reports for its two data
// sets, the presets "paris" and "sf": the numbers of its tables and text
// that the kinds set beside their own, and the names of its figures and
// tables. Everything here hangs off a preset name; a data set without
// facts gets the same tables and figures under its own name, with no
// paper values beside them.
package paper

// Facts are the paper's numbers and names for one data set.
type Facts struct {
	// Grid is what the paper's text says of the grid and the check-ins.
	Grid string
	// Seconds is Table II: the time of one BA and one IBU per PRIVIC
	// cycle ("ba", "ibu"), Python on an Intel Core i9.
	Seconds map[string]float64
	// Fig3 is the file of the statistical-utility figure (Sec. III-B), and
	// Utility the paper's claim on it.
	Fig3    string
	Utility Crossover
	// Fig7 and Fig89 map beta to the sub-figures of the final PRIVIC
	// estimate ("7a") and of the EMD per cycle ("8a"), and Fig10 is the
	// file of the final EMD against beta (Sec. V).
	Fig7, Fig89 map[float64]string
	Fig10       string
	// Table is the paper's table of EMD per PRIVIC cycle (Tables III, IV).
	Table Table
}

// Crossover is the paper's claim that BA has the better statistical
// utility for beta in (From, To) (To included when ToClosed) and LAP above.
type Crossover struct {
	From, To float64
	ToClosed bool
	Text     string
}

// Winner is the paper's winner at beta: "ba", "lap" or "" (the paper
// states nothing for that beta). Betas within 1e-9 of a bound count as
// on it (sweep values are rounded to 12 digits).
func (c Crossover) Winner(beta float64) string {
	const tol = 1e-9
	above := beta >= c.To-tol
	if c.ToClosed {
		above = beta > c.To+tol
	}
	switch {
	case above:
		return "lap"
	case c.From == 0 || beta > c.From+tol:
		return "ba"
	}
	return ""
}

// Table is one of the paper's tables of EMD per PRIVIC cycle, five rounds
// each for beta = 1 and 0.5, transcribed from the appendix of the paper.
//
// Row N of a table (N = 1, 2, ...) is cycle N-1 here: its first row, the
// same value in every column, is EMD(uniform, pi), i.e. the estimate
// before any data (cycle 0). Paris therefore lists cycles 0..14 and San
// Francisco cycles 0..7, one cycle fewer than the 15 and 8 cycles the
// paper's text says were run: the last cycle has no paper value.
type Table struct {
	// Name is the table's number in the paper ("Table III"), File the
	// base name of our version of it ("table3").
	Name, File string
	// Rounds[beta][row][round]: row 0 is the paper's N = 1 (cycle 0).
	Rounds map[float64][][]float64
}

// Cycle returns the paper's per-round values at cycle for beta, or nil
// when the table has no such row.
func (t Table) Cycle(beta float64, cycle int) []float64 {
	rows, ok := t.Rounds[beta]
	if !ok || cycle < 0 || cycle >= len(rows) {
		return nil
	}
	return rows[cycle]
}

// Presets are the data sets the paper has, in its order.
func Presets() []string { return []string{"paris", "sf"} }

// Of returns the paper's facts for the preset called name, and false for
// any other data set.
func Of(name string) (Facts, bool) {
	switch name {
	case "paris":
		return parisFacts(), true
	case "sf":
		return sfFacts(), true
	}
	return Facts{}, false
}

func parisFacts() Facts {
	return Facts{
		Grid:    "16x12 grid; 10,078 check-ins (Sec. III-A), 10,260 (Sec. V)",
		Seconds: map[string]float64{"ba": 3.256, "ibu": 1.30},
		Fig3:    "fig3a",
		Utility: Crossover{From: 0.4, To: 1.4, ToClosed: true, Text: "BA better for beta in (0.4, 1.4], LAP better above"},
		Fig7:    map[float64]string{0.5: "7a", 1: "7b"},
		Fig89:   map[float64]string{0.5: "8a", 1: "8b"},
		Fig10:   "fig10a",
		Table: Table{Name: "Table III", File: "table3", Rounds: map[float64][][]float64{
			1: {
				{2.02262, 2.02262, 2.02262, 2.02262, 2.02262},  // N=1
				{0.27104, 0.27796, 0.28247, 0.27758, 0.26276},  // N=2
				{0.21916, 0.23750, 0.25035, 0.25116, 0.23241},  // N=3
				{0.19156, 0.21115, 0.21726, 0.20913, 0.20408},  // N=4
				{0.18241, 0.19264, 0.19570, 0.19747, 0.18728},  // N=5
				{0.16526, 0.18020, 0.174578, 0.17310, 0.17268}, // N=6
				{0.14643, 0.18159, 0.16092, 0.17222, 0.17139},  // N=7
				{0.13860, 0.17605, 0.15938, 0.17078, 0.16192},  // N=8
				{0.15047, 0.16926, 0.15153, 0.17005, 0.15266},  // N=9
				{0.14734, 0.14825, 0.14585, 0.15001, 0.15459},  // N=10
				{0.14227, 0.14135, 0.14326, 0.13797, 0.14507},  // N=11
				{0.13818, 0.14448, 0.14703, 0.13589, 0.14142},  // N=12
				{0.16111, 0.13641, 0.14893, 0.14208, 0.13808},  // N=13
				{0.13894, 0.13111, 0.14094, 0.14199, 0.14192},  // N=14
				{0.15106, 0.14271, 0.14601, 0.13584, 0.12413},  // N=15
			},
			0.5: {
				{2.02262, 2.02262, 2.02262, 2.02262, 2.02262}, // N=1
				{0.57738, 0.57994, 0.55791, 0.60717, 0.56880}, // N=2
				{0.51324, 0.48295, 0.47043, 0.51285, 0.45826}, // N=3
				{0.43184, 0.42398, 0.41040, 0.45230, 0.41119}, // N=4
				{0.39741, 0.38771, 0.37284, 0.41176, 0.36953}, // N=5
				{0.37818, 0.35482, 0.36039, 0.36375, 0.38045}, // N=6
				{0.35044, 0.34383, 0.34818, 0.35760, 0.36804}, // N=7
				{0.34086, 0.32983, 0.35769, 0.34430, 0.34780}, // N=8
				{0.33137, 0.31749, 0.34690, 0.33840, 0.34028}, // N=9
				{0.3170, 0.32975, 0.32772, 0.34529, 0.32670},  // N=10
				{0.31917, 0.31851, 0.32689, 0.33667, 0.32043}, // N=11
				{0.32137, 0.32451, 0.31843, 0.32556, 0.34014}, // N=12
				{0.31224, 0.31219, 0.31380, 0.31515, 0.31159}, // N=13
				{0.30883, 0.30496, 0.30578, 0.30726, 0.30282}, // N=14
				{0.29405, 0.31198, 0.30786, 0.31167, 0.30100}, // N=15
			},
		}},
	}
}

func sfFacts() Facts {
	return Facts{
		Grid:    "24x17 grid; 123,025 check-ins (Sec. III-B), 123,108 (Sec. V)",
		Seconds: map[string]float64{"ba": 16.805, "ibu": 128.192},
		Fig3:    "fig3b",
		Utility: Crossover{From: 0, To: 1, Text: "BA better for beta in (0, 1), LAP better above"},
		Fig7:    map[float64]string{0.5: "7c", 1: "7d"},
		Fig89:   map[float64]string{0.5: "9a", 1: "9b"},
		Fig10:   "fig10b",
		Table: Table{Name: "Table IV", File: "table4", Rounds: map[float64][][]float64{
			1: {
				{7.37595, 7.37595, 7.37595, 7.37595, 7.37595},  // N=1
				{0.37229, 0.37038, 0.36784, 0.36949, 0.36816},  // N=2
				{0.29828, 0.298370, 0.30017, 0.29784, 0.29859}, // N=3
				{0.26091, 0.26029, 0.26231, 0.26180, 0.26518},  // N=4
				{0.23472, 0.23419, 0.23337, 0.23740, 0.23897},  // N=5
				{0.21367, 0.21432, 0.21537, 0.21777, 0.21881},  // N=6
				{0.19612, 0.19761, 0.19904, 0.20120, 0.20067},  // N=7
				{0.18244, 0.18412, 0.18741, 0.18724, 0.18674},  // N=8
			},
			0.5: {
				{7.37595, 7.37595, 7.37595, 7.37595, 7.37595}, // N=1
				{0.79621, 0.80474, 0.80219, 0.80670, 0.79940}, // N=2
				{0.64931, 0.66292, 0.65362, 0.65950, 0.65285}, // N=3
				{0.56896, 0.57378, 0.57338, 0.57125, 0.56618}, // N=4
				{0.51672, 0.51710, 0.51735, 0.51880, 0.51138}, // N=5
				{0.48194, 0.48299, 0.47992, 0.48267, 0.47791}, // N=6
				{0.45531, 0.45861, 0.45122, 0.45732, 0.45450}, // N=7
				{0.43588, 0.43745, 0.43558, 0.43704, 0.43584}, // N=8
			},
		}},
	}
}

// Cycle0 is the table's first row, EMD(uniform, pi), the same in every
// round and for both betas.
func (t Table) Cycle0() (float64, bool) {
	for _, beta := range []float64{1, 0.5} {
		if r := t.Cycle(beta, 0); len(r) > 0 {
			return r[0], true
		}
	}
	return 0, false
}
