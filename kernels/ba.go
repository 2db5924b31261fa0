package kernels

import (
	"fmt"
	"math"
)

// BAConfig configures BA.
type BAConfig struct {
	Beta          float64 // > 0
	Iterations    int     // > 0: fixed count (reference code); 0: converge on Delta
	Delta         float64 // convergence: stop when max |C_t - C_{t-1}| < Delta
	MaxIterations int     // cap in convergence mode (0: DefaultMaxIterations)
}

// BAChannel is the Blahut-Arimoto channel in factorised form,
//
//	C[x,y] = c(y) K(x,y) / Z(x),  K = exp(-beta d),  Z = K c,
//
// on Grid (input = output). Only the marginal c and the normalisers Z are
// stored; Channel materialises the m x m matrix. A BAChannel is immutable
// (do not modify Marginal) and safe for concurrent use.
type BAChannel struct {
	Grid       Grid
	Beta       float64
	Marginal   []float64 // c: the output marginal the channel was built from
	Iterations int       // iterations done (channels C_1..C_t computed)
	// Converged reports, in convergence mode, that the last change was
	// below Delta (false when MaxIterations stopped the run). Always false
	// in fixed-iteration mode.
	Converged bool
	// Change is max_{x,y} |C_t[x,y] - C_{t-1}[x,y]| at the last iteration
	// in convergence mode (computed exactly, see BA), and 0 in
	// fixed-iteration mode, where it is not computed.
	Change float64

	kp        *kprod
	lazy      *baLazy
	logDomain bool      // iterated in the log domain (see BA)
	z         []float64 // Z = K c (linear domain only)
	logZ      []float64 // ln Z (log domain only; see LogZ)
	logc      []float64 // ln c (log domain only)
}

// logDomainThreshold bounds beta*dmax for the linear-domain iteration. Up
// to it every kernel entry exp(-beta d) is a normal number >= e^-600, so
// Z(x) >= max_y c(y) K(x,y) >= e^-600/m stays more than 1e40 times above
// the underflow threshold and no quotient in the iteration overflows.
const logDomainThreshold = 600

// BA runs Blahut-Arimoto from the uniform channel on grid g (input =
// output = g) for the prior (a distribution over g, summing to 1 within
// StochasticTol*len; zeros allowed):
//
//	c_1 = uniform;  C_t = diag(1/Z_t) K diag(c_t), Z_t = K c_t;  c_{t+1} = prior C_t.
//
// With cfg.Iterations = T > 0 it returns C_T (the reference code's loop of
// T iterations). With cfg.Iterations = 0 it stops at the first t with
// max_{x,y} |C_t[x,y] - C_{t-1}[x,y]| < cfg.Delta (C_0 is the uniform
// channel), or after cfg.MaxIterations iterations. The change is computed
// exactly whenever it might be below Delta (from the stencil; on large
// grids window by window, stopping where the kernel's decay bounds the rest
// below the maximum found); an O(m) lower bound from the diagonal entries
// C[x,x] = c(x)/Z(x) skips that work in the iterations where the bound
// alone exceeds Delta.
//
// Each iteration costs two products with K (Z_t = K c_t, and
// c_{t+1} = c_t .* K(prior ./ Z_t), since K is symmetric). On grids of
// fewer than 1024 cells they use the stencil of K (see stencil), O(m^2)
// time and O(m) memory; on larger grids, certified FFT products (see
// kprod), O(m log m) time, every entry within 4e-10 relative of the exact
// sum. Nothing is allocated per iteration, and the channel is never
// materialised, so the grid may have up to MaxCells cells.
//
// Numerics: when beta*dmax <= 600 (dmax the grid diameter; Paris and SF up
// to beta = 34 and 21) the iteration runs in the linear domain and is safe:
// Z(x) >= e^-600/m for every x, so there is no NaN, Inf or all-zero row.
// Entries of c that decay below the smallest normal number (outputs BA
// starves) lose relative precision or flush to zero; their contribution to
// any channel entry is below 1e-40. For larger beta*dmax the kernel itself
// underflows. Small grids then iterate ln c and ln Z in the log domain with
// max-shifted log-sum-exp products (O(m^2) exponentials per product):
// every row keeps its largest entry >= 1/m, and entries below ~1e-308 are
// the only ones that flush to zero. Large grids first try the linear
// domain and check every Z_t: if some Z_t(x) falls below 1e-260 (where the
// argument above would no longer hold) the run restarts in the log domain,
// whose products sum each entry over a window grown until the terms left
// out are provably negligible. Terms with prior(x) = 0 are dropped from
// the update of c (they contribute prior(x) C[x,y] = 0).
func BA(g Grid, prior []float64, cfg BAConfig) (*BAChannel, error) {
	var ws BAWorkspace
	return ws.BA(g, prior, cfg)
}

