package mechanism

import (
	"math"

	"privic/kernels"
)

// RR is k-ary randomized response over the k cells of the grid: the true
// cell is reported with probability e^eps/(e^eps+k-1) and every other cell
// with probability 1/(e^eps+k-1). It is eps-locally differentially private,
// the baseline of local differential privacy.
//
// References: S. L. Warner, "Randomized response: a survey technique for
// eliminating evasive answer bias", JASA 60(309), 1965; P. Kairouz, S. Oh,
// P. Viswanath, "Extremal mechanisms for local differential privacy",
// NeurIPS 2014 (the k-ary form, "k-RR").
//
// On a grid, RR ignores distances: its tight geo-indistinguishability
// epsilon is eps divided by the smallest distance between two cells, which
// is 1, so RR's parameter is also its tight epsilon.
type RR struct{}

// Info implements Mechanism.
func (RR) Info() Info {
	return Info{
		Name: "rr", Param: "eps", Min: 1e-6, Max: 700, SameGrid: true,
		Reference: "Warner 1965; Kairouz, Oh, Viswanath, NeurIPS 2014 (k-RR)",
	}
}

// Claim implements Mechanism: the ratio e^eps appears between adjacent
// cells (distance 1) and between no closer pair, so TightEps = eps exactly
// (0 on a one-cell grid).
func (RR) Claim(in, out kernels.Grid, eps float64) Claim {
	if in.Len() < 2 {
		return Claim{Note: "one cell: constant channel"}
	}
	return Claim{Lo: eps, Hi: eps, Note: "ratio e^eps at distance 1"}
}

// RRProbabilities returns the probability p of reporting the true cell and
// q of reporting any given other cell, for k cells. It is written in terms
// of e^-eps so that large eps does not overflow.
func RRProbabilities(k int, eps float64) (p, q float64) {
	if k <= 1 {
		return 1, 0
	}
	e := math.Exp(-eps)
	den := 1 + float64(k-1)*e
	return 1 / den, e / den
}

// Channel implements Mechanism; out must equal in, prior is ignored.
func (m RR) Channel(in, out kernels.Grid, _ []float64, eps float64) (*kernels.Channel, error) {
	return checkedBuild(m, in, out, eps, rrChannel)
}

// rrChannel is the dense RR channel on in (= out) at eps.
func rrChannel(in, out kernels.Grid, eps float64) (*kernels.Channel, error) {
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, err
	}
	k := in.Len()
	p, q := RRProbabilities(k, eps)
	for x := 0; x < k; x++ {
		row := ch.Row(x)
		for y := range row {
			row[y] = q
		}
		row[x] = p
	}
	return ch, nil
}
