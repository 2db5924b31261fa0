package mechanism

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"privic/kernels"
)

// PlanarOp is the snapped planar Laplace channel (PlanarLaplace) as a
// kernels.ChannelOp, without its |In| x |Out| matrix.
//
// Structure: an entry is the probability that the noisy point falls in
// the report cell's region, a product of a row interval and a column
// interval relative to the true cell. Along each axis the relative
// interval depends only on the offset between the two cells for interior
// report cells (a unit interval: the channel is translation invariant
// there), and on the true cell alone for the first and last report
// row or column (a half-line to the grid's edge). So every entry is one
// of a table V[row interval][column interval] of about 9 m values for an
// m-cell grid (the translation-invariant interior, and the border strips
// that are translation invariant along the border), computed once by
// PlanarLaplace's quadrature, with the same memoised values as its dense
// Channel, bit for bit. Products with C and C^T are exact direct sums
// over that table, O(|In| |Out|) time and O(m) memory, the interior
// columns of a report row being one contiguous stretch of a row of V;
// draws compute the true cell's row (O(|Out|)) and draw from it as a
// dense channel does. Distortion and mutual information are O(|In|
// |Out|); the tight epsilon is a brute force over pairs of inputs,
// O(|In|^2 |Out|), done only up to planarTightEpsMax operations.
type PlanarOp struct {
	In, Out kernels.Grid
	Eps     float64

	// Row intervals: unit ones by offset (rid = offset - rowOff0 for
	// interior report rows), then the half-lines of the first report row
	// per input row, then those of the last report row per input row
	// (or one whole line when Out has one row). ridOf[i*Out.Rows+j] is
	// the interval of input row i and report row j. Columns alike.
	ridOf, cidOf []int32
	nCid         int
	colOff0      int // the smallest offset of an interior report column
	interiorCols int // report columns strictly between the first and the last
	lowCid       int // first cid of the first report column's half-lines (the whole line if one column)
	highCid      int // first cid of the last report column's half-lines (-1: none)
	v, lv        []float64
}

// planarTightEpsMax bounds the operations of PlanarOp.TightEpsilon's
// brute force (a few seconds).
const planarTightEpsMax = 2e9

// ErrIntractable is wrapped by the errors of quantities a structured
// channel cannot give at its size in reasonable time or memory (an exact
// brute force, a dense-by-nature metric): experiments record them as
// refused, not failed.
var ErrIntractable = errors.New("intractable at this size")

// axis describes one axis of the relative intervals: for every input
// coordinate i and report coordinate j, the interval id.
type axis struct {
	ids      []int32 // ids[i*nOut+j]
	lo, hi   []float64
	off0     int // smallest interior offset
	interior int // interior report coordinates
	low      int // first id of the first report coordinate's half-lines (the whole line if nOut is 1)
	high     int // first id of the last one's, -1 if none
}

// newAxis lays out the intervals of nIn input coordinates starting at
// in0 against nOut report coordinates starting at out0.
func newAxis(in0, nIn, out0, nOut int) axis {
	a := axis{ids: make([]int32, nIn*nOut), high: -1}
	lo, hi := out0, out0+nOut-1
	interior := max(nOut-2, 0)
	a.interior = interior
	a.off0 = out0 + 1 - (in0 + nIn - 1)
	nUnit := 0
	if interior > 0 {
		nUnit = interior + nIn - 1
	}
	for k := range nUnit {
		o := float64(a.off0 + k)
		a.lo, a.hi = append(a.lo, o-0.5), append(a.hi, o+0.5)
	}
	next := nUnit
	if nOut == 1 {
		a.low = next
		a.lo, a.hi = append(a.lo, math.Inf(-1)), append(a.hi, math.Inf(1))
	} else {
		a.low, a.high = next, next+nIn
		for i := range nIn {
			x := float64(in0 + i)
			a.lo, a.hi = append(a.lo, math.Inf(-1)), append(a.hi, (float64(lo)+0.5)-x)
		}
		for i := range nIn {
			x := float64(in0 + i)
			a.lo, a.hi = append(a.lo, (float64(hi)-0.5)-x), append(a.hi, math.Inf(1))
		}
	}
	for i := range nIn {
		for j := range nOut {
			var id int
			switch {
			case nOut == 1:
				id = a.low
			case j == 0:
				id = a.low + i
			case j == nOut-1:
				id = a.high + i
			default:
				id = (out0 + j) - (in0 + i) - a.off0
			}
			a.ids[i*nOut+j] = int32(id)
		}
	}
	return a
}

