package island

import (
	"fmt"
	"math"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/verdict"
	"privic/kernels"
)

// LocStats measures how a mechanism treats one true location x: where its
// reports land and how well a Bayesian adversary who knows the prior
// identifies x from them. These are the numbers behind the paper's
// qualitative statements about Fig. 2 and Fig. 11.
type LocStats struct {
	// PDeserted is the probability that the report lands on a deserted
	// cell (Measures.Deserted: less prior mass within a radius in metres
	// than a uniform prior puts there, or outside the base grid).
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
	// PNear is the probability of a report within one paper cell
	// (verdict.PaperCellM metres) of x: NaN when not measured.
	PNear float64
}

// StatsHeader are the table columns of LocStats, in the order they are
// written.
func StatsHeader() []string {
	return []string{
		"p_deserted", "p_outside_grid", "p_island_block", "p_at", "p_within1", "p_within2",
		"expected_prior_mass", "expected_distance", "mode_row", "mode_col", "mode_distance",
		"map_identification", "expected_posterior",
	}
}

// Row gives s's StatsHeader columns, a part of a table row.
func (s LocStats) Row() harness.Row {
	return harness.Row{"p_deserted": s.PDeserted, "p_outside_grid": s.POutside, "p_island_block": s.PBlock, "p_at": s.PAt,
		"p_within1": s.PWithin1, "p_within2": s.PWithin2, "expected_prior_mass": s.ExpPriorMass, "expected_distance": s.ExpDistance,
		"mode_row": s.ModeRow, "mode_col": s.ModeCol, "mode_distance": s.ModeDistance, "map_identification": s.MAPIdent,
		"expected_posterior": s.ExpPosterior}
}

// MetresHeader are the columns that follow StatsHeader's in the tables:
// the distances of LocStats in metres (empty when the dataset's cell
// size is unknown) and PNear, the probability of a report within one
// paper cell of metres.
func MetresHeader() []string {
	return []string{"expected_distance_m", "mode_distance_m", NearColumn}
}

// NearColumn is the column of LocStats.PNear.
var NearColumn = fmt.Sprintf("p_within_%dm", verdict.PaperCellM)

// Metres gives s's distances in metres on ds, and PNear (MetresHeader's
// columns), a part of a table row.
func (s LocStats) Metres(ds *datasets.Dataset) harness.Row {
	return harness.Row{"expected_distance_m": param.Metres(ds, s.ExpDistance), "mode_distance_m": param.Metres(ds, s.ModeDistance),
		NearColumn: s.PNear}
}

// ReadStats reads the StatsHeader columns of row i.
func ReadStats(rd *harness.Reader, i int) LocStats {
	v := make([]float64, 0, 13)
	for _, name := range StatsHeader() {
		v = append(v, rd.Float(i, name))
	}
	if rd.Err() != nil {
		return LocStats{}
	}
	return LocStats{
		PDeserted: v[0], POutside: v[1], PBlock: v[2], PAt: v[3], PWithin1: v[4], PWithin2: v[5],
		ExpPriorMass: v[6], ExpDistance: v[7], ModeRow: int(v[8]), ModeCol: int(v[9]), ModeDistance: v[10],
		MAPIdent: v[11], ExpPosterior: v[12], PNear: rd.Float(i, NearColumn),
	}
}

// Measures are what LocStats measures in metres, on the output grid of
// one channel.
type Measures struct {
	// Deserted marks the deserted cells of the output grid (Deserted);
	// nil: a cell is deserted when it has no prior mass or lies outside
	// the input grid.
	Deserted []bool
	// NearCells is the radius of PNear in cells (0: not measured, NaN).
	NearCells float64
}

// Measures are the Measures of s's dataset and island prior on the
// output grid out: deserted cells by the prior mass within desertM
// metres, PNear within one paper cell (verdict.PaperCellM metres; cells
// of a dataset without a size taken as one paper cell).
func (s *Setup) Measures(out kernels.Grid, desertM float64) (Measures, error) {
	side, _ := verdict.CellM(s.DS)
	d, err := DesertedOn(s.DS, out, s.Prior, side, desertM)
	if err != nil {
		return Measures{}, err
	}
	return Measures{Deserted: d, NearCells: verdict.Cells(s.DS, verdict.PaperCellM)}, nil
}

// View is a channel prepared for LocStats under one prior: its output
// marginal and the MAP adversary's guess for every output, shared by the
// locations measured on it. A channel the kernels use in dense form
// (kernels.DenseOf: any dense channel, or a structured one on a grid
// below kernels.DenseOpCells cells) is read from its matrix; a structured
// operator on a larger grid is never materialised: its rows come from
// C^T e_x and the guesses from kernels.MAPGuess.
type View struct {
	op    kernels.ChannelOp
	dense *kernels.Channel // nil: use op
	in    kernels.Grid
	out   kernels.Grid
	prior []float64
	q     []float64
	arg   []int
	ms    Measures
}

// NewView prepares op for LocStats under prior (over op's input grid),
// with the measures ms (over op's output grid).
func NewView(prior []float64, op kernels.ChannelOp, ms Measures) (*View, error) {
	if op == nil {
		return nil, fmt.Errorf("channel is nil")
	}
	in, out := op.Grids()
	if len(prior) != in.Len() {
		return nil, fmt.Errorf("prior has %d cells, channel input %d", len(prior), in.Len())
	}
	if ms.Deserted != nil && len(ms.Deserted) != out.Len() {
		return nil, fmt.Errorf("deserted mask has %d cells, channel output %d", len(ms.Deserted), out.Len())
	}
	v := &View{op: op, dense: kernels.DenseOf(op), in: in, out: out, prior: prior, ms: ms}
	if v.dense != nil {
		v.q, v.arg = mapGuess(prior, v.dense)
		return v, nil
	}
	var err error
	if v.q, v.arg, err = kernels.MAPGuess(prior, op); err != nil {
		return nil, err
	}
	return v, nil
}

