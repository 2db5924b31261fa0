package report

import (
	"fmt"
	"slices"
	"strings"

	"privic/datasets"
	"privic/harness"
)

// reportData is what report.md.tmpl shows.
type reportData struct {
	Contents string // contentsMarker, replaced by the table of contents
	Parts    []partData
	Claims   [][]string
	Counts   string // "n claims checked: ..."
	Skipped  [][]string
	Facts    [][]string
	Total    string // total wall and job time
	Machine  string // where the first manifest ran ("" when none)
	// Paper says whether some experiment ran on one of the paper's
	// datasets (onPaperData): only then is the report titled as the
	// paper's regenerated.
	Paper bool
}

// partData is one part of the report: its heading, first line and
// sections.
type partData struct {
	Heading, About string
	Sections       []string
	exps           []*experiment
}

func markdown(exps []*experiment, parts []partData) (string, error) {
	d := reportData{Contents: contentsMarker, Parts: parts, Paper: onPaperData(exps)}
	var want []string // the experiments' headings, in order
	for i := range d.Parts {
		for _, x := range d.Parts[i].exps {
			s := section(x)
			want = append(want, s[:strings.Index(s+"\n", "\n")])
			d.Parts[i].Sections = append(d.Parts[i].Sections, s)
		}
	}
	d.Claims, d.Counts = claims(exps)
	for _, x := range exps {
		for _, s := range x.Section.Skipped {
			d.Skipped = append(d.Skipped, []string{"`" + x.Name + "`", s.Figure, oneLine(s.Reason)})
		}
	}
	d.Facts, d.Total, d.Machine = runFacts(exps)
	t, err := harness.Templates(templates, nil, "report.md.tmpl")
	if err != nil {
		return "", err
	}
	md, err := harness.Render(t, "report.md.tmpl", d)
	if err != nil {
		return "", err
	}
	return contents(md, want)
}

// onPaperData reports whether some experiment ran on one of the paper's
// datasets: its manifest (the datasets of the report's headings) names
// a preset's title.
func onPaperData(exps []*experiment) bool {
	var titles []string
	for _, n := range datasets.CityNames() {
		if c, err := datasets.Lookup(n); err == nil {
			titles = append(titles, c.Title)
		}
	}
	for _, x := range exps {
		if x.Manifest == nil {
			continue
		}
		for _, t := range x.Manifest.Datasets {
			if slices.Contains(titles, t) {
				return true
			}
		}
	}
	return false
}

// section is an experiment's section under its heading (see nest), with
// its spec file and description.
func section(x *experiment) string {
	title, body := nest(x.Section.Markdown)
	var datasets []string
	var spec string
	if m := x.Manifest; m != nil {
		datasets = m.Datasets
		if m.SpecFile != "" {
			spec = "*Spec `" + m.SpecFile + "`"
			if m.Description != "" {
				spec += ": " + oneLine(m.Description)
			}
			spec += ".*"
		}
	}
	if strings.TrimSpace(x.Section.Markdown) == "" {
		body = fmt.Sprintf("(This experiment wrote no section.md; its tables are in `%s/`.)", x.Name)
	}
	s := experimentHeading(x.Name, datasets, title)
	for _, p := range []string{spec, body} {
		if p != "" {
			s += "\n\n" + p
		}
	}
	return s
}

