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
// epsilons tights; what says which channels they are.
func GeoIndClaim(what string, betas, tights []float64) harness.Claim {
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
		Claim: "BA is 2·beta-geo-indistinguishable (Remark 2.3): the tight epsilon of every BA channel is <= 2·beta",
		Evidence: fmt.Sprintf("%s: tight eps <= 2·beta for %d of %d; largest ratio tight eps / (2·beta) = %s (at beta %s)",
			what, ok, len(betas), harness.FormatSig(worst, 6), harness.FormatSig(at, 3)),
		Verdict: v,
	}
}

// invertibleTol is the smallest singular value we call clearly non-zero:
// well above the ~1e-16·sigma_max rounding floor of a dense SVD of a
// stochastic matrix (sigma_max >= 1).
const invertibleTol = 1e-12

// InvertibilityClaim checks Theorem 4.1 of the paper, BA channels are
// invertible, from the smallest singular value of each channel.
func InvertibilityClaim(what string, msv []float64) harness.Claim {
	ok := 0
	lo := 1e300
	for _, v := range msv {
		if v > invertibleTol {
			ok++
		}
		lo = min(lo, v)
	}
	v := harness.CountVerdict(ok, len(msv))
	return harness.Claim{
		Claim: "BA channels are invertible (Theorem 4.1)",
		Evidence: fmt.Sprintf("%s: smallest singular value > %s for %d of %d channels; the smallest is %s (all: %s)",
			what, harness.FormatSig(invertibleTol, 2), ok, len(msv), harness.FormatSig(lo, 4), harness.FormatList(msv, 3)),
		Verdict: v,
	}
}

// LapEpsWords says how LAP's epsilon is chosen (params.lap_epsilon), for
// sections.
func LapEpsWords(mode string) string {
	if mode == "two-beta" {
		return "2·beta (paper's text, lap_epsilon = \"two-beta\")"
	}
	return "the tight epsilon of the BA channel at the same beta (reference code, lap_epsilon = \"tight\")"
}
