package paper

import (
	"fmt"
	"math"

	"privic/kernels"
)

// locStats measures how a mechanism treats one true location x: where its
// reports land and how well a Bayesian adversary who knows the prior
// identifies x from them. These are the numbers behind the paper's
// qualitative statements about Fig. 2 and Fig. 11.
type locStats struct {
	// PDeserted is the probability that the report lands on a cell where
	// nobody is (prior mass 0, or outside the base grid).
	PDeserted float64
	// POutside is the probability of a report outside the base grid (LAP
	// over the widened output grid).
	POutside float64
	// PBlock is the probability of a report inside the island's zeroed
	// block (cells within the island radius of A, A excluded).
	PBlock float64
	// PAt, PWithin1, PWithin2: report exactly at x, within distance 1, 2.
	PAt, PWithin1, PWithin2 float64
	// ExpPriorMass is the expected prior mass of the reported cell: the
	// paper's "camouflage amidst the crowd" in one number.
	ExpPriorMass float64
	// ExpDistance is the expected distance between x and the report (the
	// user's loss of QoS), in cells.
	ExpDistance float64
	// Mode is the most likely report (absolute row, col) and its distance
	// from x.
	ModeRow, ModeCol int
	ModeDistance     float64
	// MAPIdent is the probability that the Bayes-optimal (maximum a
	// posteriori) guess of the true cell, made from the report with the
	// prior, is x: how often a report of x identifies x.
	MAPIdent float64
	// ExpPosterior is the expected posterior probability of x given the
	// report, E[P(x | Y)] with Y drawn from x's report distribution.
	ExpPosterior float64
}

// locationStats computes locStats for true input x of ch under prior (over
// ch.In). block marks cells of ch.In in the island's zeroed block (nil for
// none).
func locationStats(prior []float64, ch *kernels.Channel, x int, block []bool) (locStats, error) {
	in, out := ch.In, ch.Out
	if len(prior) != in.Len() {
		return locStats{}, fmt.Errorf("prior has %d cells, channel input %d", len(prior), in.Len())
	}
	if x < 0 || x >= in.Len() {
		return locStats{}, fmt.Errorf("location %d outside the %v input grid", x, in)
	}
	if block != nil && len(block) != in.Len() {
		return locStats{}, fmt.Errorf("block mask has %d cells, grid %d", len(block), in.Len())
	}
	m, n := in.Len(), out.Len()
	// Output marginal q(y) = sum_x prior(x) C[x,y] and, for the MAP
	// adversary, the best input for each output. Ties go to the lowest
	// index: only outputs nobody reaches (q = 0) tie in practice, and
	// those have no probability from x either.
	q := make([]float64, n)
	best := make([]float64, n)
	arg := make([]int, n)
	for j := range arg {
		arg[j] = -1
		best[j] = -1
	}
	for i := 0; i < m; i++ {
		pi := prior[i]
		row := ch.P[i*n : (i+1)*n]
		for j, c := range row {
			v := pi * c
			q[j] += v
			if v > best[j] {
				best[j], arg[j] = v, i
			}
		}
	}
	var s locStats
	row := ch.P[x*n : (x+1)*n]
	modeP := -1.0
	for j, c := range row {
		ar, ac := out.Abs(j)
		d := kernels.Dist(in, x, out, j)
		base := in.IndexOf(ar, ac)
		mass := 0.0
		if base >= 0 {
			mass = prior[base]
		} else {
			s.POutside += c
		}
		if mass == 0 {
			s.PDeserted += c
		}
		if base >= 0 && block != nil && block[base] {
			s.PBlock += c
		}
		if d == 0 {
			s.PAt += c
		}
		if d <= 1 {
			s.PWithin1 += c
		}
		if d <= 2 {
			s.PWithin2 += c
		}
		s.ExpPriorMass += c * mass
		s.ExpDistance += c * d
		if c > modeP {
			modeP, s.ModeRow, s.ModeCol, s.ModeDistance = c, ar, ac, d
		}
		if arg[j] == x {
			s.MAPIdent += c
		}
		if q[j] > 0 {
			s.ExpPosterior += c * prior[x] * c / q[j]
		}
	}
	if math.IsNaN(s.ExpPosterior) || math.IsNaN(s.ExpPriorMass) {
		return locStats{}, fmt.Errorf("location statistics of cell %d are NaN", x)
	}
	return s, nil
}

// locStatsHeader and row lay locStats out as table columns.
var locStatsHeader = []string{
	"p_deserted", "p_outside_grid", "p_island_block", "p_at", "p_within1", "p_within2",
	"expected_prior_mass", "expected_distance", "mode_row", "mode_col", "mode_distance",
	"map_identification", "expected_posterior",
}

func (s locStats) row() []string {
	return []string{
		ff(s.PDeserted), ff(s.POutside), ff(s.PBlock), ff(s.PAt), ff(s.PWithin1), ff(s.PWithin2),
		ff(s.ExpPriorMass), ff(s.ExpDistance), itoa(s.ModeRow), itoa(s.ModeCol), ff(s.ModeDistance),
		ff(s.MAPIdent), ff(s.ExpPosterior),
	}
}
