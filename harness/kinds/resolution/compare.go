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
	Same       = "same"
	Stronger   = "stronger at fine resolution"
	Weaker     = "weaker at fine resolution"
	FineOnly   = "checked at fine resolution only"
	NotRunFine = "not run at fine resolution"
	NotRun     = "not run"
)

// rank orders the verdicts: reproduced above partly above not reproduced;
// -1 for anything else (no verdict).
func rank(v string) int {
	switch v {
	case harness.Reproduced:
		return 2
	case harness.Partly:
		return 1
	case harness.NotReproduced:
		return 0
	}
	return -1
}

// Change says how a claim's verdict moves from the paper's grid (paper)
// to the fine grid (fine); an empty verdict is one that was not checked.
func Change(paper, fine string) string {
	rp, rf := rank(paper), rank(fine)
	switch {
	case rp < 0 && rf < 0:
		return NotRun
	case rp < 0:
		return FineOnly
	case rf < 0:
		return NotRunFine
	case rf == rp:
		return Same
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
	Evidence       string
	Verdict        string
	Missing        string // non-empty: why there is no verdict
	NotCheckedHere bool   // the spec names no experiment for this side
}

// FindClaim returns the first claim of claims whose text starts with
// prefix.
func FindClaim(claims []harness.Claim, prefix string) (harness.Claim, bool) {
	for _, c := range claims {
		if strings.HasPrefix(c.Claim, prefix) {
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
// when the spec names no experiment for this side.
func (r *claimReader) find(src []string) Found {
	if len(src) == 0 {
		return Found{NotCheckedHere: true}
	}
	f := Found{Experiment: src[0]}
	claims, why := r.claims(src[0])
	if why != "" {
		f.Missing = why
		return f
	}
	c, ok := FindClaim(claims, src[1])
	if !ok {
		f.Missing = fmt.Sprintf("%s checks no claim starting %q", src[0], src[1])
		return f
	}
	f.Claim, f.Evidence, f.Verdict = c.Claim, c.Evidence, c.Verdict
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
		row := Row{Claim: c.Claim, City: c.City, Paper: r.find(c.Paper), Fine: r.find(c.Fine)}
		row.Change = Change(row.Paper.Verdict, row.Fine.Verdict)
		rows[i] = row
	}
	return rows
}
