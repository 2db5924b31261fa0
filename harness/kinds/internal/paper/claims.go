package paper

import (
	"fmt"

	"privic/harness"
)

// geoIndTol is the slack allowed on tight eps <= 2 beta: the tight epsilon
// is a maximum of differences of logarithms of normalisers, exact to a few
// ulps of the log values.
const geoIndTol = 1e-9

// GeoIndClaim checks Remark 2.3 of the paper, BA is 2·beta-geo-
// indistinguishable, on BA channels of loss parameters betas with tight
// epsilons tights, on the dataset data; what says which channels they
// are.
func GeoIndClaim(data, what string, betas, tights []float64) harness.Claim {
	worst, at := -1e300, 0.0
	ok := 0
	for i, b := range betas {
		r := tights[i] / (2 * b)
		if r > worst {
			worst, at = r, b
		}
		if tights[i] <= 2*b+geoIndTol {
			ok++
		}
	}
	v := harness.VerdictOf(ok == len(betas) && len(betas) > 0, false)
	return harness.Claim{
		Claim:       "BA is 2·beta-geo-indistinguishable (Remark 2.3): the tight epsilon of every BA channel is <= 2·beta",
		Data:        data,
		Rule:        fmt.Sprintf("reproduced when every channel's exact tight epsilon is at most 2·beta (+ %s for rounding); not reproduced otherwise", harness.FormatSig(geoIndTol, 2)),
		Simulations: harness.Exact,
		Evidence: fmt.Sprintf("%s: tight eps <= 2·beta for %d of %d; largest ratio tight eps / (2·beta) = %s (at beta %s)",
			what, ok, len(betas), harness.FormatSig(worst, 6), harness.FormatSig(at, 3)),
		Verdict: v,
	}
}

// LapEpsWords says how LAP's epsilon is chosen (params.lap_epsilon), for
// sections; withPaper adds which of the paper's choices it is (for
// sections about the paper's datasets).
func LapEpsWords(mode string, withPaper bool) string {
	if mode == "two-beta" {
		if !withPaper {
			return "2·beta (lap_epsilon = \"two-beta\")"
		}
		return "2·beta (paper's text, lap_epsilon = \"two-beta\")"
	}
	if !withPaper {
		return "the tight epsilon of the BA channel at the same beta (lap_epsilon = \"tight\")"
	}
	return "the tight epsilon of the BA channel at the same beta (reference code, lap_epsilon = \"tight\")"
}

// Any reports whether the paper has facts for any of the datasets called
// names: a section about them is (also) about the paper's data, and may
// set the paper's words and numbers beside its own.
func Any(names ...string) bool {
	for _, n := range names {
		if Has(n) {
			return true
		}
	}
	return false
}
