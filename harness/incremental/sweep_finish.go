package incremental

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"privic/harness"
	"privic/plots"
)

// Finish implements harness.Kind: the summary table, Fig. 10a/b,
// section.md and claims.csv.
func (BetaSweep) Finish(ctx context.Context, hp harness.Params, out *harness.Output) error {
	p, ok := hp.(*SweepParams)
	if !ok {
		return fmt.Errorf("beta-sweep: params of type %T", hp)
	}
	t, err := out.ReadTable("final_emd")
	if err != nil {
		return err
	}
	fs, err := readFinals(t)
	if err != nil {
		return err
	}
	s := &sweepFinish{p: p, out: out, fs: fs}
	return s.run(ctx)
}

type sweepFinish struct {
	p       *SweepParams
	out     *harness.Output
	fs      *finalSet
	skipped [][]string
	figs    figureSaver
}

func (s *sweepFinish) betas() []float64 { return s.p.Beta.Values() }

func (s *sweepFinish) estimates() []string {
	if s.p.FinalGIBU {
		return []string{"last-cycle", "gibu"}
	}
	return []string{"last-cycle"}
}

// ownRef is the EMD reference a variant is shown with: the reference
// code's variant with its batch reference, every other with the first
// listed reference.
func (s *sweepFinish) ownRef(v variant) string {
	if v == referenceVariant && slices.Contains(s.p.EMDReference, "batch") {
		return "batch"
	}
	return s.p.EMDReference[0]
}

func (s *sweepFinish) run(ctx context.Context) error {
	header := []string{"city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "variant", "emd_reference",
		"estimate", "rounds", "mean", "sd", "final_tight_eps_mean"}
	var rows [][]string
	for _, city := range s.p.Cities {
		for _, v := range s.p.Variant {
			for _, ref := range s.p.EMDReference {
				for _, est := range s.estimates() {
					for _, beta := range s.betas() {
						k := finalKey{city, beta, v, ref, est}
						m, sd, n := s.fs.stat(k)
						if n == 0 {
							continue
						}
						em, _, _ := meanSD(s.fs.eps[k])
						rows = append(rows, []string{city, ff(beta), v.FirstMechanism, v.IBUStart, v.Mixing, v.Batches, v.name(),
							ref, est, itoa(n), ff(m), ff(sd), ff(em)})
					}
				}
			}
		}
	}
	if err := writeCSV(s.out, "final_emd_summary.csv", header, rows); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := drawFigures(&s.figs, s.fig10); err != nil {
		return err
	}
	claims := s.claims()
	if err := writeClaims(s.out, claims); err != nil {
		return err
	}
	if err := writeSkipped(s.out, s.skipped); err != nil {
		return err
	}
	return writeText(s.out, "section.md", s.section(claims))
}

// series is one (variant, reference, estimate) curve over beta.
func (s *sweepFinish) series(city string, v variant, ref, est, name string) (plots.Series, bool) {
	sr := plots.Series{Name: name}
	for _, beta := range s.betas() {
		m, sd, n := s.fs.stat(finalKey{city, beta, v, ref, est})
		if n == 0 {
			continue
		}
		sr.X, sr.Y, sr.YErr = append(sr.X, beta), append(sr.Y, m), append(sr.YErr, sd)
	}
	return sr, len(sr.X) > 0
}

