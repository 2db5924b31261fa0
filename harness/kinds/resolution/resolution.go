package resolution

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
)

// Kind returns the resolution kind.
func Kind() harness.Kind { return harness.Typed[*Params, job](def{}) }

// Params are the resolution kind's parameters. Experiments are named by
// their results directory (a spec's name); datasets by the name their
// tables give them in the city column.
type Params struct {
	// CellM is the side of a cell in metres of every dataset the pairs
	// name (the presets: the side of the square of the mean cell's area).
	CellM param.ByDataset[float64] `toml:"cell_m"`
	// Claims are the claims compared, one per (claim, dataset).
	Claims []ClaimSpec `toml:"claim"`
	// BAvsLAP, PRIVIC, BetaSweep, Mechanisms and Elastic are the
	// experiment pairs whose measurements are put in metres.
	BAvsLAP    []Pair `toml:"ba_vs_lap"`
	PRIVIC     []Pair `toml:"privic"`
	BetaSweep  []Pair `toml:"beta_sweep"`
	Mechanisms []Pair `toml:"mechanisms"`
	Elastic    []Pair `toml:"elastic"`
}

// ClaimSpec is one claim on one dataset: where the paper's grid checked
// it and where the fine grid did, each as [experiment, the start of the
// claim's text in its claims.csv]. Paper may be empty: a claim the paper
// checks on another dataset only. PaperData picks the paper grid's claim
// on one dataset (its data column) when the experiment checks several.
type ClaimSpec struct {
	Claim     string   `toml:"claim"`
	City      string   `toml:"city"`
	Paper     []string `toml:"paper"`
	PaperData string   `toml:"paper_data"`
	Fine      []string `toml:"fine"`
}

// Pair is one measurement at both resolutions: the paper's grid and the
// fine grid, each as [experiment, dataset].
type Pair struct {
	Title string   `toml:"title"`
	Paper []string `toml:"paper"`
	Fine  []string `toml:"fine"`
	// Variant selects PRIVIC's protocol variant in privic and
	// beta_sweep pairs: "first_mechanism/ibu_start/mixing/batches".
	Variant string `toml:"variant"`
}

// Validate implements harness.Params.
func (p *Params) Validate() error {
	if len(p.Claims) == 0 {
		return errors.New("params.claim: give at least one [[params.claim]]")
	}
	for name, v := range p.CellM {
		if !(v > 0) || v > 1e6 {
			return fmt.Errorf("params.cell_m.%s = %v: a cell's side in metres must be in (0, 1e6]", name, v)
		}
	}
	for i, c := range p.Claims {
		key := fmt.Sprintf("params.claim[%d]", i)
		if strings.TrimSpace(c.Claim) == "" || strings.TrimSpace(c.City) == "" {
			return fmt.Errorf("%s: claim and city must be non-empty", key)
		}
		if len(c.Paper) != 0 {
			if err := source(key+".paper", c.Paper); err != nil {
				return err
			}
		}
		if err := source(key+".fine", c.Fine); err != nil {
			return err
		}
	}
	groups := []struct {
		key     string
		pairs   []Pair
		variant bool
	}{{"ba_vs_lap", p.BAvsLAP, false}, {"privic", p.PRIVIC, true}, {"beta_sweep", p.BetaSweep, true},
		{"mechanisms", p.Mechanisms, false}, {"elastic", p.Elastic, false}}
	for _, g := range groups {
		for i, pr := range g.pairs {
			key := fmt.Sprintf("params.%s[%d]", g.key, i)
			if strings.TrimSpace(pr.Title) == "" {
				return fmt.Errorf("%s.title: must be non-empty", key)
			}
			for _, side := range []struct {
				name string
				src  []string
			}{{"paper", pr.Paper}, {"fine", pr.Fine}} {
				if err := source(key+"."+side.name, side.src); err != nil {
					return err
				}
				if _, ok := p.CellM[side.src[1]]; !ok {
					return fmt.Errorf("%s.%s: dataset %q has no params.cell_m entry", key, side.name, side.src[1])
				}
			}
			if g.variant {
				if _, err := parseVariant(pr.Variant); err != nil {
					return fmt.Errorf("%s.variant: %w", key, err)
				}
			} else if pr.Variant != "" {
				return fmt.Errorf("%s.variant: only privic and beta_sweep pairs take a variant", key)
			}
		}
	}
	return nil
}

// source checks an [experiment, text] pair.
func source(key string, s []string) error {
	if len(s) != 2 || strings.TrimSpace(s[0]) == "" || strings.TrimSpace(s[1]) == "" {
		return fmt.Errorf("%s = %q: want [experiment, text], both non-empty", key, s)
	}
	if filepath.Base(s[0]) != s[0] || strings.HasPrefix(s[0], ".") {
		return fmt.Errorf("%s: experiment %q must be a results directory's name", key, s[0])
	}
	return nil
}

// variantCols are the emd tables' columns that name a PRIVIC variant.
var variantCols = []string{"first_mechanism", "ibu_start", "mixing", "batches"}

// parseVariant splits "first_mechanism/ibu_start/mixing/batches".
func parseVariant(v string) ([]string, error) {
	parts := strings.Split(v, "/")
	if len(parts) != len(variantCols) || slices.Contains(parts, "") {
		return nil, fmt.Errorf("%q: want %s", v, strings.Join(variantCols, "/"))
	}
	return parts, nil
}

