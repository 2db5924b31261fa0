package kernels

import (
	"fmt"
	"math"
)

// TightEps is the smallest eps for which ch is eps-geo-indistinguishable
// (eps-d-private with the Euclidean distance between input cells):
//
//	max over outputs y and inputs x != x' of |ln C[x,y] - ln C[x',y]| / d(x,x').
//
// This is the brute force, O(|Y| |X|^2), for any channel. Zeros: an output
// y that no input can produce (whole column zero) is skipped; if C[x,y] = 0
// but C[x',y] > 0 the ratio is unbounded and TightEps is +Inf. A channel
// with one input cell has TightEps 0. For BA channels use BAChannel.TightEps,
// the O(|X|^2) form.
func TightEps(ch *Channel) (float64, error) {
	if err := checkChannel(ch); err != nil {
		return 0, fmt.Errorf("tight eps: %w", err)
	}
	in := ch.In
	m, n := in.Len(), ch.Out.Len()
	inv := invDistTable(in)
	logs := make([]float64, m)
	best := 0.0
	for y := 0; y < n; y++ {
		zeros, pos := 0, 0
		for x := 0; x < m; x++ {
			v := ch.P[x*n+y]
			if v == 0 {
				zeros++
			} else {
				pos++
			}
			logs[x] = log(v)
		}
		if pos == 0 {
			continue
		}
		if zeros > 0 && m > 1 {
			return math.Inf(1), nil
		}
		best = max(best, maxLogRatio(in, inv, logs))
	}
	return best, nil
}

// maxLogRatio returns max over cells x != x' of g of
// |l[x] - l[x']| / d(x,x'), inv being invDistTable(g).
func maxLogRatio(g Grid, inv, l []float64) float64 {
	R, C := g.Rows, g.Cols
	l = l[:R*C]
	best := 0.0
	for x, lx := range l {
		xr, xc := x/C, x%C
		// Pairs (x, x2) with x2 > x: the rest of row xr, then rows below.
		for r2 := xr; r2 < R; r2++ {
			irow := inv[(r2-xr)*C : (r2-xr+1)*C]
			c0 := 0
			if r2 == xr {
				c0 = xc + 1
			}
			lrow := l[r2*C : (r2+1)*C]
			// Columns left of xc, then from xc on, so the offset needs
			// no abs; a plain comparison (no NaN can occur) instead of
			// max keeps the loop branch-light.
			for c2 := c0; c2 < xc; c2++ {
				if v := math.Abs(lx-lrow[c2]) * irow[xc-c2]; v > best {
					best = v
				}
			}
			for c2 := max(c0, xc); c2 < C; c2++ {
				if v := math.Abs(lx-lrow[c2]) * irow[c2-xc]; v > best {
					best = v
				}
			}
		}
	}
	return best
}

// invDistTable returns 1/hypot(dr, dc) indexed by dr*g.Cols+dc (entry 0
// unused).
func invDistTable(g Grid) []float64 {
	t := make([]float64, g.Rows*g.Cols)
	for dr := 0; dr < g.Rows; dr++ {
		for dc := 0; dc < g.Cols; dc++ {
			if dr != 0 || dc != 0 {
				t[dr*g.Cols+dc] = 1 / math.Hypot(float64(dr), float64(dc))
			}
		}
	}
	return t
}

// TightEps is the tight epsilon of the BA channel in O(m^2):
//
//	beta + max over x != x' of |ln Z(x) - ln Z(x')| / d(x,x').
//
// Proof. Here C[x,y] = c(y) e^{-beta d(x,y)} / Z(x) with c(y) > 0, so c
// cancels in the ratio:
//
//	ln C[x,y] - ln C[x',y] = beta (d(x',y) - d(x,y)) + (ln Z(x') - ln Z(x)).
//
// Upper bound: by the triangle inequality |d(x',y) - d(x,y)| <= d(x,x'),
// so |ln C[x,y] - ln C[x',y]| <= beta d(x,x') + |ln Z(x) - ln Z(x')| for
// every y. Attained: order the pair so that ln Z(x') >= ln Z(x) and take
// y = x (an output, since the output grid is the input grid): the first
// term is beta d(x,x') >= 0 and the second is |ln Z(x) - ln Z(x')| >= 0, so
// the bound holds with equality. Dividing by d(x,x') and maximising over
// pairs gives the formula. Precondition: the output domain contains the
// inputs and c(y) > 0 at y = x, x' (true for BA from the uniform start,
// where c stays positive in exact arithmetic; if some c(y) is zero the
// formula is still an upper bound). It is also <= 2 beta (the paper's
// Remark 2.3): d(x,y) <= d(x',y) + d(x,x') gives
// Z(x) >= e^{-beta d(x,x')} Z(x'), so |ln Z(x) - ln Z(x')| <= beta d(x,x').
//
// On a one-cell grid there is no pair and TightEps is 0, as for the brute
// force. It uses ln Z as iterated, so it is finite even where the materialised
// channel has entries that underflowed to zero (where the brute-force
// TightEps of Channel() would report +Inf).
func (b *BAChannel) TightEps() float64 {
	if b.Grid.Len() == 1 {
		return 0 // no pair x != x', as in the brute force
	}
	return b.Beta + maxLogRatio(b.Grid, invDistTable(b.Grid), b.LogZ())
}