// Out is the channel's output grid.
func (v *View) Out() kernels.Grid { return v.out }

// Row returns row x of the channel (a new slice for operators; the
// matrix's own row for dense channels, not to be modified).
func (v *View) Row(x int) ([]float64, error) {
	if x < 0 || x >= v.in.Len() {
		return nil, fmt.Errorf("location %d outside the %v input grid", x, v.in)
	}
	if v.dense != nil {
		return v.dense.Row(x), nil
	}
	e := make([]float64, v.in.Len())
	e[x] = 1
	row := make([]float64, v.out.Len())
	if err := v.op.ApplyT(row, e); err != nil {
		return nil, fmt.Errorf("row %d: %w", x, err)
	}
	return row, nil
}

// Stats computes LocStats for true input x of the view's channel under
// its prior. block marks cells of the input grid in the island's zeroed
// block (nil for none).
func (v *View) Stats(x int, block []bool) (LocStats, error) {
	in, out, prior := v.in, v.out, v.prior
	if x < 0 || x >= in.Len() {
		return LocStats{}, fmt.Errorf("location %d outside the %v input grid", x, in)
	}
	if block != nil && len(block) != in.Len() {
		return LocStats{}, fmt.Errorf("block mask has %d cells, grid %d", len(block), in.Len())
	}
	q, arg := v.q, v.arg
	var s LocStats
	row, err := v.Row(x)
	if err != nil {
		return LocStats{}, err
	}
	near := v.ms.NearCells
	if near <= 0 {
		s.PNear = math.NaN()
	}
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
		s.tally(c, d, mass, v.ms.Deserted != nil && v.ms.Deserted[j] || v.ms.Deserted == nil && mass == 0,
			base >= 0 && block != nil && block[base], near)
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
		return LocStats{}, fmt.Errorf("location statistics of cell %d are NaN", x)
	}
	return s, nil
}

// tally adds a report of probability c at distance d from the true cell,
// on a cell of prior mass mass, deserted or not, in the island block or
// not, to the statistics that sum over reports (near: PNear's radius in
// cells, 0 for none).
func (s *LocStats) tally(c, d, mass float64, deserted, inBlock bool, near float64) {
	if deserted {
		s.PDeserted += c
	}
	if near > 0 && d <= near+1e-9 {
		s.PNear += c
	}
	if inBlock {
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
}

// mapGuess returns the output marginal q(y) = sum_x prior(x) C[x,y] and,
// for the MAP adversary, the best input for each output. Ties go to the
// lowest index: only outputs nobody reaches (q = 0) tie in practice, and
// those have no probability from x either.
func mapGuess(prior []float64, ch *kernels.Channel) (q []float64, arg []int) {
	m, n := ch.In.Len(), ch.Out.Len()
	q = make([]float64, n)
	best := make([]float64, n)
	arg = make([]int, n)
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
	return q, arg
}

// CellProb is the probability of one report cell (absolute row, col).
type CellProb struct {
	Row, Col int
	P        float64
}

// GridValues scatters cell probabilities onto g, returning the values and
// the mass that falls outside g.
func GridValues(g kernels.Grid, cells []CellProb) ([]float64, float64) {
	v := make([]float64, g.Len())
	outside := 0.0
	for _, c := range cells {
		if i := g.IndexOf(c.Row, c.Col); i >= 0 {
			v[i] += c.P
		} else {
			outside += c.P
		}
	}
	return v, outside
}

// UniformStats are the LocStats of x under the uniform-report baseline,
// the channel that reports every cell of in with probability 1/m
// whatever the truth: it reveals nothing, so the adversary's posterior is
// the prior and its guess the most likely cell of the prior (the lowest
// index among ties), and the mode is the first cell. It is computed in
// closed form, on the input grid itself, with the measures ms and the
// island block (nil for none) as in View.Stats.
func UniformStats(in kernels.Grid, prior []float64, x int, block []bool, ms Measures) (LocStats, error) {
	m := in.Len()
	if x < 0 || x >= m || len(prior) != m {
		return LocStats{}, fmt.Errorf("uniform baseline: location %d, prior of %d cells on the %v grid", x, len(prior), in)
	}
	if ms.Deserted != nil && len(ms.Deserted) != m {
		return LocStats{}, fmt.Errorf("uniform baseline: deserted mask has %d cells, grid %d", len(ms.Deserted), m)
	}
	c := 1 / float64(m)
	s := LocStats{ExpPosterior: prior[x], ModeDistance: kernels.Dist(in, x, in, 0)}
	s.ModeRow, s.ModeCol = in.Abs(0)
	if ms.NearCells <= 0 {
		s.PNear = math.NaN()
	}
	best := 0
	for j := 0; j < m; j++ {
		s.tally(c, kernels.Dist(in, x, in, j), prior[j], ms.Deserted != nil && ms.Deserted[j] || ms.Deserted == nil && prior[j] == 0,
			block != nil && block[j], ms.NearCells)
		if prior[j] > prior[best] {
			best = j
		}
	}
	if best == x {
		s.MAPIdent = 1
	}
	return s, nil
}