// BAWorkspace holds BA's buffers and the last stencil, so repeated BA calls
// on one grid allocate only their results. A workspace must not be used by
// two goroutines at once; the BAChannels it returns are independent of it.
type BAWorkspace struct {
	kp                          *kprod
	c, cAlt, z, zAlt, iz, izAlt []float64
	w, u, mx                    []float64
	buf                         []float64 // backs all of the above
	kw                          kprodWork
	sites                       [2]kprodSite // Z = K c and K(prior ./ Z)
	// exactChanges counts the exact change maxima (O(m^2) or more each)
	// computed by the last call, for tests of the diagonal bound's use.
	exactChanges int
}

func (ws *BAWorkspace) kprod(g Grid, beta float64, logDomain bool) *kprod {
	kp := ws.kp
	if kp == nil || kp.rows != g.Rows || kp.cols != g.Cols || kp.beta != beta {
		// A new plan, never an update in place: earlier BAChannels may
		// still hold the old one (a plan only ever gains tables).
		kp = newKProd(g.Rows, g.Cols, beta, logDomain)
		ws.kp = kp
		ws.sites = [2]kprodSite{}
	}
	if logDomain {
		kp.ensureLog()
	}
	return kp
}

// newBAChannel allocates a BAChannel and its lazy holder together (one
// allocation for one-off BA calls).
func newBAChannel(g Grid, beta float64, kp *kprod, logDomain bool) *BAChannel {
	both := &struct {
		ch BAChannel
		lz baLazy
	}{}
	both.ch = BAChannel{Grid: g, Beta: beta, kp: kp, lazy: &both.lz, logDomain: logDomain}
	return &both.ch
}

// copies returns copies of up to three slices in one allocation, each
// capped at its own length.
func copies(src ...[]float64) (out [3][]float64) {
	n := 0
	for _, v := range src {
		n += len(v)
	}
	all := make([]float64, n)
	for i, v := range src {
		out[i] = all[:len(v):len(v)]
		copy(out[i], v)
		all = all[len(v):]
	}
	return out
}

// zFloor is the smallest normaliser Z(x) the linear-domain iteration of a
// large grid accepts (see BA).
const zFloor = 1e-260

// BA is the package-level BA reusing the workspace's buffers.
func (ws *BAWorkspace) BA(g Grid, prior []float64, cfg BAConfig) (*BAChannel, error) {
	return ws.ba(g, prior, cfg, false)
}

// ba is BA; forceLog selects the log-domain iteration whatever beta is (for
// tests comparing the two).
func (ws *BAWorkspace) ba(g Grid, prior []float64, cfg BAConfig, forceLog bool) (*BAChannel, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("ba: %w", err)
	}
	m := g.Len()
	if err := checkPositive("ba: beta", cfg.Beta); err != nil {
		return nil, err
	}
	maxIter, converge, err := iterLimits(cfg.Iterations, cfg.Delta, cfg.MaxIterations)
	if err != nil {
		return nil, fmt.Errorf("ba: %w", err)
	}
	ws.exactChanges = 0
	if err := checkDist("ba: prior", prior, m); err != nil {
		return nil, err
	}
	dmax := math.Hypot(float64(g.Rows-1), float64(g.Cols-1))
	wide := cfg.Beta*dmax > logDomainThreshold
	large := m >= fftMinCells
	logDomain := forceLog || (wide && !large)
	kp := ws.kprod(g, cfg.Beta, logDomain)
	out := newBAChannel(g, cfg.Beta, kp, logDomain)
	// One slab for all buffers (with the direct product's scratch on small
	// grids): fewer allocations for one-off calls.
	sl := 0
	if !kp.useFFT {
		sl = kp.st.scratchLen()
	}
	ws.buf = grow(ws.buf, 8*m+g.Cols+sl)
	buf := ws.buf
	next := func(n int) []float64 {
		b := buf[:n:n]
		buf = buf[n:]
		return b
	}
	ws.c, ws.cAlt, ws.z, ws.zAlt = next(m), next(m), next(m), next(m)
	ws.iz, ws.izAlt, ws.w, ws.u = next(m), next(m), next(m), next(m)
	ws.mx = next(g.Cols)
	// Empty with FFTs, and never left aliasing an earlier slab.
	ws.kw.stdScratch = next(sl)
	if !logDomain {
		if ws.iterate(out, prior, maxIter, converge, cfg.Delta, wide && large) {
			return out, nil
		}
		// Some Z_t fell below zFloor: restart in the log domain.
		kp = ws.kprod(g, cfg.Beta, true)
		out = newBAChannel(g, cfg.Beta, kp, true)
	}
	ws.iterateLog(out, prior, maxIter, converge, cfg.Delta)
	return out, nil
}