// TightEpsExp is the tight epsilon of a channel that the caller knows to
// have the form C[x,y] = c(y) e^{-k d(x,y)} / Z(x) with c > 0 (BA channels
// with k = beta, LAP channels with k = eps and c = 1), in O(|X| |Y|)
// instead of the brute force's O(|X|^2 |Y|). When ch's output grid
// contains its input grid the identity proven at BAChannel.TightEps gives
// k + max over x != x' of |ln Z(x) - ln Z(x')| / d(x,x'), and only the
// differences of ln Z matter: for any fixed output y0,
// ln Z(x) = ln c(y0) - k d(x,y0) - ln C[x,y0], where ln c(y0) is the same
// for every x and cancels. y0 is the output cell nearest the centre of the
// input grid, so that its column is the last to underflow. Where the
// identity's preconditions fail (output grid not containing the inputs, or
// an entry of column y0 that underflowed to 0) it returns the brute force
// TightEps. It does not check that ch has the form: on another channel
// the result is meaningless.
func TightEpsExp(ch *Channel, k float64) (float64, error) {
	if err := checkChannel(ch); err != nil {
		return 0, fmt.Errorf("tight eps: %w", err)
	}
	if !(k > 0) || math.IsInf(k, 1) {
		return 0, fmt.Errorf("tight eps: k = %v: must be finite and > 0", k)
	}
	in, out := ch.In, ch.Out
	if !out.Contains(in) {
		return TightEps(ch)
	}
	if in.Len() == 1 {
		return 0, nil // no pair x != x', as in the brute force
	}
	cr, cc := in.Abs(in.Index(in.Rows/2, in.Cols/2))
	y0 := out.IndexOf(cr, cc)
	n := out.Len()
	logZ := make([]float64, in.Len())
	for x := range logZ {
		v := ch.P[x*n+y0]
		if v == 0 {
			return TightEps(ch)
		}
		logZ[x] = -k*Dist(in, x, out, y0) - log(v)
	}
	return k + maxLogRatio(in, invDistTable(in), logZ), nil
}

// maxLogRatioFast is maxLogRatio for large grids, exact, by branch and
// bound: a pair at distance >= r contributes at most
// max(lmax - l[x], l[x] - lmin) / r, so once a first pass over the eight
// neighbours of every cell has found a candidate, each cell only scans
// the windows (Chebyshev radius rho, doubled) until the pairs outside can
// no longer beat the best ratio found (the pairs at Euclidean distance >=
// rho+1). l must be finite.
func maxLogRatioFast(g Grid, l []float64) float64 {
	R, C := g.Rows, g.Cols
	m := R * C
	l = l[:m]
	lmin, lmax := math.Inf(1), math.Inf(-1)
	for _, v := range l {
		lmin, lmax = min(lmin, v), max(lmax, v)
	}
	inv := invDistTable(g)
	best := 0.0
	scan := func(x, rho, done int) {
		rx, cx := x/C, x%C
		lx := l[x]
		for ry := max(0, rx-rho); ry <= min(R-1, rx+rho); ry++ {
			dr := abs(ry - rx)
			irow := inv[dr*C : (dr+1)*C]
			lrow := l[ry*C : (ry+1)*C]
			for cy := max(0, cx-rho); cy <= min(C-1, cx+rho); cy++ {
				dc := abs(cy - cx)
				if max(dr, dc) <= done {
					continue
				}
				if v := math.Abs(lx-lrow[cy]) * irow[dc]; v > best {
					best = v
				}
			}
		}
	}
	for x := range m {
		scan(x, 1, 0)
	}
	for x := range m {
		spread := max(lmax-l[x], l[x]-lmin)
		done := 1
		for rho := 2; ; rho *= 2 {
			if float64(done+1)*best >= spread {
				break // pairs outside the scanned window cannot do better
			}
			scan(x, rho, done)
			done = rho
			if rho >= max(R, C) {
				break
			}
		}
	}
	return best
}
