package betasweep

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
)

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Betas               string
	Rounds              int
	Schedules, Variants []string
	Figures             []figRef
	Cities              []cityTable
	Claims              []harness.Claim
	// Paper says whether a dataset of the spec is the paper's: only then
	// does the section name the paper's figures and what it says of them.
	Paper bool
}

// figRef is a figure of the section: its file and caption.
type figRef struct{ File, Caption string }

// cityTable is one city's final EMDs per variant, reference, estimate and
// beta.
type cityTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

func (f *finish) section(claims []harness.Claim) (string, error) {
	d := sectionData{Betas: privic.BetaList(f.betas()), Rounds: f.p.Rounds, Claims: claims, Paper: paper.Any(f.p.Cities...)}
	for _, v := range f.p.Variant {
		d.Variants = append(d.Variants, v.TitleOn(f.p.Cities))
	}
	for _, city := range f.p.Cities {
		cell := ""
		if ds, err := f.p.Dataset(city, f.p.Rows); err == nil {
			cell = " (" + param.CellWords(ds) + ")"
		}
		d.Schedules = append(d.Schedules, fmt.Sprintf("%s%s %d cycles", f.p.Title(city), cell, f.p.Schedule(city).Cycles))
	}
	for _, fg := range f.figureList() {
		if !slices.ContainsFunc(f.skipped, func(s harness.Skip) bool { return s.Figure == fg.file }) {
			caption := "Final EMD vs β, " + f.p.Title(fg.city)
			if n, ok := strings.CutPrefix(fg.file, "fig"); ok {
				caption = "Fig. " + n
			}
			d.Figures = append(d.Figures, figRef{fg.file, caption})
		}
	}
	for _, city := range f.p.Cities {
		ct := cityTable{Title: f.p.Title(city), Header: []string{"variant", "EMD to", "estimate"}}
		for _, beta := range f.betas() {
			ct.Header = append(ct.Header, "β="+privic.BetaText(beta))
		}
		for _, v := range f.p.Variant {
			for _, ref := range f.p.EMDReference {
				for _, est := range f.estimates() {
					row := []string{v.Label(), ref, est}
					for _, beta := range f.betas() {
						m, sd, _ := f.fs.Stat(privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: est})
						row = append(row, privic.PM(m, sd, 4))
					}
					ct.Rows = append(ct.Rows, row)
				}
			}
		}
		d.Cities = append(d.Cities, ct)
	}
	return harness.RenderFile(templates, "section.md.tmpl", d)
}
