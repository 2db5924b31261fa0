package convergence

import (
	"fmt"
	"math"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
	"privic/harness/kinds/internal/verdict"
)

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Rounds, Variants    int
	Betas               string
	Default, DefaultRef string
	Reference           string
	Schedules           []string
	LaplaceEps          string
	Partitions          []cityPartition
	Cycle0, Cycle0Off   []string
	Alignment           string
	Fig7, Fig89         []figRef
	Cities              []cityCompact
	DistanceHeader      []string
	Distances           [][]string
	Closest             string
	VerdictHeader       []string
	Verdicts            [][]string
	Final               [][]string
	Claims              []harness.Claim
	// Paper says whether a dataset of the spec is the paper's: only then
	// does the section compare with the paper's figures and tables.
	Paper bool
}

// cityPartition is a city whose partition variants stop early.
type cityPartition struct {
	City string
	partition
}

// cityCompact is a city's compact tables, one per beta.
// figRef is a figure of the section: its file and caption.
type figRef struct{ File, Caption string }

type cityCompact struct {
	Table, Title, File string
	Betas              []betaTable
}

func (f *finish) section(claims []harness.Claim) (string, error) {
	dv, dref := f.def()
	d := sectionData{
		Rounds: f.p.Rounds, Variants: len(f.variants), Betas: privic.BetaList(f.betas()),
		Default: dv.Label(), DefaultRef: dref, Reference: privic.ReferenceVariant().Label(),
		Schedules: f.schedules(), LaplaceEps: harness.FormatSig(f.p.LaplaceEps, 3), Alignment: alignment, Claims: claims,
		Paper: paper.Any(f.p.Cities...),
	}
	for _, city := range f.p.Cities {
		if pt := f.partitionOf(city); pt != nil {
			d.Partitions = append(d.Partitions, cityPartition{f.p.Title(city), *pt})
		}
	}
	d.Cycle0, d.Cycle0Off = f.cycle0()
	for _, pf := range f.figureList(fig7Of, "estimate") {
		if !f.isSkipped(pf.file) {
			d.Fig7 = append(d.Fig7, figRef{pf.file, pf.caption(&f.p.Protocol)})
		}
	}
	for _, pf := range f.figureList(fig89Of, "emd-by-cycle") {
		if !f.isSkipped(pf.file) {
			d.Fig89 = append(d.Fig89, figRef{pf.file, pf.caption(&f.p.Protocol)})
		}
	}
	for _, city := range f.p.Cities {
		cc := cityCompact{Table: paperOr(city), Title: f.p.Title(city), File: tableName(city)}
		for _, beta := range f.betas() {
			cc.Betas = append(cc.Betas, betaTable{Beta: privic.BetaText(beta), Compact: f.compactRows(city, beta)})
		}
		d.Cities = append(d.Cities, cc)
	}
	d.DistanceHeader, d.Distances, d.Closest = f.distanceTable()
	d.VerdictHeader, d.Verdicts = f.verdictTable()
	d.Final = f.finals.Summary(f.p.Cities, f.betas(), dv, dref, f.p.Title)
	return harness.Render(f.tmpl, "section.md.tmpl", d)
}

// schedules says per city how PRIVIC was run.
func (f *finish) schedules() []string {
	var sched []string
	for _, city := range f.p.Cities {
		s := f.p.Schedule(city)
		batch := fmt.Sprintf("batches of n = %d check-ins (%s of N)", f.finals.Batch(city), privic.Sig(f.p.BatchFraction, 3))
		if n := f.p.BatchSizeOf(city); n > 0 {
			batch = fmt.Sprintf("batches of n = %d check-ins (batch_size)", n)
		}
		cell := ""
		if ds, err := f.p.Dataset(city, f.p.Rows); err == nil {
			cell = " (" + param.CellWords(ds) + ")"
		}
		sched = append(sched, fmt.Sprintf("%s%s %d cycles of %s, BA %s, IBU %s, final GIBU %s", f.p.Title(city), cell, s.Cycles, batch,
			iterText(s.BAIterations, s.BADelta), iterText(s.IBUIterations, s.IBUDelta), iterText(s.GIBUIterations, s.GIBUDelta)))
	}
	return sched
}

func iterText(iters int, delta float64) string {
	if iters > 0 {
		return fmt.Sprintf("%d iterations", iters)
	}
	return fmt.Sprintf("until max change < %s", privic.Sig(delta, 3))
}

