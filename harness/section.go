package harness

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"privic/internal/atomicfile"
)

// The report contract: every kind's Finish returns a Section, the harness
// writes it into the experiment's directory (section.md, claims.csv,
// skipped.csv) and ReadSection reads it back for the report. These three
// files have no other writer or reader.
const (
	sectionFile = "section.md"
	claimsFile  = "claims.csv"
	skippedFile = "skipped.csv"
)

var (
	claimsHeader  = []string{"claim", "data", "rule", "simulations", "evidence", "verdict", "reason"}
	skippedHeader = []string{"figure", "reason"}
	// oldClaimsHeader is claims.csv before the data, rule, simulations
	// and reason columns; ReadSection still reads it.
	oldClaimsHeader = []string{"claim", "evidence", "verdict"}
)

// Section is what one experiment contributes to the report.
type Section struct {
	// Markdown is the experiment's section of REPORT.md, starting with a
	// level-2 heading ("## ..."). Relative links point into the
	// experiment's own directory; the report rewrites them.
	Markdown string
	// Claims are the paper's claims this experiment checked.
	Claims []Claim
	// Skipped are the figures (or parts of them) that could not be drawn.
	Skipped []Skip
	// Figures are the figures the section shows, written as <base>.png
	// and <base>.svg (see WriteFigures).
	Figures Figures
}

// Verdicts of a Claim; the report counts claims by these exact strings.
// Undecided is for evidence that cannot decide the rule (bounds that
// straddle its threshold, too few simulations to separate two means, too
// few check-ins per cell to resolve a distance): it is not a failure, and
// the claim's Reason says why.
const (
	Reproduced    = "reproduced"
	Partly        = "partly"
	NotReproduced = "not reproduced"
	Undecided     = "undecided"
)

// Verdicts are the allowed verdicts, in the report's order.
func Verdicts() []string { return []string{Reproduced, Partly, NotReproduced, Undecided} }

// Claim is one row of claims.csv: a claim of the paper checked on one
// dataset, the rule that decides it, the evidence of this run and the
// verdict.
type Claim struct {
	// Claim is the paper's claim, in words.
	Claim string
	// Data is the dataset the verdict is about. A claim checked on
	// several datasets is one Claim per dataset: verdicts are never
	// pooled.
	Data string
	// Rule is the rule the code applies, in words, with its thresholds
	// in the units of the claim (metres for distances).
	Rule string
	// Simulations says how many simulations (or rounds) the verdict rests
	// on, or that it is an exact computation.
	Simulations string
	// Evidence gives the measured numbers behind the verdict.
	Evidence string
	// Verdict is one of Reproduced, Partly, NotReproduced, Undecided.
	Verdict string
	// Reason says why the verdict is Undecided (empty otherwise, or a
	// note on a decided verdict).
	Reason string
}

// Exact is Claim.Simulations for a verdict computed exactly (no random
// simulation).
const Exact = "none: exact computation"

// Skip is one row of skipped.csv: a figure that was not drawn, and why.
type Skip struct{ Figure, Reason string }

// CountVerdict is the verdict of a claim checked n times and found true
// ok times: all of them reproduced, some partly, none not reproduced.
func CountVerdict(ok, n int) string { return VerdictOf(n > 0 && ok == n, ok > 0) }

// VerdictOf is Reproduced when all holds, else Partly when some does,
// else NotReproduced.
func VerdictOf(all, some bool) string {
	switch {
	case all:
		return Reproduced
	case some:
		return Partly
	}
	return NotReproduced
}

// ClaimsTable renders claims as a Markdown table (claim, data, rule,
// evidence, bold verdict with its reason), for sections that show their
// claims.
func ClaimsTable(claims []Claim) string {
	rows := make([][]string, len(claims))
	for i, c := range claims {
		rows[i] = []string{c.Claim, c.Data, c.Rule, c.Evidence, c.VerdictWords()}
	}
	return MarkdownTable([]string{"claim", "data", "rule", "evidence", "verdict"}, rows)
}

// VerdictWords is the verdict in bold, followed by its reason when there
// is one: "**undecided** (too few simulations ...)".
func (c Claim) VerdictWords() string {
	if c.Reason == "" {
		return "**" + c.Verdict + "**"
	}
	return "**" + c.Verdict + "** (" + c.Reason + ")"
}

// writeSection writes s into o: section.md when s has Markdown, claims.csv
// and skipped.csv when s has rows or outputs lists the file (a kind that
// can skip figures writes the header alone when it skipped none, so that
// a rerun clears older rows).
func (o *Output) writeSection(s Section, outputs []string) error {
	for _, c := range s.Claims {
		if !slices.Contains(Verdicts(), c.Verdict) {
			return fmt.Errorf("claim %q: verdict %q is not one of %s", c.Claim, c.Verdict, QuoteJoin(Verdicts()))
		}
		if c.Verdict == Undecided && c.Reason == "" {
			return fmt.Errorf("claim %q: an undecided verdict needs its reason", c.Claim)
		}
	}
	if s.Markdown == "" && slices.Contains(outputs, sectionFile) {
		return errors.New("the kind lists section.md among its outputs but returned no section")
	}
	if err := o.WriteFigures(s.Figures...); err != nil {
		return err
	}
	if s.Markdown != "" {
		if err := o.writeReserved(sectionFile, func(w io.Writer) error {
			_, err := io.WriteString(w, s.Markdown)
			return err
		}); err != nil {
			return err
		}
	}
	if len(s.Claims) > 0 || slices.Contains(outputs, claimsFile) {
		rows := make([][]string, len(s.Claims))
		for i, c := range s.Claims {
			rows[i] = []string{c.Claim, c.Data, c.Rule, c.Simulations, c.Evidence, c.Verdict, c.Reason}
		}
		if err := o.writeReserved(claimsFile, csvWriter(claimsHeader, rows)); err != nil {
			return err
		}
	}
	if len(s.Skipped) > 0 || slices.Contains(outputs, skippedFile) {
		rows := make([][]string, len(s.Skipped))
		for i, k := range s.Skipped {
			rows[i] = []string{k.Figure, k.Reason}
		}
		if err := o.writeReserved(skippedFile, csvWriter(skippedHeader, rows)); err != nil {
			return err
		}
	}
	return nil
}

func csvWriter(header []string, rows [][]string) func(io.Writer) error {
	return func(w io.Writer) error { return encodeCSV(w, Table{Header: header, Rows: rows}) }
}

// writeReserved atomically writes one of the harness's own files.
func (o *Output) writeReserved(name string, write func(io.Writer) error) error {
	if err := atomicfile.WriteFile(filepath.Join(o.dir, name), write); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
