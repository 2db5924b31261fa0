package kernels

import (
	"fmt"
	"math"
)

// TightEpsilon implements ChannelOp: the smallest eps for which c is
// eps-geo-indistinguishable (eps-d-private with the Euclidean distance
// between input cells):
//
//	max over outputs y and inputs x != x' of |ln C[x,y] - ln C[x',y]| / d(x,x').
//
// This is the brute force over the columns that need it: a whole zero
// column (an output y that no input can produce) bounds nothing, and a
// column with C[x,y] = 0 but C[x',y] > 0 makes the ratio unbounded, so
// the result is +Inf; both are told apart in O(|X|) per column, and only
// the columns positive throughout cost the O(|X|^2) scan of pairs. So a
// channel lifted from a coarse grid, whose columns are zero but for one
// per block, costs a scan per block, not per cell. A channel with one
// input cell has tight epsilon 0. BA channels have their own O(|X|^2)
// form (BAChannel.TightEpsilon).
func (c *Channel) TightEpsilon() (float64, error) {
	return tightEps(c, maxLogRatio)
}

// tightEps is Channel.TightEpsilon with the scan of a positive column's pairs as a
// parameter, so that tests can count the scans.
func tightEps(ch *Channel, scan func(g Grid, inv, l []float64) float64) (float64, error) {
	if err := checkChannel(ch); err != nil {
		return 0, fmt.Errorf("tight eps: %w", err)
	}
	in := ch.In
	m, n := in.Len(), ch.Out.Len()
	inv := invDistTable(in)
	logs := make([]float64, m)
	best := 0.0
	for y := 0; y < n; y++ {
		zeros := 0
		for x := 0; x < m; x++ {
			v := ch.P[x*n+y]
			if v == 0 {
				zeros++
			}
			logs[x] = log(v)
		}
		switch {
		case zeros == m:
			continue
		case zeros > 0 && m > 1:
			return math.Inf(1), nil // no later column can change it
		}
		best = max(best, scan(in, inv, logs))
	}
	return best, nil
}

// maxLogRatio returns max over cells x != x' of g of
// |l[x] - l[x']| / d(x,x'), inv being invDistTable(g). A pair whose ratio
// is NaN (two -Inf) is skipped.
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
			// no abs; a plain comparison instead of max keeps the loop
			// branch-light and skips NaN.
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

// TightEpsilon implements ChannelOp: the tight epsilon of the BA channel
// in O(m^2), with an error only for a channel not built by BA:
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
// On a one-cell grid there is no pair and the result is 0, as for the
// brute force. It uses ln Z as iterated, so it is finite even where the
// materialised channel has entries that underflowed to zero (where the
// brute force on Channel() would report +Inf).
//
// On grids of 1,024 cells or more, ln Z comes from certified products
// (each Z(x) within certTol relative, so each ln Z within about certTol);
// certifiedMaxLogRatio then recomputes ln Z exactly, by direct sums, at the
// cells of the pairs that could hold the maximum, so that the result is
// that of exact normalisers.
func (b *BAChannel) TightEpsilon() (float64, error) {
	if err := b.check(); err != nil {
		return 0, fmt.Errorf("tight eps: %w", err)
	}
	return b.tightEps(), nil
}

// tightEps is TightEpsilon on a channel built by BA.
func (b *BAChannel) tightEps() float64 {
	if b.Grid.Len() == 1 {
		return 0 // no pair x != x', as in the brute force
	}
	if b.kp.useFFT {
		return b.Beta + certifiedMaxLogRatio(b.Grid, b.LogZ(), b.exactLogZ, b.exactLogZAll)
	}
	return b.Beta + maxLogRatio(b.Grid, invDistTable(b.Grid), b.LogZ())
}

// exactLogZ returns ln Z(x) summed directly over the whole grid.
func (b *BAChannel) exactLogZ(x int) float64 {
	st := b.kp.st
	all := max(st.rows, st.cols)
	if b.logDomain {
		mw, s := st.logWindow(x, all, b.logc)
		return mw + math.Log(s)
	}
	return log(st.windowSum(x, all, b.Marginal))
}

// exactLogZAll returns ln Z for every cell from the direct product.
func (b *BAChannel) exactLogZAll() []float64 {
	st := b.kp.st
	m := st.len()
	lz := make([]float64, m)
	if b.logDomain {
		st.lprod(lz, b.logc, make([]float64, st.cols))
		return lz
	}
	st.prod(lz, b.Marginal, make([]float64, st.scratchLen()))
	for x, v := range lz {
		lz[x] = log(v)
	}
	return lz
}