func (s *sweepFinish) fig10() error {
	for _, city := range []string{"paris", "sf"} {
		name := "fig10" + map[string]string{"paris": "a", "sf": "b"}[city]
		if !slices.Contains(s.p.Cities, city) {
			s.skipped = append(s.skipped, []string{name, city + " is not in this spec's cities"})
			continue
		}
		var series []plots.Series
		for i, v := range s.p.Variant {
			ref := s.ownRef(v)
			label := v.label()
			if n := v.name(); n != "" {
				label = n + " " + label
			}
			if sr, ok := s.series(city, v, ref, "last-cycle", label+", last cycle, EMD to "+ref); ok {
				series = append(series, sr)
			}
			if i == 0 && s.p.FinalGIBU {
				if sr, ok := s.series(city, v, ref, "gibu", label+", final GIBU, EMD to "+ref); ok {
					series = append(series, sr)
				}
			}
		}
		if len(series) == 0 {
			s.skipped = append(s.skipped, []string{name, "no results for " + city})
			continue
		}
		title := fmt.Sprintf("Fig. %s: PRIVIC's final EMD vs β, %s", strings.TrimPrefix(name, "fig"), cityTitle(city))
		fig, err := plots.Lines(title, series, plots.LineOptions{
			XLabel:    "loss parameter β (1/cell); BA is 2β-geo-indistinguishable",
			YLabel:    fmt.Sprintf("final EMD (cells), mean ± sd over %d rounds", s.p.Rounds),
			Points:    true,
			YFromZero: true,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		s.figs.save(s.out, name, fig)
	}
	return nil
}

// claims checks "the EMD falls as beta grows" on the default variant.
func (s *sweepFinish) claims() []claim {
	v := s.p.Variant[0]
	ref := s.ownRef(v)
	betas := slices.Clone(s.betas())
	slices.Sort(betas)
	var ev []string
	mono, overall, n := 0, 0, 0
	for _, city := range s.p.Cities {
		var means []float64
		for _, beta := range betas {
			m, _, k := s.fs.stat(finalKey{city, beta, v, ref, "last-cycle"})
			if k > 0 {
				means = append(means, m)
			}
		}
		if len(means) < 2 {
			continue
		}
		n++
		drops := 0
		for i := 1; i < len(means); i++ {
			if means[i] < means[i-1] {
				drops++
			}
		}
		if drops == len(means)-1 {
			mono++
		}
		if means[len(means)-1] < means[0] {
			overall++
		}
		parts := make([]string, len(means))
		for i, m := range means {
			parts[i] = fmtG(m, 4)
		}
		ev = append(ev, fmt.Sprintf("%s: EMD at β = %s: %s (falls in %d of %d steps; β=%s/β=%s ratio %s)", cityTitle(city),
			joinBetas(betas), strings.Join(parts, ", "), drops, len(means)-1, betaText(betas[len(betas)-1]), betaText(betas[0]),
			fmtG(means[len(means)-1]/means[0], 3)))
	}
	verdict := notReproduced
	switch {
	case n > 0 && mono == n:
		verdict = reproduced
	case overall > 0:
		verdict = partly
	}
	evidence := fmt.Sprintf("default variant %s, EMD to %s after the last cycle, mean over %d rounds: %s. "+
		"(Sec. V also says higher β means less noise and hence worse statistical utility; the measured direction is what is reported here.)",
		v.label(), ref, s.p.Rounds, strings.Join(ev, "; "))
	return []claim{{Claim: "PRIVIC's EMD falls as β grows (Fig. 10)", Evidence: evidence, Verdict: verdict}}
}

func (s *sweepFinish) section(claims []claim) string {
	var b strings.Builder
	b.WriteString("## PRIVIC: final EMD against β (Sec. V, Fig. 10)\n\n")
	var vs []string
	for _, v := range s.p.Variant {
		l := v.label()
		if n := v.name(); n != "" {
			l += " (" + n + ")"
		}
		vs = append(vs, l)
	}
	var sched []string
	for _, city := range s.p.Cities {
		sched = append(sched, fmt.Sprintf("%s %d cycles", cityTitle(city), s.p.Cycles[city]))
	}
	fmt.Fprintf(&b, "PRIVIC at β ∈ {%s}, %d rounds each, same schedules as the convergence experiment (%s); variants: %s. "+
		"Each variant is plotted with its own EMD reference (paper: π; reference code: that cycle's batch); both references are in the tables.\n\n",
		joinBetas(s.betas()), s.p.Rounds, strings.Join(sched, ", "), strings.Join(vs, "; "))
	for _, n := range []string{"10a", "10b"} {
		skipped := false
		for _, sk := range s.skipped {
			skipped = skipped || sk[0] == "fig"+n
		}
		if !skipped {
			fmt.Fprintf(&b, "![Fig. %s](fig%s.png)\n", n, n)
		}
	}
	b.WriteString("\n(a) Paris, (b) San Francisco. Error bars: sd over rounds. The paper gives no numbers for Fig. 10, only the shape " +
		"(EMD decreasing sharply, then flattening, as β grows).\n\n")
	for _, city := range s.p.Cities {
		header := []string{"variant", "EMD to", "estimate"}
		for _, beta := range s.betas() {
			header = append(header, "β="+betaText(beta))
		}
		var rows [][]string
		for _, v := range s.p.Variant {
			for _, ref := range s.p.EMDReference {
				for _, est := range s.estimates() {
					row := []string{v.label(), ref, est}
					for _, beta := range s.betas() {
						m, sd, _ := s.fs.stat(finalKey{city, beta, v, ref, est})
						row = append(row, pm(m, sd, 4))
					}
					rows = append(rows, row)
				}
			}
		}
		fmt.Fprintf(&b, "%s, final EMD (mean ± sd):\n\n%s\n", cityTitle(city), mdTable(header, rows))
	}
	b.WriteString("### Claims\n\n")
	for _, c := range claims {
		fmt.Fprintf(&b, "- **%s** — %s: %s\n", c.Claim, c.Verdict, c.Evidence)
	}
	b.WriteString("\n")
	return b.String()
}
