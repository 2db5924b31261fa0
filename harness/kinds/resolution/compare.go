package resolution

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"privic/harness"
)

// Change of a claim's verdict from the paper's grid to the fine grid.
const (
	Same          = "same"
	Stronger      = "stronger at fine resolution"
	Weaker        = "weaker at fine resolution"
	UndecidedFine = "undecided at fine resolution"
	DecidedFine   = "decided at fine resolution only"
	FineOnly      = "checked at fine resolution only"
	NotRunFine    = "not run at fine resolution"
	NotRun        = "not run"
)

// rank orders the decided verdicts: reproduced above partly above not
// reproduced; undecided is -2 (a verdict, but no order); -1 for no
// verdict.
func rank(v string) int {
	switch v {
	case harness.Reproduced:
		return 2
	case harness.Partly:
		return 1
	case harness.NotReproduced:
		return 0
	case harness.Undecided:
		return -2
	}
	return -1
}

// Change says how a claim's verdict moves from the paper's grid (paper)
// to the fine grid (fine); an empty verdict is one that was not checked.
// An undecided verdict on one side only is neither stronger nor weaker:
// the evidence decides on one grid and not on the other.
func Change(paper, fine string) string {
	rp, rf := rank(paper), rank(fine)
	switch {
	case rp == -1 && rf == -1:
		return NotRun
	case rp == -1:
		return FineOnly
	case rf == -1:
		return NotRunFine
	case rf == rp:
		return Same
	case rf == -2:
		return UndecidedFine
	case rp == -2:
		return DecidedFine
	case rf > rp:
		return Stronger
	}
	return Weaker
}

// Found is one claim as read from an experiment's claims.csv: its text,
// evidence and verdict, or why it is missing.
type Found struct {
	Experiment     string
	Claim          string
	Data, Rule     string
	Evidence       string
	Verdict        string
	Reason         string // why an undecided verdict is undecided
	Missing        string // non-empty: why there is no verdict
	NotCheckedHere bool   // the spec names no experiment for this side
}

// FindClaim returns the first claim of claims whose text starts with
// prefix, on the dataset data ("" for any).
func FindClaim(claims []harness.Claim, prefix, data string) (harness.Claim, bool) {
	for _, c := range claims {
		if strings.HasPrefix(c.Claim, prefix) && (data == "" || c.Data == data) {
			return c, true
		}
	}
	return harness.Claim{}, false
}

// claimReader reads the claims of experiments in one results directory,
// each experiment once.
type claimReader struct {
	root  string
	cache map[string]claimsOrErr
}

type claimsOrErr struct {
	claims []harness.Claim
	err    string
}

func newClaimReader(root string) *claimReader {
	return &claimReader{root: root, cache: map[string]claimsOrErr{}}
}

// claims returns the claims of experiment exp, or why there are none.
func (r *claimReader) claims(exp string) ([]harness.Claim, string) {
	if c, ok := r.cache[exp]; ok {
		return c.claims, c.err
	}
	var c claimsOrErr
	dir := filepath.Join(r.root, exp)
	if _, err := os.Stat(filepath.Join(dir, "claims.csv")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.err = fmt.Sprintf("%s/claims.csv is not in the results: run the experiment %s first", exp, exp)
		} else {
			c.err = fmt.Sprintf("%s/claims.csv: %v", exp, err)
		}
	} else if sec, _, err := harness.ReadSection(dir); err != nil {
		c.err = fmt.Sprintf("%s: %v", exp, err)
	} else {
		c.claims = sec.Claims
	}
	r.cache[exp] = c
	return c.claims, c.err
}

// find looks a claim up: src is [experiment, claim prefix], or empty
// when the spec names no experiment for this side; data selects the
// dataset of an experiment that checks the claim on several ("" for
// any).
func (r *claimReader) find(src []string, data string) Found {
	if len(src) == 0 {
		return Found{NotCheckedHere: true}
	}
	f := Found{Experiment: src[0]}
	claims, why := r.claims(src[0])
	if why != "" {
		f.Missing = why
		return f
	}
	c, ok := FindClaim(claims, src[1], data)
	if !ok {
		f.Missing = fmt.Sprintf("%s checks no claim starting %q", src[0], src[1])
		if data != "" {
			f.Missing += " on " + data
		}
		return f
	}
	f.Claim, f.Data, f.Rule, f.Evidence, f.Verdict, f.Reason = c.Claim, c.Data, c.Rule, c.Evidence, c.Verdict, c.Reason
	return f
}

// Row is one claim on one dataset at both resolutions.
type Row struct {
	Claim, City string
	Paper, Fine Found
	Change      string
}

// compareClaims looks up every claim of p in the results directory root.
func compareClaims(root string, p *Params) []Row {
	r := newClaimReader(root)
	rows := make([]Row, len(p.Claims))
	for i, c := range p.Claims {
		row := Row{Claim: c.Claim, City: c.City, Paper: r.find(c.Paper, c.PaperData), Fine: r.find(c.Fine, "")}
		row.Change = Change(row.Paper.Verdict, row.Fine.Verdict)
		rows[i] = row
	}
	return rows
}