// Op builds the snapped planar Laplace channel from in to out as an
// operator (see PlanarOp); the prior is ignored.
func (m PlanarLaplace) Op(in, out kernels.Grid, _ []float64, eps float64) (kernels.ChannelOp, error) {
	return m.NewOp(in, out, eps)
}

// NewOp is Op with its concrete type.
func (m PlanarLaplace) NewOp(in, out kernels.Grid, eps float64) (*PlanarOp, error) {
	pi, err := m.integrator(in, out, eps)
	if err != nil {
		return nil, err
	}
	rows := newAxis(in.Row0, in.Rows, out.Row0, out.Rows)
	cols := newAxis(in.Col0, in.Cols, out.Col0, out.Cols)
	nr, nc := len(rows.lo), len(cols.lo)
	op := &PlanarOp{In: in, Out: out, Eps: eps, ridOf: rows.ids, cidOf: cols.ids, nCid: nc,
		colOff0: cols.off0, interiorCols: cols.interior, lowCid: cols.low, highCid: cols.high,
		v: make([]float64, nr*nc), lv: make([]float64, nr*nc)}
	// Every pair of a row and a column interval is some entry's: a row
	// interval (an offset, or an end of the report rows for an input row)
	// meets every report column.
	for r := range nr {
		for c := range nc {
			v, err := pi.region(rows.lo[r], rows.hi[r], cols.lo[c], cols.hi[c])
			if err != nil {
				return nil, fmt.Errorf("%s: eps=%v: %w", m.Info().Name, eps, err)
			}
			op.v[r*nc+c] = v
			op.lv[r*nc+c] = math.Log(v)
		}
	}
	return op, nil
}

// integrator checks the arguments and returns the quadrature of m's
// entries at eps.
func (m PlanarLaplace) integrator(in, out kernels.Grid, eps float64) (*planarIntegrator, error) {
	info := m.Info()
	if err := checkArgs(info, in, out, eps); err != nil {
		return nil, err
	}
	if m.Point != UniformInCell && m.Point != CellCentre {
		return nil, fmt.Errorf("%s: unknown point model %d", info.Name, int(m.Point))
	}
	tol := m.RelTol
	if !(tol >= 0 && tol < 1) {
		return nil, fmt.Errorf("%s: RelTol = %v: must be in (0, 1)", info.Name, m.RelTol)
	}
	if tol == 0 {
		tol = 1e-12
	}
	return &planarIntegrator{eps: eps, q: newAdaptive(tol), uniform: m.Point == UniformInCell, memo: map[[4]float64]float64{}, short: newGaussRule(8)}, nil
}

// Grids implements kernels.ChannelOp.
func (p *PlanarOp) Grids() (in, out kernels.Grid) { return p.In, p.Out }

// rowOf returns the table row of input row i and report row j.
func (p *PlanarOp) rowOf(i, j int) []float64 {
	r := int(p.ridOf[i*p.Out.Rows+j])
	return p.v[r*p.nCid : (r+1)*p.nCid]
}

// interiorStart is where the interior report columns of input column ic
// begin in a table row.
func (p *PlanarOp) interiorStart(ic int) int {
	return (p.Out.Col0 + 1) - (p.In.Col0 + ic) - p.colOff0
}

// startProduct begins the product dst = C v (or C^T v) named name: it
// checks that dst has nDst entries and v nV finite non-negative ones, and
// zeroes dst for the product to accumulate into.
func startProduct(name string, dst, v []float64, nDst, nV int) error {
	if len(dst) != nDst || len(v) != nV {
		return fmt.Errorf("%s: %d and %d entries, want %d and %d", name, len(dst), len(v), nDst, nV)
	}
	for i, x := range v {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("%s: input[%d] = %v: entries must be finite and >= 0", name, i, x)
		}
	}
	clear(dst)
	return nil
}

