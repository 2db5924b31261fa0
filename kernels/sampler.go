package kernels

import (
	"math"
	"math/rand/v2"
)

// factorSampler draws reports from the rows of a factorised channel
//
//	C[x,y] = c(y) K(x,y) / Z(x),  K = exp(-beta d),
//
// over the cells y of grid g (BA: c the output marginal; LAP: c = 1 on
// the output grid), without computing Z or any whole row. A draw for the
// input at position p (in g's local coordinates) is rejection sampling
// with an envelope that equals the target on the window W of Chebyshev
// radius rho around p and dominates it outside:
//
//   - inside W the weights c(y) K(p,y) are computed (|W| <= (2 rho+1)^2
//     terms), with total N;
//   - outside W the envelope is either cmax K(p,y), total at most
//     A = cmax sum_{offsets outside W} K, proposed by drawing an offset
//     from K (an alias table over the offsets, built once) and accepted
//     with probability c(y)/cmax (and y on the grid); or kfar c(y), with
//     kfar = K at distance rho+1 >= K(p,y) for every y outside W, total
//     at most B = kfar sum_y c(y), proposed from c (an alias table) and
//     accepted with probability K(p,y)/kfar (and y outside W). The smaller
//     of A and B is used.
//
// Each draw picks W with probability N/(N+F) (F the far envelope's total)
// and otherwise proposes a far cell, starting over on rejection; so every
// accepted draw has probability exactly proportional to c(y) K(p,y): the
// row's distribution, up to the rounding of the weights and of the alias
// tables' probabilities. The draws that land in W are then placed by one
// multinomial over W's weights, as Obfuscate does with a dense row.
type factorSampler struct {
	g     Grid
	st    *stencil
	beta  float64
	c     []float64 // nil: c = 1
	cmax  float64
	csum  float64
	rho   int
	kfar  float64 // K at distance rho+1
	offW  float64 // sum over the offsets outside W (all signs) of K
	off   alias   // over quadrant offsets (dr, dc) with max(dr, dc) > rho
	cal   alias   // over c (unused when c is nil)
	hasC  bool
	mOffs int // stride of quadrant offsets: g.Cols
}

// newFactorSampler prepares draws from the channel with marginal c (nil
// for c = 1) over st's grid. rho is the window radius.
func newFactorSampler(g Grid, st *stencil, beta float64, c []float64, rho int) *factorSampler {
	s := &factorSampler{g: g, st: st, beta: beta, c: c, rho: rho, mOffs: g.Cols}
	s.kfar = math.Exp(-beta * float64(rho+1))
	if c == nil {
		s.cmax, s.csum = 1, float64(g.Len())
	} else {
		s.hasC = true
		for _, v := range c {
			s.cmax = max(s.cmax, v)
			s.csum += v
		}
		s.cal = newAlias(c)
	}
	w := make([]float64, g.Rows*g.Cols)
	for dr := 0; dr < g.Rows; dr++ {
		for dc := 0; dc < g.Cols; dc++ {
			if max(dr, dc) <= rho {
				continue
			}
			mult := 1.0
			if dr > 0 {
				mult *= 2
			}
			if dc > 0 {
				mult *= 2
			}
			w[dr*g.Cols+dc] = mult * st.at(dr, dc)
			s.offW += w[dr*g.Cols+dc]
		}
	}
	s.off = newAlias(w)
	return s
}

// samplerWork is the scratch of factorSampler.sample.
type samplerWork struct {
	w      []float64 // window weights
	idx    []int32   // their cells
	counts []int     // draws per window cell
	buf    []float64
}

