package privic

import (
	"math"
	"strconv"
	"strings"

	"privic/harness"
)

// Formatting for the PRIVIC kinds' prose and Markdown tables, where a
// missing value (NaN: a cycle a trajectory did not reach) is a dash.

// Sig formats v with digits significant digits ("–" for a missing value).
func Sig(v float64, digits int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return harness.FormatSig(v, digits)
}

// Fixed formats v with a fixed number of decimals ("–" when missing).
func Fixed(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// PM formats mean ± sd with fixed decimals ("–" when missing).
func PM(mean, sd float64, decimals int) string {
	if math.IsNaN(mean) {
		return "–"
	}
	return Fixed(mean, decimals) + " ± " + Fixed(sd, decimals)
}

// BetaText formats beta for titles ("0.5", "1").
func BetaText(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }

// BetaList formats betas as "0.5, 1".
func BetaList(b []float64) string {
	s := make([]string, len(b))
	for i, v := range b {
		s[i] = BetaText(v)
	}
	return strings.Join(s, ", ")
}
