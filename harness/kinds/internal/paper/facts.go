// Package paper holds what the PRIVIC paper reports for its two
// datasets, the presets of package datasets: the numbers of its tables
// and text that the kinds set beside their own, the names of its figures
// and tables, and its per-dataset schedules, all read from the embedded
// facts.toml and tables.csv. Everything here hangs off a dataset's name;
// a dataset without facts gets the same tables and figures under its own
// name, with no paper values beside them.
package paper

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/BurntSushi/toml"
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

// rawFacts is one dataset's entry of facts.toml.
type rawFacts struct {
	Grid    string             `toml:"grid"`
	Seconds map[string]float64 `toml:"seconds"`
	Fig3    string             `toml:"fig3"`
	Utility struct {
		From     float64 `toml:"from"`
		To       float64 `toml:"to"`
		ToClosed bool    `toml:"to_closed"`
		Text     string  `toml:"text"`
	} `toml:"utility"`
	Fig7     map[string]string           `toml:"fig7"`
	Fig89    map[string]string           `toml:"fig89"`
	Fig10    string                      `toml:"fig10"`
	Table    struct{ Name, File string } `toml:"table"`
	Schedule map[string]int              `toml:"schedule"`
}

//go:embed facts.toml
var factsTOML string

// allFacts parses facts.toml once.
var allFacts = sync.OnceValue(func() map[string]rawFacts {
	var m map[string]rawFacts
	md, err := toml.Decode(factsTOML, &m)
	if err != nil {
		panic("paper: facts.toml: " + err.Error()) // embedded, checked by the tests
	}
	if u := md.Undecoded(); len(u) > 0 {
		panic(fmt.Sprintf("paper: facts.toml: unknown keys %v", u))
	}
	return m
})

// Of returns the paper's facts for the dataset called name, and false for
// a dataset the paper does not have.
func Of(name string) (Facts, bool) {
	r, ok := allFacts()[name]
	if !ok {
		return Facts{}, false
	}
	return Facts{
		Grid:    r.Grid,
		Seconds: maps.Clone(r.Seconds),
		Fig3:    r.Fig3,
		Utility: Crossover{From: r.Utility.From, To: r.Utility.To, ToClosed: r.Utility.ToClosed, Text: r.Utility.Text},
		Fig7:    byBeta(r.Fig7),
		Fig89:   byBeta(r.Fig89),
		Fig10:   r.Fig10,
		Table:   Table{Name: r.Table.Name, File: r.Table.File, Rounds: rounds(name)},
	}, true
}

// byBeta keys a table of facts.toml by its betas.
func byBeta(m map[string]string) map[float64]string {
	out := make(map[float64]string, len(m))
	for k, v := range m {
		b, err := strconv.ParseFloat(k, 64)
		if err != nil {
			panic("paper: facts.toml: beta " + k) // embedded, checked by the tests
		}
		out[b] = v
	}
	return out
}

// Schedule is the paper's per-dataset value of a PRIVIC schedule setting
// ("cycles", "ba_iterations", "ibu_iterations", "gibu_iterations"), keyed
// by dataset: the default of the kinds' per-dataset tables.
func Schedule(key string) map[string]int {
	out := map[string]int{}
	for name, r := range allFacts() {
		if v, ok := r.Schedule[key]; ok {
			out[name] = v
		}
	}
	return out
}

// Has reports whether the paper has facts for the dataset called name.
func Has(name string) bool {
	_, ok := allFacts()[name]
	return ok
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
