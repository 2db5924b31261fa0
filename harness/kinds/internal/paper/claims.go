package paper

import (
	"fmt"
	"math"
	"strings"

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

// InvertibilityBoundsClaim is InvertibilityClaim for channels some of
// which have only certified bounds lo <= sigma_min <= hi (exact NaN, on
// grids too large for a dense SVD): a channel is clearly invertible when
// its exact value, or else its lower bound, exceeds invertibleTol, and
// clearly not when its exact value, or else its upper bound, is at most
// invertibleTol; between the two the bounds decide nothing. With every
// exact value known it is InvertibilityClaim.
func InvertibilityBoundsClaim(what string, exact, lo, hi []float64) harness.Claim {
	bounded := false
	for _, v := range exact {
		bounded = bounded || math.IsNaN(v)
	}
	if !bounded {
		return InvertibilityClaim(what, exact)
	}
	ok, not := 0, 0
	var ev []string
	for i, v := range exact {
		switch {
		case !math.IsNaN(v):
			if v > invertibleTol {
				ok++
			} else {
				not++
			}
			ev = append(ev, harness.FormatSig(v, 3))
		default:
			if lo[i] > invertibleTol {
				ok++
			} else if hi[i] <= invertibleTol {
				not++
			}
			ev = append(ev, "["+harness.FormatSig(lo[i], 3)+", "+harness.FormatSig(hi[i], 3)+"]")
		}
	}
	return harness.Claim{
		Claim: "BA channels are invertible (Theorem 4.1)",
		Evidence: fmt.Sprintf("%s: smallest singular value (certified bounds [lower, upper] where the grid is too large for a dense SVD): %s. "+
			"Clearly above %s for %d of %d channels, at most %s for %d, undecided by the bounds for %d",
			what, strings.Join(ev, ", "), harness.FormatSig(invertibleTol, 2), ok, len(exact),
			harness.FormatSig(invertibleTol, 2), not, len(exact)-ok-not),
		Verdict: harness.CountVerdict(ok, len(exact)),
	}
}
