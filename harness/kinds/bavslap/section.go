package bavslap

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
)

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	IBUIterations, BAIterations, LapWiden, Betas int
	LapEps, From, To, Sims                       string
	DefectSims                                   int
	// Paper says whether the spec runs on a dataset of the paper: only
	// then does the section quote the paper and its reference code.
	Paper   bool
	Figures []figRef
	Cities  []cityTable
	Claims  []harness.Claim
}

// figRef is a figure of the section: its file and caption.
type figRef struct{ File, Caption string }

// cityTable is one city's table of the section; Paper says whether the
// paper has the dataset (its winner, and the reference code's LAP value,
// are then columns of the table).
type cityTable struct {
	Title, Cell string
	Paper       bool
	Header      []string
	Rows        [][]string
}

func section(p *params, cells []*cell, levels []levelRow, claims []harness.Claim) (string, error) {
	betas := p.Beta.Values()
	d := sectionData{
		IBUIterations: p.IBUIterations, BAIterations: p.BAIterations, LapWiden: p.LapWiden, Betas: len(betas),
		LapEps: paper.LapEpsWords(p.LapEpsilon, paper.Any(p.Cities...)), From: harness.FormatSig(betas[0], 3), To: harness.FormatSig(betas[len(betas)-1], 3),
		Sims: simsWords(p), DefectSims: p.ReferenceDefectSims, Claims: claims, Paper: paper.Any(p.Cities...),
	}
	for _, city := range p.Cities {
		file := figureName(p, city)
		caption := "Statistical utility, " + p.Title(city)
		if l, ok := strings.CutPrefix(file, "fig3"); ok {
			caption = "Fig. 3" + l
		}
		cell := "-"
		if ds, err := p.Dataset(city, p.Rows); err == nil {
			cell = param.CellWords(ds)
		}
		d.Figures = append(d.Figures, figRef{file, caption})
		ct := cityTable{Title: p.Title(city), Cell: cell, Paper: paper.Has(city), Rows: cityRows(p, city, cells, levels),
			Header: []string{"beta", "eps", "BA EMD", "LAP EMD", "winner"}}
		if ct.Paper {
			ct.Header = []string{"beta", "eps", "BA EMD", "LAP EMD", "LAP, reference-code EMD", "winner", "paper"}
		}
		d.Cities = append(d.Cities, ct)
	}
	return harness.RenderFile(templates, "section.md.tmpl", d)
}

// cityRows are a city's rows: per beta the mean ± sd of both mechanisms,
// the reference code's LAP value, our winner and the paper's; on a
// dataset the paper does not have, the mechanisms and our winner alone.
func cityRows(p *params, city string, cells []*cell, levels []levelRow) [][]string {
	bx, by, be := series(cells, city, "ba", false)
	_, ly, le := series(cells, city, "lap", false)
	_, dy, de := series(cells, city, "lap", true)
	epsBy := map[float64]float64{}
	for _, l := range levels {
		if l.city == city {
			epsBy[l.beta] = l.eps2
		}
	}
	facts, _ := paper.Of(city)
	sig := harness.FormatSig
	// The winner only where Welch's test with Holm's correction across
	// the betas separates the two (as the claims decide); a tie otherwise.
	sx, bs := samples(cells, city, "ba", false)
	_, ls := samples(cells, city, "lap", false)
	var won []string
	if slices.Equal(sx, bx) && len(ls) == len(bs) {
		won = winners(bs, ls)
	}
	var rows [][]string
	for i, x := range bx {
		w := "tie"
		if i < len(won) && won[i] != "" {
			w = strings.ToUpper(won[i])
		}
		pw := strings.ToUpper(facts.Utility.Winner(x))
		if facts.Utility.Text == "" || pw == "" {
			pw = "-"
		}
		def := "-"
		if i < len(dy) {
			def = sig(dy[i], 4)
			if min(p.defectSims(p.IsPreset(city)), p.sims(city)) > 1 {
				def += " ± " + sig(de[i], 2)
			}
		}
		if !paper.Has(city) {
			rows = append(rows, []string{sig(x, 3), sig(epsBy[x], 4), sig(by[i], 4) + " ± " + sig(be[i], 2), sig(ly[i], 4) + " ± " + sig(le[i], 2), w})
			continue
		}
		rows = append(rows, []string{sig(x, 3), sig(epsBy[x], 4), sig(by[i], 4) + " ± " + sig(be[i], 2),
			sig(ly[i], 4) + " ± " + sig(le[i], 2), def, w, pw})
	}
	return rows
}

func simsWords(p *params) string {
	var parts []string
	for _, c := range p.Cities {
		parts = append(parts, fmt.Sprintf("%s %d", p.Title(c), p.sims(c)))
	}
	return strings.Join(parts, ", ")
}
