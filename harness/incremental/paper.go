package incremental

// The paper's Tables III (Paris) and IV (San Francisco): EMD between the
// true and the estimated PMF per PRIVIC cycle, five rounds each, for
// beta = 1 and beta = 0.5, transcribed from the appendix of privic.tex.
//
// Row N of a table (N = 1, 2, ...) is cycle N-1 here: its first row, the
// same value in every column, is EMD(uniform, pi), i.e. the estimate
// before any data (cycle 0). Paris therefore lists cycles 0..14 and San
// Francisco cycles 0..7, one cycle fewer than the 15 and 8 cycles the
// paper's text (and PROTOCOL.md) say were run: the last protocol cycle has
// no paper value.

// paperTable is one city's published table.
type paperTable struct {
	// Name is the table's number in the paper.
	Name string
	// Rounds[beta][row][round]: row 0 is the paper's N = 1 (cycle 0).
	Rounds map[float64][][]float64
}

// paperTables maps a city preset name to its published table.
var paperTables = map[string]paperTable{
	"paris": {Name: "Table III", Rounds: map[float64][][]float64{
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
	"sf": {Name: "Table IV", Rounds: map[float64][][]float64{
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

// paperCycle0 is the paper's cycle-0 value (first table row), which
// equals EMD(uniform, pi) on the reference code's domain.
var paperCycle0 = map[string]float64{"paris": 2.02262, "sf": 7.37595}

// paperRounds returns the paper's per-round values at cycle for city and
// beta, or nil when the paper has no such row.
func paperRounds(city string, beta float64, cycle int) []float64 {
	t, ok := paperTables[city]
	if !ok {
		return nil
	}
	rows, ok := t.Rounds[beta]
	if !ok || cycle < 0 || cycle >= len(rows) {
		return nil
	}
	return rows[cycle]
}
