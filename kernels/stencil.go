package kernels

import (
	"math"

	"privic/kernels/internal/asm"
)

// stencil is the kernel K(x, y) = exp(-beta d(x, y)) of a grid (or any
// other function of the distance: BayesError uses d itself), stored by
// offset instead of as an m x m matrix: on a grid K depends only on the row
// and column differences, so (2R-1) x (2C-1) numbers describe all m^2
// entries. A product K v is then a 2-D convolution of v with the table.
//
// Layout (chosen so the product's inner loop is a contiguous axpy):
// row R-1+dr of t (dr in -(R-1)..R-1) holds, at position k in [0, 2C-1),
// exp(-beta*hypot(dr, k-(C-1))). For output row rx, input row ry and input
// column cy, the kernel values of the C output columns cx = 0..C-1 are
// t[(R-1+rx-ry)*ts + C-1-cy + cx]: a contiguous slice, so
//
//	(K v)[rx, :] = sum over ry, cy of v[ry, cy] * t[(R-1+rx-ry)*ts + C-1-cy : ...+C].
//
// Rows are padded to ts >= C+cp-1 entries with zeros, and two zero rows are
// added at the end, so the vector kernels may compute whole blocks of 4 rows
// by cp columns (cp >= C, a sum of 8- and 12-column blocks) without bounds
// tests; the padding results are discarded. The table is immutable once
// built and may be shared.
type stencil struct {
	rows, cols int     // R, C of the grid
	beta       float64 // K = exp(-beta d)
	cp         int     // padded output width (sum of blocks)
	blocks     []int   // column block widths (8 or 12) of the vector kernels
	ts         int     // row stride of t and nd
	t          []float64
	nd         []float64 // -beta*d in the same layout; built for the log-domain path only
}

func roundUp(n, k int) int { return (n + k - 1) / k * k }

// newStencil builds the table of exp(-beta d) for a rows x cols grid.
// withLog also fills nd = -beta d for the log-domain products.
func newStencil(rows, cols int, beta float64, withLog bool) *stencil {
	s := buildStencil(rows, cols, func(h float64) float64 { return math.Exp(-beta * h) })
	s.beta = beta
	if withLog {
		nd := buildStencil(rows, cols, func(h float64) float64 { return -beta * h })
		s.nd = nd.t
		// Entries outside the stencil stand for K = 0.
		for r := 0; r < 2*rows+2; r++ {
			for k := 0; k < s.ts; k++ {
				if r >= 2*rows-1 || k >= 2*cols-1 {
					s.nd[r*s.ts+k] = math.Inf(-1)
				}
			}
		}
	}
	return s
}

// buildStencil lays out f(hypot(dr, dc)) for any kernel f of the distance.
func buildStencil(rows, cols int, f func(h float64) float64) *stencil {
	s := &stencil{rows: rows, cols: cols}
	s.blocks = columnBlocks(cols)
	for _, w := range s.blocks {
		s.cp += w
	}
	s.ts = roundUp(cols+s.cp-1, 4)
	s.t = make([]float64, (2*rows+2)*s.ts)
	// Only R x C distinct values: compute them once and mirror; within the
	// square both offsets fit in, (dr, dc) and (dc, dr) are the same
	// distance, so only dr <= dc is evaluated there.
	vals := make([]float64, rows*cols)
	for dr := 0; dr < rows; dr++ {
		for dc := 0; dc < cols; dc++ {
			var k float64
			if dc < dr && dr < cols {
				k = vals[dc*cols+dr]
			} else {
				k = f(math.Hypot(float64(dr), float64(dc)))
			}
			vals[dr*cols+dc] = k
			for _, r := range [2]int{rows - 1 + dr, rows - 1 - dr} {
				row := r * s.ts
				s.t[row+cols-1+dc] = k
				s.t[row+cols-1-dc] = k
			}
		}
	}
	return s
}

func (s *stencil) len() int { return s.rows * s.cols }

// columnBlocks covers cols columns with blocks of 12 and 8 (the widths of
// the 4x12 and 4x8 kernels), with the least padding and then the fewest
// blocks: 12 columns per block keep more FMAs in flight.
func columnBlocks(cols int) []int {
	b12, b8, bestW := 0, 0, -1
	for n12 := 0; 12*n12 <= cols+11; n12++ {
		n8 := (max(0, cols-12*n12) + 7) / 8
		w := 12*n12 + 8*n8
		if bestW < 0 || w < bestW || (w == bestW && n12+n8 < b12+b8) {
			b12, b8, bestW = n12, n8, w
		}
	}
	best := make([]int, b12+b8)
	for i := range best {
		best[i] = 8
		if i < b12 {
			best[i] = 12
		}
	}
	return best
}

// scratchLen is the length of the scratch buffer prod needs (see
// prodFold).
func (s *stencil) scratchLen() int { return s.foldScratchLen() + s.paddedLen() }

// foldScratchLen is the length of the scratch buffer prodPadded needs: the
// padded output block and the folds of one group of four rows.
func (s *stencil) foldScratchLen() int { return 4*s.cp + 4*s.rows*s.padStride() }

// padStride is the row stride of the padded input of prodPadded: whole
// vectors.
func (s *stencil) padStride() int { return roundUp(s.cols, 4) }

// paddedLen is the length of a padded input of prodPadded: R zero rows, the
// R rows of v (entry (r, c) at R*padStride + r*padStride + c, the rest of
// each row zero) and R zero rows, so folds need no bounds tests.
func (s *stencil) paddedLen() int { return 3 * s.rows * s.padStride() }