// claims is the table of every claim checked, one row per claim and
// dataset (mergeClaims), and the count by verdict.
func claims(exps []*experiment) ([][]string, string) {
	merged := mergeClaims(exps)
	var rows [][]string
	count := map[string]int{}
	checks := 0
	for _, m := range merged {
		count[m.Verdict]++
		checks += len(m.experiments)
		var names []string
		for _, n := range m.experiments {
			names = append(names, "`"+n+"`")
		}
		rows = append(rows, []string{strings.Join(names, ", "), oneLine(m.Claim.Claim), oneLine(strings.Join(m.data, "; ")), oneLine(m.Rule),
			oneLine(m.Evidence), oneLine(m.VerdictWords())})
	}
	s := fmt.Sprintf("%d claims checked: %d reproduced, %d partly, %d not reproduced, %d undecided",
		len(rows), count[harness.Reproduced], count[harness.Partly], count[harness.NotReproduced], count[harness.Undecided])
	if other := len(rows) - count[harness.Reproduced] - count[harness.Partly] - count[harness.NotReproduced] - count[harness.Undecided]; other > 0 {
		s += fmt.Sprintf(", %d with another verdict", other)
	}
	if checks > len(rows) {
		s += fmt.Sprintf(" (%d checks by the experiments: a claim that several experiments check on the same data, with the same evidence and verdict, is one row that lists them)", checks)
	}
	return rows, s + "."
}

// mergedClaim is one row of the report's claim table: a claim on one
// dataset, with every experiment that checked it and agrees.
type mergedClaim struct {
	harness.Claim
	experiments, data []string
}

// mergeClaims lists every experiment's claims in order, merging the
// checks of one claim on the same data: the same claim, rule and verdict,
// and the same evidence once each row's dataset name is set aside (the
// counts experiment's "Paris (counts file)" is Paris's grid under another
// name, and its numbers are Paris's). Checks that disagree stay apart.
func mergeClaims(exps []*experiment) []*mergedClaim {
	var out []*mergedClaim
	index := map[string]*mergedClaim{}
	for _, x := range exps {
		for _, c := range x.Section.Claims {
			ev := c.Evidence
			if c.Data != "" {
				ev = strings.ReplaceAll(ev, c.Data, "\x00")
			}
			key := strings.Join([]string{c.Claim, c.Rule, c.Verdict, c.Reason, ev}, "\x01")
			m, ok := index[key]
			if !ok {
				m = &mergedClaim{Claim: c}
				index[key] = m
				out = append(out, m)
			}
			m.experiments = append(m.experiments, x.Name)
			if c.Data != "" && !slices.Contains(m.data, c.Data) {
				m.data = append(m.data, c.Data)
			}
		}
	}
	return out
}

// runFacts is the table of where and how long each experiment ran, the
// totals, and the machine of the first manifest.
func runFacts(exps []*experiment) (rows [][]string, total, machine string) {
	sig := harness.FormatSig
	wall, jobs := 0.0, 0.0
	var env *harness.Manifest
	for _, x := range exps {
		m := x.Manifest
		if m == nil {
			note := "no manifest.json"
			if len(x.Problems) > 0 {
				note += "; " + strings.Join(x.Problems, "; ")
			}
			rows = append(rows, []string{"`" + x.Name + "`", "-", "-", "-", "-", "-", "-", oneLine(note)})
			continue
		}
		if env == nil {
			env = m
		}
		jobSum := 0.0
		for _, j := range m.Jobs {
			jobSum += j.Seconds
		}
		wall += m.WallSeconds
		jobs += jobSum
		hash := m.SpecHash
		if len(hash) > 12 {
			hash = hash[:12]
		}
		rows = append(rows, []string{"`" + x.Name + "`", m.Kind, fmt.Sprintf("%d (%d computed, %d reused)", len(m.Jobs), m.JobsComputed, m.JobsReused),
			sig(m.WallSeconds, 3), sig(jobSum, 3), sig(m.FinishSeconds, 3), "`" + hash + "`", oneLine(strings.Join(x.Problems, "; "))})
	}
	total = fmt.Sprintf("Total wall time of the experiments: %s s (job time summed: %s s).", sig(wall, 3), sig(jobs, 3))
	if env != nil {
		dirty := ""
		if env.GitDirty != nil && *env.GitDirty {
			dirty = " (with uncommitted changes)"
		}
		machine = fmt.Sprintf("Machine: %s, %d CPUs, %s %s/%s; commit %s%s.", env.CPU, env.NumCPU, env.GoVersion, env.GOOS, env.GOARCH, env.GitCommit, dirty)
	}
	return rows, total, machine
}
