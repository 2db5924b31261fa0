package convergence

import (
	"context"
	"embed"
	"slices"
	"text/template"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/privic"
)

//go:embed section.md.tmpl table.md.tmpl
var templates embed.FS

// finish is the state of one Finish: the tables read back and what is
// derived from them.
type finish struct {
	p        *params
	out      *harness.Output
	curves   map[curveKey]*curve
	finals   *privic.Finals
	est      *harness.Table
	variants []privic.Variant
	skipped  []harness.Skip
	pooled   []pooledDistance // sorted by RMS, closest first
	tmpl     *template.Template
}

func newFinish(p *params, out *harness.Output) (*finish, error) {
	curves, err := harness.ReadTableAs(out, "emd_by_cycle", readCurves)
	if err != nil {
		return nil, err
	}
	fs, err := harness.ReadTableAs(out, "final_emd", privic.ReadFinals)
	if err != nil {
		return nil, err
	}
	est, err := out.ReadTable("estimate")
	if err != nil {
		return nil, err
	}
	tmpl, err := harness.Templates(templates, nil, "*.tmpl")
	if err != nil {
		return nil, err
	}
	return &finish{p: p, out: out, curves: curves, finals: fs, est: est, variants: p.variants(), tmpl: tmpl}, nil
}

func (f *finish) betas() []float64 { return f.p.Beta.Values() }

// def is the default variant and its EMD reference (first of each list).
func (f *finish) def() (privic.Variant, string) { return f.variants[0], f.p.EMDReference[0] }

// ref is the reference code's variant with its own EMD reference, if run.
func (f *finish) ref() (privic.Variant, string, bool) {
	ok := slices.Contains(f.variants, privic.ReferenceVariant()) && slices.Contains(f.p.EMDReference, "batch")
	return privic.ReferenceVariant(), "batch", ok
}

func (f *finish) skip(fig, reason string) {
	f.skipped = append(f.skipped, harness.Skip{Figure: fig, Reason: reason})
}

func (f *finish) isSkipped(fig string) bool {
	return slices.ContainsFunc(f.skipped, func(s harness.Skip) bool { return s.Figure == fig })
}

func (f *finish) run(ctx context.Context) (harness.Section, error) {
	f.distances()
	for _, city := range f.p.Cities {
		if err := f.cityTables(city); err != nil {
			return harness.Section{}, err
		}
	}
	if err := f.writeDistances(); err != nil {
		return harness.Section{}, err
	}
	if err := ctx.Err(); err != nil {
		return harness.Section{}, err
	}
	figs, err := f.fig7()
	if err != nil {
		return harness.Section{}, err
	}
	if err := f.fig89(&figs); err != nil {
		return harness.Section{}, err
	}
	claims := f.claims()
	md, err := f.section(claims)
	return harness.Section{Markdown: md, Claims: claims, Skipped: f.skipped, Figures: figs}, err
}

// tableName is the file base of a city's per-cycle table: the paper's
// (table3, table4) or table_<city>.
func tableName(city string) string {
	if f, ok := paper.Of(city); ok {
		return f.Table.File
	}
	return "table_" + city
}

// paperName is the paper's table for city ("" when none).
func paperName(city string) string {
	f, _ := paper.Of(city)
	return f.Table.Name
}

// paperOr is the paper's table for city, or a description.
func paperOr(city string) string {
	if n := paperName(city); n != "" {
		return n
	}
	return "EMD per cycle"
}

// paperLast is the paper table's last cycle at beta (-1 when none).
func paperLast(city string, beta float64) int {
	f, _ := paper.Of(city)
	return len(f.Table.Rounds[beta]) - 1
}