// iterate is the linear-domain BA loop. With checkZ it reports false as
// soon as some Z_t(x) < zFloor.
func (ws *BAWorkspace) iterate(out *BAChannel, prior []float64, maxIter int, converge bool, delta float64, checkZ bool) bool {
	kp := out.kp
	m := kp.len()
	c, cPrev, z := ws.c[:m], ws.cAlt[:m], ws.z[:m]
	iz, izPrev := ws.iz[:m], ws.izAlt[:m]
	w, u := ws.w[:m], ws.u[:m]
	prior = prior[:m]
	for i := range c {
		c[i] = 1 / float64(m)
	}
	t := 1
	for ; ; t++ {
		kp.prod(z, c, &ws.kw, &ws.sites[0])
		if checkZ {
			for _, v := range z {
				if !(v >= zFloor) {
					return false
				}
			}
		}
		if converge {
			for i, v := range z {
				iz[i] = 1 / v
			}
			// The diagonal entries C[x,x] = c(x)/Z(x) (K = 1) give a
			// lower bound of the change in O(m); the exact maximum is
			// needed only when the bound is below delta (lb >= delta
			// already rules convergence out), or on the last iteration
			// (for Change).
			lb := 0.0
			if t > 1 {
				for x, v := range c {
					lb = max(lb, math.Abs(v*iz[x]-cPrev[x]*izPrev[x]))
				}
			}
			if lb < delta || t == maxIter {
				ws.exactChanges++
				out.Change = kp.maxChange(c, iz, cPrev, izPrev, t == 1)
				if out.Change < delta {
					out.Converged = true
					break
				}
			}
		}
		if t == maxIter {
			break
		}
		for x, p := range prior {
			w[x] = p / z[x] // 0 for prior(x) = 0: Z(x) > 0 (see BA)
		}
		kp.prod(u, w, &ws.kw, &ws.sites[1])
		for y, v := range u {
			cPrev[y] = c[y] * v
		}
		// Now cPrev holds c_{t+1}: swap so that c is current and cPrev,
		// izPrev describe C_t.
		c, cPrev = cPrev, c
		iz, izPrev = izPrev, iz
	}
	out.Iterations = t
	cz := copies(c, z)
	out.Marginal, out.z = cz[0], cz[1]
	return true
}

// iterateLog is the log-domain BA loop: c and Z are carried as logarithms
// and every product with K is a max-shifted log-sum-exp (stencil.lprod).
func (ws *BAWorkspace) iterateLog(out *BAChannel, prior []float64, maxIter int, converge bool, delta float64) {
	kp := out.kp
	m := kp.len()
	lc, lcPrev, lz, lzPrev := ws.c, ws.cAlt, ws.z, ws.zAlt
	lw, lu := ws.w[:m], ws.u[:m]
	for i := range lc {
		lc[i] = -math.Log(float64(m))
	}
	t := 1
	for ; ; t++ {
		kp.lprod(lz, lc, ws.mx)
		if converge {
			lb := 0.0 // the diagonal's lower bound, as in iterate
			if t > 1 {
				for x, v := range lc {
					lb = max(lb, math.Abs(math.Exp(v-lz[x])-math.Exp(lcPrev[x]-lzPrev[x])))
				}
			}
			if lb < delta || t == maxIter {
				ws.exactChanges++
				out.Change = kp.maxChangeLog(lc, lz, lcPrev, lzPrev, t == 1)
				if out.Change < delta {
					out.Converged = true
					break
				}
			}
		}
		if t == maxIter {
			break
		}
		// ln c stays finite from the uniform start (each lprod entry sums
		// over a window widened until it holds a finite term), and so does
		// ln Z(x) >= ln c(x); prior(x) = 0 then gives ln 0 - ln Z(x) =
		// -Inf: the term is dropped.
		for x, p := range prior[:m] {
			lw[x] = log(p) - lz[x]
		}
		kp.lprod(lu, lw, ws.mx)
		for y, v := range lu {
			lcPrev[y] = lc[y] + v
		}
		lc, lcPrev = lcPrev, lc
		lz, lzPrev = lzPrev, lz
	}
	out.Iterations = t
	cz := copies(lc, lz, lc)
	out.logc, out.logZ, out.Marginal = cz[0], cz[1], cz[2]
	for i, v := range lc {
		out.Marginal[i] = math.Exp(v)
	}
}

