package convergence

import (
	"fmt"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
)

// cityTables writes a city's per-cycle table (Table III or IV beside the
// paper's) as CSV and Markdown.
func (f *finish) cityTables(city string) error {
	t := harness.NewTable(tableName(city), "city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "variant", "emd_reference",
		"cycle", "rounds", "mean", "sd", "paper_row", "paper_round1", "paper_round2", "paper_round3", "paper_round4",
		"paper_round5", "paper_mean", "paper_sd", "diff", "mean_m", "sd_m")
	facts, _ := paper.Of(city)
	ds, err := f.p.Dataset(city, f.p.Rows)
	if err != nil {
		return err
	}
	for _, beta := range f.betas() {
		for _, v := range f.variants {
			for _, ref := range f.p.EMDReference {
				c := f.curves[curveKey{city, beta, v, ref}]
				if c == nil {
					continue
				}
				for t0 := 0; t0 <= max(c.cycles(), paperLast(city, beta)); t0++ {
					if row := tableRow(ds, beta, v, ref, t0, c, facts.Table.Cycle(beta, t0)); row != nil {
						t.Add(row)
					}
				}
			}
		}
	}
	if err := f.out.WriteTable(*t); err != nil {
		return err
	}
	md, err := harness.Render(f.tmpl, "table.md.tmpl", f.tableData(city))
	if err != nil {
		return err
	}
	return f.out.WriteText(t.Name+".md", md)
}

// tableRow is one cycle of one family beside the paper's rounds pr (nil
// when the paper has no such row); nil when neither has the cycle.
func tableRow(ds *datasets.Dataset, beta float64, v privic.Variant, ref string, t int, c *curve, pr []float64) harness.Row {
	m, sd, n := c.stat(t)
	if n == 0 && pr == nil {
		return nil
	}
	row := harness.Row{"city": ds.Name, "beta": beta, "first_mechanism": v.FirstMechanism, "ibu_start": v.IBUStart,
		"mixing": v.Mixing, "batches": v.Batches, "variant": v.Name(), "emd_reference": ref, "cycle": t, "rounds": n,
		"mean": m, "sd": sd, "paper_row": "", "paper_mean": "", "paper_sd": "", "diff": "",
		"mean_m": param.Metres(ds, m), "sd_m": param.Metres(ds, sd)}
	for i := range 5 {
		var cell any = ""
		if i < len(pr) {
			cell = pr[i]
		}
		row[fmt.Sprintf("paper_round%d", i+1)] = cell
	}
	if pr != nil {
		pm, psd, _ := harness.MeanSD(pr)
		row["paper_row"], row["paper_mean"], row["paper_sd"], row["diff"] = t+1, pm, psd, m-pm
	}
	if n == 0 {
		row["mean"], row["sd"], row["diff"], row["mean_m"], row["sd_m"] = "", "", "", "", ""
	}
	return row
}

// alignment explains how the paper's rows map to cycles.
const alignment = "The paper's row N is cycle N−1 here: its first row (N = 1, the same value in every round) is " +
	"EMD(uniform, π), the estimate before any data (cycle 0). Table III therefore lists Paris cycles 0–14 and " +
	"Table IV San Francisco cycles 0–7, one cycle fewer than the 15 and 8 cycles the paper's text (and the protocol) " +
	"run; the last cycle (Paris 15, SF 8) has no paper value and is not compared."

// compact is the cycle-by-cycle comparison of the paper, the default and
// the reference variant at one (city, beta).
type compact struct {
	Header []string
	Rows   [][]string
}

func (f *finish) compactRows(city string, beta float64) compact {
	dv, dref := f.def()
	rv, rref, hasRef := f.ref()
	dc := f.curves[curveKey{city, beta, dv, dref}]
	var rc *curve
	if hasRef {
		rc = f.curves[curveKey{city, beta, rv, rref}]
	}
	withPaper := paperName(city) != ""
	header := []string{"cycle", "paper N", "paper mean ± sd", "default (" + dv.Label() + ", EMD to " + dref + ")"}
	if !withPaper {
		header = header[:1:1]
		header = append(header, "default ("+dv.Label()+", EMD to "+dref+")")
	}
	if rc != nil {
		ref := "reference code"
		if !withPaper {
			ref = "reference variant"
		}
		header = append(header, ref+" ("+rv.Label()+", EMD to batch)")
	}
	last := paperLast(city, beta)
	if dc != nil {
		last = max(last, dc.cycles())
	}
	var rows [][]string
	for t := 0; t <= last; t++ {
		n := "–"
		pmv, psd, ok := paperStat(city, beta, t)
		if ok {
			n = fmt.Sprint(t + 1)
		}
		row := []string{fmt.Sprint(t), n, privic.PM(pmv, psd, 5)}
		if !withPaper {
			row = row[:1]
		}
		m, sd, _ := dc.stat(t)
		row = append(row, privic.PM(m, sd, 5))
		if rc != nil {
			m, sd, _ := rc.stat(t)
			row = append(row, privic.PM(m, sd, 5))
		}
		rows = append(rows, row)
	}
	return compact{header, rows}
}

// tableData is what table.md.tmpl shows of one city.
type tableData struct {
	Title, City, Alignment string
	Rounds                 int
	Paper                  bool       // the paper has a table of the city
	Partition              *partition // nil: partition variants run every cycle
	Betas                  []betaTable
}

// partition says how many cycles partition batches allow.
type partition struct{ Cycles, Want, Batch int }

// betaTable is one beta of a city's table: the compact comparison and
// every variant per cycle.
type betaTable struct {
	Beta    string
	Compact compact
	Header  []string
	Rows    [][]string
}

func (f *finish) partitionOf(city string) *partition {
	if cy, n, ok := f.finals.PartitionCycles(city); ok && cy < f.p.Schedule(city).Cycles {
		return &partition{cy, f.p.Schedule(city).Cycles, n}
	}
	return nil
}

func (f *finish) tableData(city string) tableData {
	d := tableData{Title: paperOr(city), City: f.p.Title(city), Rounds: f.p.Rounds, Partition: f.partitionOf(city), Paper: paperName(city) != ""}
	if d.Paper {
		d.Alignment = alignment
	}
	for _, beta := range f.betas() {
		bt := betaTable{Beta: privic.BetaText(beta), Compact: f.compactRows(city, beta)}
		last := paperLast(city, beta)
		for _, v := range f.variants {
			for _, ref := range f.p.EMDReference {
				if c := f.curves[curveKey{city, beta, v, ref}]; c != nil {
					last = max(last, c.cycles())
				}
			}
		}
		bt.Header = []string{"variant", "EMD to"}
		prow := []string{"paper " + paperName(city), "π"}
		for t := 0; t <= last; t++ {
			bt.Header = append(bt.Header, fmt.Sprintf("t=%d", t))
			m, s, _ := paperStat(city, beta, t)
			prow = append(prow, privic.PM(m, s, 4))
		}
		if d.Paper {
			bt.Rows = append(bt.Rows, prow)
		}
		for _, v := range f.variants {
			for _, ref := range f.p.EMDReference {
				c := f.curves[curveKey{city, beta, v, ref}]
				if c == nil {
					continue
				}
				row := []string{v.TitleOn([]string{city}), ref}
				for t := 0; t <= last; t++ {
					m, s, _ := c.stat(t)
					row = append(row, privic.PM(m, s, 4))
				}
				bt.Rows = append(bt.Rows, row)
			}
		}
		d.Betas = append(d.Betas, bt)
	}
	return d
}