// certifiedMaxLogRatio is maxLogRatio for values l known only to within
// delta = 1.01 certTol of exact values that exact(x) computes: the pairs
// whose ratio is within 4 delta of the largest found are the only ones
// whose exact ratio can be the largest (every other pair's exact ratio is
// below the best pair's), so their cells are recomputed exactly and their
// ratios taken from the exact values. When more than candidateCap pairs
// qualify (near-ties everywhere), every value is recomputed (exactAll) and
// the maximum taken over the exact values.
func certifiedMaxLogRatio(g Grid, l []float64, exact func(x int) float64, exactAll func() []float64) float64 {
	const delta = 1.01 * certTol
	best := maxLogRatioFast(g, l)
	thr := best - 4*delta
	R, C := g.Rows, g.Cols
	m := R * C
	lmin, lmax := math.Inf(1), math.Inf(-1)
	for _, v := range l {
		lmin, lmax = min(lmin, v), max(lmax, v)
	}
	inv := invDistTable(g)
	type pair struct{ x, y int32 }
	var pairs []pair
	for x := range m {
		rx, cx := x/C, x%C
		spread := max(lmax-l[x], l[x]-lmin)
		// Pairs at Chebyshev distance > rho have ratio <= spread/(rho+1).
		rho := max(R, C)
		if thr > 0 {
			rho = min(rho, int(spread/thr))
		}
		for ry := rx; ry <= min(R-1, rx+rho); ry++ {
			for cy := max(0, cx-rho); cy <= min(C-1, cx+rho); cy++ {
				y := ry*C + cy
				if y <= x {
					continue
				}
				if math.Abs(l[x]-l[y])*inv[(ry-rx)*C+abs(cy-cx)] >= thr {
					pairs = append(pairs, pair{int32(x), int32(y)})
					if len(pairs) > candidateCap {
						return maxLogRatioFast(g, exactAll())
					}
				}
			}
		}
	}
	le := map[int32]float64{}
	get := func(x int32) float64 {
		v, ok := le[x]
		if !ok {
			v = exact(int(x))
			le[x] = v
		}
		return v
	}
	res := 0.0
	for _, p := range pairs {
		d := inv[abs(int(p.y)/C-int(p.x)/C)*C+abs(int(p.y)%C-int(p.x)%C)]
		res = max(res, math.Abs(get(p.x)-get(p.y))*d)
	}
	return res
}

// candidateCap bounds the pairs certifiedMaxLogRatio refines one by one.
const candidateCap = 1 << 14

// TightEpsExp is the tight epsilon of a channel that the caller knows to
// have the form C[x,y] = c(y) e^{-k d(x,y)} / Z(x) with c > 0 (BA channels
// with k = beta, LAP channels with k = eps and c = 1), in O(|X| |Y|)
// instead of the brute force's O(|X|^2 |Y|). When ch's output grid
// contains its input grid the identity proven at BAChannel.TightEpsilon gives
// k + max over x != x' of |ln Z(x) - ln Z(x')| / d(x,x'), and only the
// differences of ln Z matter: for any fixed output y0,
// ln Z(x) = ln c(y0) - k d(x,y0) - ln C[x,y0], where ln c(y0) is the same
// for every x and cancels. y0 is the output cell nearest the centre of the
// input grid, so that its column is the last to underflow. Where the
// identity's preconditions fail (output grid not containing the inputs, or
// an entry of column y0 that underflowed to 0) it returns the brute force
// (Channel.TightEpsilon). It does not check that ch has the form: on another channel
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
		return ch.TightEpsilon()
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
			return ch.TightEpsilon()
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
	best, _ := maxLogRatioFastCount(g, l)
	return best
}

// maxLogRatioFastCount is maxLogRatioFast, also returning how many ratios
// it computed (a pair scanned from both its cells counts twice): the cost
// that the bound is there to keep small, which tests hold it to.
func maxLogRatioFastCount(g Grid, l []float64) (best float64, scanned int) {
	R, C := g.Rows, g.Cols
	m := R * C
	l = l[:m]
	lmin, lmax := math.Inf(1), math.Inf(-1)
	for _, v := range l {
		lmin, lmax = min(lmin, v), max(lmax, v)
	}
	inv := invDistTable(g)
	// span is how many of the indices 0..n-1 lie within r of i.
	span := func(i, r, n int) int { return min(n-1, i+r) - max(0, i-r) + 1 }
	// scan computes the ratios of x with every cell of its window of
	// Chebyshev radius rho but those within done (x among them). They are
	// counted by window sizes, not one by one: a counter in the inner loop
	// costs about 10% of the search's time.
	scan := func(x, rho, done int) {
		rx, cx := x/C, x%C
		lx := l[x]
		scanned += span(rx, rho, R)*span(cx, rho, C) - span(rx, done, R)*span(cx, done, C)
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
	return best, scanned
}