// cycle0 is EMD(uniform, pi) per city beside the paper's, and the cities
// where the two differ in the fifth decimal.
func (f *finish) cycle0() (c0, off []string) {
	dv, dref := f.def()
	for _, city := range f.p.Cities {
		for _, beta := range f.betas() {
			c := f.curves[curveKey{city, beta, dv, dref}]
			if c == nil {
				continue
			}
			m, _, _ := c.stat(0)
			s := fmt.Sprintf("%s %s", f.p.Title(city), privic.Fixed(m, 5))
			facts, _ := paper.Of(city)
			if pv, ok := facts.Table.Cycle0(); ok {
				s += fmt.Sprintf(" (paper %s)", privic.Fixed(pv, 5))
				if math.Abs(m-pv) >= 5e-6 {
					off = append(off, fmt.Sprintf("%s (difference %s)", f.p.Title(city), privic.Sig(m-pv, 2)))
				}
			}
			c0 = append(c0, s)
			break
		}
	}
	return c0, off
}

// distanceTable ranks the variants by their distance to the paper's
// tables, with a sentence on the closest overall and per panel.
func (f *finish) distanceTable() (header []string, rows [][]string, closest string) {
	header = []string{"rank", "variant", "EMD to", "RMS (all)", "max |diff|", "mean diff"}
	var panels [][2]string
	for _, city := range f.p.Cities {
		for _, beta := range f.betas() {
			panels = append(panels, [2]string{city, harness.FormatFloat(beta)})
			header = append(header, fmt.Sprintf("RMS %s β=%s", city, harness.FormatFloat(beta)))
		}
	}
	for i, pd := range f.pooled {
		row := []string{fmt.Sprint(i + 1), pd.V.Title(), pd.Ref, privic.Fixed(pd.Total.rms(), 4), privic.Fixed(pd.Total.MaxAbs, 4), privic.Fixed(pd.Total.meanDiff(), 4)}
		for _, pn := range panels {
			if d, ok := pd.Parts[pn]; ok {
				row = append(row, privic.Fixed(d.rms(), 4))
			} else {
				row = append(row, "–")
			}
		}
		rows = append(rows, row)
	}
	if len(f.pooled) == 0 {
		return header, rows, ""
	}
	best := f.pooled[0]
	closest = fmt.Sprintf("Closest to the paper's tables: **%s with EMD to %s** (pooled RMS %s, max |diff| %s).", best.V.Label(), best.Ref,
		privic.Fixed(best.Total.rms(), 4), privic.Fixed(best.Total.MaxAbs, 4))
	for _, pn := range panels {
		beta, _ := harness.ParseFloat(pn[1])
		if v, ref, ok := f.closestIn(pn[0], beta); ok {
			d := f.distanceOf(v, ref, pn)
			closest += fmt.Sprintf(" %s β=%s: %s, EMD to %s (RMS %s).", f.p.Title(pn[0]), pn[1], v.Label(), ref, privic.Fixed(d.rms(), 4))
		}
	}
	return header, rows, closest
}

// verdictTable gives every variant's verdict on the two claims about the
// paper's tables, per dataset that has one: the shape (shapeRule) and the
// values (valuesRule), each combined over the betas. Rows follow the
// distance table's order (closest first); empty when no dataset has a
// table.
func (f *finish) verdictTable() (header []string, rows [][]string) {
	var cities []string
	for _, city := range f.p.Cities {
		if f.p.IsPreset(city) && paperName(city) != "" {
			cities = append(cities, city)
		}
	}
	if len(cities) == 0 {
		return nil, nil
	}
	header = []string{"variant", "EMD to"}
	for _, city := range cities {
		header = append(header, f.p.Title(city)+": shape", f.p.Title(city)+": values")
	}
	for _, pd := range f.pooled {
		row := []string{pd.V.Title(), pd.Ref}
		for _, city := range cities {
			var shapes, values []string
			for _, beta := range f.betas() {
				c := f.curves[curveKey{city, beta, pd.V, pd.Ref}]
				if c == nil {
					continue
				}
				if v, _, _, ok := shapeOf(c); ok {
					shapes = append(shapes, v)
				}
				if pr := paperRounds(city, beta); len(pr) > 0 {
					if v, _, n, _ := valuesRule(c.byCycle, pr); n > 0 {
						values = append(values, v)
					}
				}
			}
			row = append(row, orDash(shapes), orDash(values))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// orDash combines part verdicts, "–" when there are none.
func orDash(parts []string) string {
	if len(parts) == 0 {
		return "–"
	}
	return verdict.Combine(parts...)
}