type def struct{}

// job is the kind's one job: it lists the comparison (the harness runs
// at least one job per spec); the work is in Finish.
type job struct{ p *Params }

func (def) About() harness.About {
	return harness.About{
		Name:       "resolution",
		Describe:   "the paper's claims on its grids beside the same claims on fine grids of the same regions, with EMD and distortion in metres",
		Tables:     []string{"compared", "verdicts", "in_metres"},
		Figures:    []string{"ba-vs-lap-metres", "privic-metres"},
		Skips:      true,
		FinishLast: true,
		Volatile:   volatile,
	}
}

func (def) NewParams() *Params { return &Params{CellM: map[string]float64{}} }

func (def) Plan(p *Params) ([]harness.Work[job], error) {
	return []harness.Work[job]{{Key: "compare", Job: job{p}}}, nil
}

// EstimateBytes implements harness.MemoryEstimator: the job only lists
// the comparison.
func (def) EstimateBytes(job) int64 { return 1 << 20 }

// Run lists what is compared: every claim and pair with its experiments.
func (def) Run(_ context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	t := harness.NewTable("compared", "what", "title", "paper_experiment", "paper_text", "fine_experiment", "fine_text")
	side := func(s []string) (string, string) {
		if len(s) != 2 {
			return "", ""
		}
		return s[0], s[1]
	}
	for _, c := range j.p.Claims {
		pe, pt := side(c.Paper)
		fe, ft := side(c.Fine)
		t.Add(harness.Row{"what": "claim", "title": c.Claim + " [" + c.City + "]", "paper_experiment": pe, "paper_text": pt,
			"fine_experiment": fe, "fine_text": ft})
	}
	for _, g := range j.p.groups() {
		for _, pr := range g.pairs {
			t.Add(harness.Row{"what": g.name, "title": pr.Title, "paper_experiment": pr.Paper[0], "paper_text": pr.Paper[1],
				"fine_experiment": pr.Fine[0], "fine_text": pr.Fine[1]})
		}
	}
	return []harness.Table{*t}, nil
}

// aboutPaper reports whether the comparison is about the paper: a claim
// names the paper's dataset it is checked on (paper_data), or a pair's
// coarse side is one of the paper's datasets. Only then does the section
// call the coarse side the paper's grid and say what the paper checks.
func (p *Params) aboutPaper() bool {
	for _, c := range p.Claims {
		if c.PaperData != "" {
			return true
		}
	}
	for _, g := range p.groups() {
		for _, pr := range g.pairs {
			if len(pr.Paper) == 2 && paper.Has(pr.Paper[1]) {
				return true
			}
		}
	}
	return false
}

type group struct {
	name  string
	pairs []Pair
}

func (p *Params) groups() []group {
	return []group{{"ba-vs-lap", p.BAvsLAP}, {"privic", p.PRIVIC}, {"beta-sweep", p.BetaSweep},
		{"mechanisms", p.Mechanisms}, {"elastic", p.Elastic}}
}

// Finish reads the experiments of the output directory and writes
// verdicts.csv, in_metres.csv, the figures and the section.
func (def) Finish(_ context.Context, p *Params, out *harness.Output) (harness.Section, error) {
	root := filepath.Dir(out.Dir())
	rows := compareClaims(root, p)
	vt := harness.NewTable("verdicts", "claim", "city", "paper_experiment", "paper_verdict", "paper_evidence",
		"fine_experiment", "fine_verdict", "fine_evidence", "change", "paper_rule", "paper_reason", "fine_rule", "fine_reason")
	for _, r := range rows {
		vt.Add(harness.Row{"claim": r.Claim, "city": r.City, "paper_experiment": r.Paper.Experiment, "paper_verdict": verdictCell(r.Paper),
			"paper_evidence": r.Paper.Evidence, "fine_experiment": r.Fine.Experiment, "fine_verdict": verdictCell(r.Fine),
			"fine_evidence": r.Fine.Evidence, "change": r.Change, "paper_rule": r.Paper.Rule, "paper_reason": r.Paper.Reason,
			"fine_rule": r.Fine.Rule, "fine_reason": r.Fine.Reason})
	}
	if err := out.WriteTable(*vt); err != nil {
		return harness.Section{}, err
	}
	m := newMetres(root, p)
	m.all()
	if err := out.WriteTable(*m.table); err != nil {
		return harness.Section{}, err
	}
	figs, skipped := m.figures()
	sec := harness.Section{Figures: figs, Skipped: append(skipped, m.skipped...)}
	md, err := section(p, rows, m)
	if err != nil {
		return harness.Section{}, err
	}
	sec.Markdown = md
	return sec, nil
}

// verdictCell is a side's verdict, or what stands for it.
func verdictCell(f Found) string {
	if s, ok := noVerdict(f, "not checked"); ok {
		return s
	}
	return f.Verdict
}

// noVerdict says what stands for a side without a verdict: notChecked
// when the paper does not check the claim on that grid, "not run" when
// its experiment is missing; ok is false when the side has a verdict.
func noVerdict(f Found, notChecked string) (s string, ok bool) {
	switch {
	case f.NotCheckedHere:
		return notChecked, true
	case f.Missing != "":
		return "not run", true
	}
	return "", false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[float64]V) []float64 {
	k := make([]float64, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Float64s(k)
	return k
}