// maxChange returns max_{x,y} |K(x,y) (c(y) iz(x) - cp(y) izp(x))|, the
// largest entry change between the channels diag(iz) K diag(c) and
// diag(izp) K diag(cp); with uniformPrev the previous channel is the
// uniform one, 1/m everywhere.
func (s *stencil) maxChange(c, iz, cp, izp []float64, uniformPrev bool) float64 {
	R, C, ts := s.rows, s.cols, s.ts
	m := R * C
	u := 1 / float64(m)
	best := 0.0
	for rx := 0; rx < R; rx++ {
		for ry := 0; ry < R; ry++ {
			// K(x, y) for x = (rx, cx) and the C cells y of row ry is
			// t[base-cx : base-cx+C] (see stencil).
			base := (R-1+rx-ry)*ts + C - 1
			cy := c[ry*C : (ry+1)*C : (ry+1)*C]
			var cpy []float64
			if !uniformPrev {
				cpy = cp[ry*C : (ry+1)*C : (ry+1)*C]
			}
			for cx := 0; cx < C; cx++ {
				x := rx*C + cx
				k := s.t[base-cx:][:len(cy)]
				a := iz[x]
				if uniformPrev {
					for j, kv := range k {
						best = max(best, math.Abs(kv*cy[j]*a-u))
					}
					continue
				}
				b := izp[x]
				cpy := cpy[:len(cy)]
				for j, kv := range k {
					best = max(best, kv*math.Abs(cy[j]*a-cpy[j]*b))
				}
			}
		}
	}
	return best
}

// maxChangeLog is maxChange for log-domain factors (lc = ln c, lz = ln Z).
func (s *stencil) maxChangeLog(lc, lz, lcp, lzp []float64, uniformPrev bool) float64 {
	R, C, ts := s.rows, s.cols, s.ts
	m := R * C
	u := 1 / float64(m)
	best := 0.0
	for rx := 0; rx < R; rx++ {
		for ry := 0; ry < R; ry++ {
			base := (R-1+rx-ry)*ts + C - 1 // as in maxChange
			for cx := 0; cx < C; cx++ {
				x := rx*C + cx
				k := s.nd[base-cx:][:C]
				for cy := 0; cy < C; cy++ {
					y := ry*C + cy
					prev := u
					if !uniformPrev {
						prev = math.Exp(lcp[y] + k[cy] - lzp[x])
					}
					best = max(best, math.Abs(math.Exp(lc[y]+k[cy]-lz[x])-prev))
				}
			}
		}
	}
	return best
}

// Channel materialises C[x,y] = c(y) K(x,y) / Z(x) as a dense channel.
// Entries below the smallest normal float64 (2.2e-308) are set to 0: a
// subnormal carries too few significant bits for log-ratios such as those
// of TightEpsilon, and the mass removed from a row is below m*2.2e-308.
// The matrix has m^2 entries: Channel returns nil on grids of more than
// MaxDenseCells cells (Dense says why); the operator methods of BAChannel
// work at any size.
func (b *BAChannel) Channel() *Channel {
	ch, err := b.Dense()
	if err != nil {
		return nil
	}
	return ch
}

// Dense is Channel with an error, instead of nil, on grids too large to
// materialise.
func (b *BAChannel) Dense() (*Channel, error) {
	if b == nil || b.kp == nil {
		return nil, fmt.Errorf("ba: channel is nil or not built by BA")
	}
	if err := checkDenseSize(b.Grid, b.Grid); err != nil {
		return nil, fmt.Errorf("ba: %w", err)
	}
	st := b.kp.st
	R, C, ts := st.rows, st.cols, st.ts
	m := R * C
	ch := &Channel{In: b.Grid, Out: b.Grid, P: make([]float64, m*m)}
	for rx := 0; rx < R; rx++ {
		for cx := 0; cx < C; cx++ {
			x := rx*C + cx
			row := ch.P[x*m : (x+1)*m]
			for ry := 0; ry < R; ry++ {
				base := (R-1+rx-ry)*ts + C - 1 - cx
				seg := row[ry*C : (ry+1)*C : (ry+1)*C]
				if b.logDomain {
					k := st.nd[base : base+C]
					lc := b.logc[ry*C : (ry+1)*C]
					lz := b.logZ[x]
					for j := range seg {
						// Below ln(smallestNormal) the entry would be
						// subnormal: flushed (see Channel).
						if e := lc[j] + k[j] - lz; e >= logSmallestNormal {
							seg[j] = math.Exp(e)
						}
					}
					continue
				}
				k := st.t[base : base+C]
				cc := b.Marginal[ry*C : (ry+1)*C]
				iz := 1 / b.z[x]
				for j := range seg {
					// K/Z first: it is a normal number (K >= e^-600,
					// 1/Z >= 1), so only the final product can be
					// subnormal, and then it is flushed.
					v := k[j] * iz * cc[j]
					if v < smallestNormal {
						v = 0
					}
					seg[j] = v
				}
			}
		}
	}
	return ch, nil
}

// LogZ returns ln Z(x), the log normalisers of the channel's rows (a new
// slice).
func (b *BAChannel) LogZ() []float64 {
	if b.logDomain {
		return append([]float64(nil), b.logZ...)
	}
	lz := make([]float64, len(b.z))
	for i, v := range b.z {
		lz[i] = math.Log(v) // Z >= e^-600/m: a normal number
	}
	return lz
}
