package adversarial

import (
	"embed"
	"fmt"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/verdict"
)

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	City, Island, Cell string
	Preset             bool
	N, BAIterations    int
	A                  []int
	Fractions, Panels  string
	Figures            []figRef
	Rows               [][]string
	Claims             []harness.Claim
	SVDMax, NearM      int
	DesertM            string
}

func section(p *params, s *island.Setup, figs harness.Figures, pts map[float64][]*point, lap map[float64]island.LocStats, claims []harness.Claim) (string, error) {
	d := sectionData{City: p.Title(p.City), Island: p.Island.Describe(s.DS), Cell: param.CellWords(s.DS), Preset: p.IsPreset(p.City),
		N: s.DS.N, BAIterations: p.BAIterations, A: p.A.Cell,
		Fractions: harness.FormatList(scale(p.Fractions.Values(), 100), 3), Panels: figureFractionWords(p), Claims: claims,
		SVDMax: island.SVDMaxCells, NearM: verdict.PaperCellM, DesertM: harness.FormatSig(p.DesertRadiusM, 4)}
	for _, f := range figs {
		c := f.Base
		if n, ok := strings.CutPrefix(c, "fig"); ok {
			c = "Fig. " + n
		}
		d.Figures = append(d.Figures, figRef{File: f.Base, Caption: c})
	}
	sig, pct := harness.FormatSig, harness.FormatPct
	for _, beta := range p.Beta.Values() {
		for _, pt := range pts[beta] {
			d.Rows = append(d.Rows, []string{sig(pt.eps, 3), sig(100*pt.f, 3) + "%", sig(pt.tight, 4), pct(pt.st.PAt), pct(pt.st.PNear),
				pct(pt.st.PDeserted), sig(pt.st.ExpDistance, 3), pct(pt.st.MAPIdent), pct(pt.st.ExpPosterior), pt.sv.Words(3)})
		}
		if st, ok := lap[beta]; ok {
			d.Rows = append(d.Rows, []string{sig(2*beta, 3), "LAP", sig(2*beta, 4), pct(st.PAt), pct(st.PNear),
				pct(st.PDeserted), sig(st.ExpDistance, 3), pct(st.MAPIdent), pct(st.ExpPosterior), "-"})
		}
	}
	return harness.RenderFile(templates, "section.md.tmpl", d)
}

// figRef is a figure of the section: its file and caption.
type figRef struct{ File, Caption string }

func figureFractionWords(p *params) string {
	var parts []string
	for i, l := range p.FigureFractions {
		if i >= p.Beta.Len() {
			break
		}
		parts = append(parts, fmt.Sprintf("f = {%s}%% at eps %s", harness.FormatList(scale(l, 100), 3), harness.FormatSig(2*p.Beta.Values()[i], 3)))
	}
	return strings.Join(parts, " and ")
}

func scale(v []float64, k float64) []float64 {
	o := make([]float64, len(v))
	for i, x := range v {
		o[i] = k * x
	}
	return o
}