// Apply implements kernels.ChannelOp: dst = C v, summed directly.
func (p *PlanarOp) Apply(dst, v []float64) error {
	if err := startProduct("apply", dst, v, p.In.Len(), p.Out.Len()); err != nil {
		return err
	}
	Ci, Co, ni := p.In.Cols, p.Out.Cols, p.interiorCols
	// Report rows where v is zero add nothing (a column, C e_y, touches
	// one).
	used := make([]bool, p.Out.Rows)
	for j := range used {
		for _, x := range v[j*Co : (j+1)*Co] {
			if x != 0 {
				used[j] = true
				break
			}
		}
	}
	for i := range p.In.Rows {
		d := dst[i*Ci : (i+1)*Ci]
		for j := range p.Out.Rows {
			if !used[j] {
				continue
			}
			vr := v[j*Co : (j+1)*Co]
			t := p.rowOf(i, j)
			for ic := range Ci {
				s := 0.0
				if ni > 0 {
					k := p.interiorStart(ic)
					s = dot(t[k:k+ni], vr[1:1+ni])
				}
				if Co == 1 {
					s += t[p.lowCid] * vr[0]
				} else {
					s += t[p.lowCid+ic]*vr[0] + t[p.highCid+ic]*vr[Co-1]
				}
				d[ic] += s
			}
		}
	}
	return nil
}

// ApplyT implements kernels.ChannelOp: dst = C^T u, summed directly.
func (p *PlanarOp) ApplyT(dst, u []float64) error {
	if err := startProduct("apply transpose", dst, u, p.Out.Len(), p.In.Len()); err != nil {
		return err
	}
	Ci, Co, ni := p.In.Cols, p.Out.Cols, p.interiorCols
	for i := range p.In.Rows {
		ur := u[i*Ci : (i+1)*Ci]
		for j := range p.Out.Rows {
			d := dst[j*Co : (j+1)*Co]
			t := p.rowOf(i, j)
			for ic, w := range ur {
				if w == 0 {
					continue
				}
				if ni > 0 {
					k := p.interiorStart(ic)
					axpy(w, t[k:k+ni], d[1:1+ni])
				}
				if Co == 1 {
					d[0] += w * t[p.lowCid]
				} else {
					d[0] += w * t[p.lowCid+ic]
					d[Co-1] += w * t[p.highCid+ic]
				}
			}
		}
	}
	return nil
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s0, s1, s2, s3 := 0.0, 0.0, 0.0, 0.0
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpy(w float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += w * v
	}
}

// Row sets dst to row x of the channel.
func (p *PlanarOp) Row(dst []float64, x int) { p.row(dst, p.v, x) }

// row sets dst to row x of the table t (p.v, or p.lv for ln C).
func (p *PlanarOp) row(dst, t []float64, x int) {
	i, ic := p.In.Cell(x)
	Co, ni := p.Out.Cols, p.interiorCols
	for j := range p.Out.Rows {
		r := int(p.ridOf[i*p.Out.Rows+j])
		tr := t[r*p.nCid : (r+1)*p.nCid]
		d := dst[j*Co : (j+1)*Co]
		if ni > 0 {
			k := p.interiorStart(ic)
			copy(d[1:1+ni], tr[k:k+ni])
		}
		if Co == 1 {
			d[0] = tr[p.lowCid]
		} else {
			d[0], d[Co-1] = tr[p.lowCid+ic], tr[p.highCid+ic]
		}
	}
}

// Column sets dst (over the input grid) to column y of the channel,
// C[x,y] for every input x, in O(|In|).
func (p *PlanarOp) Column(dst []float64, y int) {
	j, jc := p.Out.Cell(y)
	Ci, Co := p.In.Cols, p.Out.Cols
	for i := range p.In.Rows {
		r := int(p.ridOf[i*p.Out.Rows+j])
		tr := p.v[r*p.nCid : (r+1)*p.nCid]
		d := dst[i*Ci : (i+1)*Ci]
		for ic := range d {
			d[ic] = tr[p.cidOf[ic*Co+jc]]
		}
	}
}