// prod sets dst = K v. scratch must have scratchLen() entries. dst and v
// must not overlap.
func (s *stencil) prod(dst, v, scratch []float64) {
	R, C, cq := s.rows, s.cols, s.padStride()
	mq := R * cq
	v = v[:R*C]
	fl := s.foldScratchLen()
	vp := scratch[fl : fl+3*mq]
	clear(vp[:mq])
	for r := 0; r < R; r++ {
		row := vp[mq+r*cq : mq+(r+1)*cq]
		copy(row, v[r*C:(r+1)*C])
		clear(row[C:])
	}
	clear(vp[2*mq:])
	s.prodFold(dst, vp, scratch[:fl])
}

// prodPadded sets dst = K v for v given in the padded layout of paddedLen
// (whose padding the caller keeps zero), so that callers can write a
// transformed input straight into it. scratch must have foldScratchLen()
// entries. dst must not overlap vp.
func (s *stencil) prodPadded(dst, vp, scratch []float64) {
	s.prodFold(dst, vp, scratch)
}

// prodFold computes the product with the rows folded: K(x, y) depends on
// |rx-ry|, so output row rx needs only u_d = v[rx-d] + v[rx+d] for
// d = 0..max(rx, R-1-rx) (rows outside the grid are zero), and rows rx and
// R-1-rx need the same number of distances. Rows are therefore taken in
// the order 0, R-1, 1, R-2, ... and grouped by four; the four rows of a
// group share every table row, which the block kernel (asm.StencilFold)
// loads once for four rows. Against the plain blocking this saves about a fifth of
// the multiply-adds and a third of the loads.
//
// vp is the input in the padded layout of paddedLen (zero rows on both
// sides, so folds need no bounds tests); scratch (foldScratchLen entries)
// holds the padded output block and the folds of one group.
func (s *stencil) prodFold(dst, vp, scratch []float64) {
	R, C, cp, ts := s.rows, s.cols, s.cp, s.ts
	cq := s.padStride() // row stride of the folds: whole vectors
	m, mq := R*C, R*cq
	dst = dst[:m]
	vp = vp[:3*mq]
	outb := scratch[: 4*cp : 4*cp]
	u := scratch[4*cp : 4*cp+4*mq]
	_ = s.t[(2*R+2)*ts-1]
	var rows [4]int
	for b := 0; b < (R+3)/4; b++ {
		nd, n := 0, 0
		for i := range rows {
			// The b-th group of the order 0, R-1, 1, R-2, ...
			k := 4*b + i
			rx := k / 2
			if k%2 == 1 {
				rx = R - 1 - k/2
			}
			if k >= R {
				rows[i] = -1
				continue
			}
			rows[i] = rx
			n++
			nd = max(nd, max(rx, R-1-rx)+1)
		}
		for i, rx := range rows[:] {
			if rx < 0 {
				clear(u[i*mq : i*mq+nd*cq])
				continue
			}
			// Rows rx-nd+1 .. rx+nd-1 of the padded input: the zero rows
			// on both sides stand for the rows outside the grid.
			asm.FoldRow(u[i*mq:i*mq+nd*cq], vp[mq+(rx-nd+1)*cq:mq+(rx+nd)*cq], cq, nd)
		}
		j := 0
		for _, w := range s.blocks {
			asm.StencilFold(w, outb[j:], cp, u, mq, nd, C, s.t[(R-1)*ts+j:], ts, cq-C)
			j += w
		}
		for i, rx := range rows[:n] {
			copy(dst[rx*C:(rx+1)*C], outb[i*cp:i*cp+C])
		}
	}
}

// lprod sets dst[x] = log sum_y exp(a[y] - beta d(x, y)), the product with K
// in the log domain (a[y] = -Inf stands for a zero). Each output is shifted
// by its own maximum term, so nothing underflows that the result needs; a
// first pass finds the maxima (adds and compares only) and the second
// takes exponentials only of the terms within e^-50 of them, which at the
// large beta that select this path are few.
// mx must have C entries. It needs the nd table (withLog).
func (s *stencil) lprod(dst, a, mx []float64) {
	R, C, ts := s.rows, s.cols, s.ts
	negInf := math.Inf(-1)
	for rx := 0; rx < R; rx++ {
		mx := mx[:C]
		for i := range mx {
			mx[i] = negInf
		}
		for ry := 0; ry < R; ry++ {
			base := (R - 1 + rx - ry) * ts
			nrow := s.nd[base : base+2*C-1]
			for cy, av := range a[ry*C : (ry+1)*C] {
				if av == negInf {
					continue
				}
				seg := nrow[C-1-cy : 2*C-1-cy]
				for cx := range mx {
					mx[cx] = max(mx[cx], av+seg[cx])
				}
			}
		}
		out := dst[rx*C : (rx+1)*C]
		clear(out)
		for ry := 0; ry < R; ry++ {
			base := (R - 1 + rx - ry) * ts
			nrow := s.nd[base : base+2*C-1]
			for cy, av := range a[ry*C : (ry+1)*C] {
				if av == negInf {
					continue
				}
				seg := nrow[C-1-cy : 2*C-1-cy]
				for cx := range out {
					// Terms below e^-50 of the largest change the sum by
					// less than m*2e-22 relative, below rounding for any
					// grid the package accepts: skip their exponential.
					if e := av + seg[cx] - mx[cx]; e > -50 {
						out[cx] += math.Exp(e)
					}
				}
			}
		}
		for cx := range out {
			if mx[cx] == negInf {
				out[cx] = negInf
			} else {
				out[cx] = mx[cx] + math.Log(out[cx])
			}
		}
	}
}