// sample adds k draws from the row of the input at local position
// (pr, pc) of g to out (over g's cells). It reports false, drawing
// nothing, when every weight of the envelope underflowed to zero.
func (s *factorSampler) sample(rng *rand.Rand, pr, pc, k int, out []int, sw *samplerWork) bool {
	if k <= 0 {
		return true
	}
	g := s.g
	R, C := g.Rows, g.Cols
	// The window grows (the envelope B shrinks with it) until the far
	// envelope's mass F is at most the window's N, so that a draw takes
	// fewer than two trials on average, or until it covers the grid.
	var near, far float64
	var useOff bool
	rho := s.rho
	for {
		r0, r1 := max(0, pr-rho), min(R-1, pr+rho)
		c0, c1 := max(0, pc-rho), min(C-1, pc+rho)
		sw.w, sw.idx = sw.w[:0], sw.idx[:0]
		near = 0
		for ry := r0; ry <= r1; ry++ {
			for cy := c0; cy <= c1; cy++ {
				y := ry*C + cy
				v := s.st.at(abs(ry-pr), abs(cy-pc))
				if s.hasC {
					v *= s.c[y]
				}
				sw.w = append(sw.w, v)
				sw.idx = append(sw.idx, int32(y))
				near += v
			}
		}
		if r0 == 0 && c0 == 0 && r1 == R-1 && c1 == C-1 {
			far, useOff = 0, false
			break
		}
		far, useOff = s.kfarAt(rho)*s.csum, false
		if rho == s.rho && s.cmax*s.offW < far {
			far, useOff = s.cmax*s.offW, true
		}
		if far <= near {
			break
		}
		rho *= 2
	}
	if !(near+far > 0) {
		return false
	}
	nNear := 0
	for range k {
		for {
			if rng.Float64()*(near+far) < near {
				nNear++
				break
			}
			if y, ok := s.proposeFar(rng, pr, pc, rho, useOff); ok {
				out[y]++
				break
			}
		}
	}
	if nNear == 0 {
		return true
	}
	n := len(sw.w)
	if cap(sw.counts) < n {
		sw.counts = make([]int, n)
	}
	counts := sw.counts[:n]
	clear(counts)
	if nNear < categoricalFactor*n {
		sw.buf = grow(sw.buf, nNear)
		orderedCategorical(rng, nNear, sw.w, counts, sw.buf)
	} else {
		sw.buf = grow(sw.buf, n)
		sequentialBinomials(rng, nNear, sw.w, counts, sw.buf)
	}
	for i, v := range counts {
		out[sw.idx[i]] += v
	}
	return true
}

// kfarAt is K at distance rho+1, the largest value outside the window of
// radius rho.
func (s *factorSampler) kfarAt(rho int) float64 {
	if rho == s.rho {
		return s.kfar
	}
	return math.Exp(-s.beta * float64(rho+1))
}

// proposeFar makes one far proposal for the input at (pr, pc), whose
// window has radius rho, and reports the cell if it is accepted (the
// offset envelope only serves the sampler's own radius).
func (s *factorSampler) proposeFar(rng *rand.Rand, pr, pc, rho int, useOff bool) (int, bool) {
	g := s.g
	if useOff {
		o := s.off.draw(rng)
		dr, dc := o/s.mOffs, o%s.mOffs
		bits := rng.Uint64()
		if bits&1 != 0 {
			dr = -dr
		}
		if bits&2 != 0 {
			dc = -dc
		}
		ry, cy := pr+dr, pc+dc
		if ry < 0 || cy < 0 || ry >= g.Rows || cy >= g.Cols {
			return 0, false
		}
		y := ry*g.Cols + cy
		if s.hasC && rng.Float64()*s.cmax >= s.c[y] {
			return 0, false
		}
		return y, true
	}
	y := s.cal.draw(rng)
	ry, cy := y/g.Cols, y%g.Cols
	dr, dc := abs(ry-pr), abs(cy-pc)
	if max(dr, dc) <= rho {
		return 0, false
	}
	if rng.Float64()*s.kfarAt(rho) >= s.st.at(dr, dc) {
		return 0, false
	}
	return y, true
}

// alias is Walker's alias table (Vose's construction) for drawing an
// index with probability proportional to its weight in O(1).
type alias struct {
	prob  []float64
	alias []int32
}

func newAlias(w []float64) alias {
	n := len(w)
	a := alias{prob: make([]float64, n), alias: make([]int32, n)}
	total := 0.0
	for _, v := range w {
		total += v
	}
	if !(total > 0) {
		return a
	}
	small, large := make([]int32, 0, n), make([]int32, 0, n)
	scale := float64(n) / total
	for i, v := range w {
		a.prob[i] = v * scale
		if a.prob[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.alias[s] = l
		a.prob[l] -= 1 - a.prob[s]
		if a.prob[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left has probability 1 up to rounding.
	for _, i := range large {
		a.prob[i] = 1
	}
	for _, i := range small {
		a.prob[i] = 1
	}
	return a
}

// draw returns an index; the column and the coin use separate random
// numbers, so the coin keeps all 53 bits.
func (a alias) draw(rng *rand.Rand) int {
	i := rng.IntN(len(a.prob))
	if rng.Float64() < a.prob[i] {
		return i
	}
	return int(a.alias[i])
}
