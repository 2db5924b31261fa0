// Package paper holds what the PRIVIC paper reports for its two data
// sets, the presets "paris" and "sf": the numbers of its tables and text
// that the kinds set beside their own, and the names of its figures and
// tables. Everything here hangs off a preset name; a data set without
// facts gets the same tables and figures under its own name, with no
// paper values beside them.
package paper

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"slices"
	"strconv"
	"sync"
)

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
// each for beta = 1 and 0.5, transcribed from the appendix of the paper
// into tables.csv.
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
		Table:   Table{Name: "Table III", File: "table3", Rounds: rounds("paris")},
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
		Table:   Table{Name: "Table IV", File: "table4", Rounds: rounds("sf")},
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

// tablesCSV holds Tables III and IV: per city, beta and cycle (the
// paper's row N - 1), the five rounds.
//
//go:embed tables.csv
var tablesCSV []byte

// allRounds parses tablesCSV once: city -> beta -> cycle -> rounds.
var allRounds = sync.OnceValue(func() map[string]map[float64][][]float64 {
	recs, err := csv.NewReader(bytes.NewReader(tablesCSV)).ReadAll()
	if err != nil {
		panic("paper: tables.csv: " + err.Error()) // embedded, checked by the tests
	}
	out := map[string]map[float64][][]float64{}
	for _, r := range recs[1:] {
		beta, err1 := strconv.ParseFloat(r[1], 64)
		cycle, err2 := strconv.Atoi(r[2])
		rounds := make([]float64, 0, len(r)-3)
		for _, v := range r[3:] {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				panic("paper: tables.csv: " + err.Error())
			}
			rounds = append(rounds, x)
		}
		if err1 != nil || err2 != nil || cycle < 0 {
			panic("paper: tables.csv: bad beta or cycle in " + r[0])
		}
		if out[r[0]] == nil {
			out[r[0]] = map[float64][][]float64{}
		}
		for len(out[r[0]][beta]) <= cycle {
			out[r[0]][beta] = append(out[r[0]][beta], nil)
		}
		out[r[0]][beta][cycle] = rounds
	}
	return out
})

// rounds is a copy of one city's table: beta -> cycle -> the five rounds.
func rounds(city string) map[float64][][]float64 {
	out := map[float64][][]float64{}
	for beta, rows := range allRounds()[city] {
		for _, r := range rows {
			out[beta] = append(out[beta], slices.Clone(r))
		}
	}
	return out
}