// Dense materialises the channel (|In| |Out| entries): the entries of
// PlanarLaplace.Channel, bit for bit.
func (p *PlanarOp) Dense() (*kernels.Channel, error) {
	ch, err := kernels.NewChannel(p.In, p.Out)
	if err != nil {
		return nil, err
	}
	for x := range p.In.Len() {
		p.Row(ch.Row(x), x)
	}
	return ch, nil
}

// Sample implements kernels.ChannelOp: the row of x, then the draws of a
// dense channel from it (the same as kernels.Channel.Sample on the
// materialised channel, for the same random source).
func (p *PlanarOp) Sample(rng *rand.Rand, x, k int, out []int) error {
	if x < 0 || x >= p.In.Len() {
		return fmt.Errorf("sample: input cell %d: want 0 to %d", x, p.In.Len()-1)
	}
	if len(out) != p.Out.Len() {
		return fmt.Errorf("sample: out has %d entries, want %d", len(out), p.Out.Len())
	}
	row := make([]float64, p.Out.Len())
	p.Row(row, x)
	one := &kernels.Channel{In: kernels.Grid{Rows: 1, Cols: 1}, Out: p.Out, P: row}
	return one.Sample(rng, 0, k, out)
}

// TightEpsilon implements kernels.ChannelOp: the brute force of
// kernels.Channel.TightEpsilon on the materialised channel; above planarTightEpsMax
// operations the error wraps ErrIntractable (the claim TightEps <= eps
// still holds).
func (p *PlanarOp) TightEpsilon() (float64, error) {
	if err := OpTightEpsLimit(PlanarLaplace{}, p.In, p.Out); err != nil {
		return 0, fmt.Errorf("%w (it is at most eps = %v)", err, p.Eps)
	}
	ch, err := p.Dense()
	if err != nil {
		return 0, err
	}
	return ch.TightEpsilon()
}

// OpTightEpsLimit says, before any channel is built, whether the tight
// epsilon of the operator m builds from in to out is refused at that
// size: an error wrapping ErrIntractable (the snapped planar Laplace's
// brute force above about 2e9 operations, some 1,600 cells on a grid of
// its own size), or nil. Callers report it before a run (an eps
// calibration of such an operator is refused).
func OpTightEpsLimit(m Operator, in, out kernels.Grid) error {
	if _, ok := m.(PlanarLaplace); !ok {
		return nil
	}
	a, n := in.Len(), out.Len()
	if ops := float64(a) * float64(a) * float64(n) / 2; ops > planarTightEpsMax {
		return fmt.Errorf("tight epsilon of the snapped planar Laplace on %v -> %v: a brute force over %.3g pairs of inputs and reports: %w",
			in, out, ops, ErrIntractable)
	}
	return nil
}

// AvgDistortion is sum_x prior(x) sum_y C[x,y] d(x,y), in cells.
func (p *PlanarOp) AvgDistortion(prior []float64) (float64, error) {
	if err := checkPrior("planar distortion", p.In, prior); err != nil {
		return 0, err
	}
	row := make([]float64, p.Out.Len())
	total := 0.0
	for x, px := range prior {
		if px == 0 {
			continue
		}
		p.Row(row, x)
		s := 0.0
		for y, c := range row {
			s += c * kernels.Dist(p.In, x, p.Out, y)
		}
		total += px * s
	}
	return total, nil
}

// MutualInformation is sum_x prior(x) sum_y C[x,y] ln(C[x,y]/q(y)) in
// nats, q = prior C.
func (p *PlanarOp) MutualInformation(prior []float64) (float64, error) {
	if err := checkPrior("planar mutual information", p.In, prior); err != nil {
		return 0, err
	}
	q := make([]float64, p.Out.Len())
	if err := p.ApplyT(q, prior); err != nil {
		return 0, err
	}
	lq := make([]float64, len(q))
	for y, v := range q {
		lq[y] = math.Log(v)
	}
	row, lrow := make([]float64, len(q)), make([]float64, len(q))
	mi := 0.0
	for x, px := range prior {
		if px == 0 {
			continue
		}
		p.Row(row, x)
		p.row(lrow, p.lv, x)
		s := 0.0
		for y, c := range row {
			if c > 0 {
				s += c * (lrow[y] - lq[y])
			}
		}
		mi += px * s
	}
	return max(mi, 0), nil
}
