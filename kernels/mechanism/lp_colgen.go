package mechanism

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"time"

	"privic/kernels"
	"privic/kernels/lp"
)

// The optimal mechanism's LP,
//
//	minimise sum_{x,y} c[x,y] C[x,y]   (c[x,y] = prior(x) d(x,y))
//	s.t.     sum_y C[x,y] = 1          for every input x
//	         C[.,y] in K               for every output y,
//
// where K = {v >= 0 : v[a] <= e^{eps d(a,b)} v[b] for the constrained
// pairs} is one cone shared by every column, has block-angular structure:
// the columns are independent but for the |In| row sums. colGen solves it
// by Dantzig-Wolfe decomposition, that is column generation (Dantzig and
// Wolfe, "Decomposition principle for linear programs", Operations
// Research 8, 1960):
//
//   - The master LP writes the channel as a non-negative combination of
//     vectors r_j of K, each sent to the output y_j where it costs least,
//     h(r) = min_y c[.,y].r:
//     minimise sum_j h(r_j) lambda_j  s.t.  sum_j lambda_j r_j = 1.
//     It has only |In| rows, however many constraints K has.
//   - Pricing: with the master's row duals u, a vector v of K with
//     (c[.,y] - u).v < 0 for some y improves the master. For each output
//     this is a small LP, min (c[.,y] - u).v over P = K ∩ [0,1]^In, with
//     |In| variables and K's rows, kept in its own model and re-solved warm
//     from its previous basis as u moves.
//   - Certificate: for any u, L(u) = sum_x u_x + sum_y min_{v in P}
//     (c[.,y] - u).v is a lower bound on the LP's optimum (the Lagrangian
//     relaxation of the row sums; v <= 1 is implied by the row sums, so it
//     changes nothing). Each pricing minimum is bounded from below through
//     the pricing LP's duals (see price), so L holds whatever the solvers'
//     tolerances.
//   - Stabilisation: the duals of a column-generation master oscillate and
//     the lower bound lags far behind (without it, Paris stalled at a gap
//     of 3e-5). Pricing at a point between the best-bound duals and the
//     master's (Wentges smoothing; Wentges, "Weighted Dantzig-Wolfe
//     decomposition for linear mixed-integer programming", International
//     Transactions in Operational Research 4, 1997) fixes that.
//
// It stops when the master's value (an upper bound) is within the gap of
// the best lower bound. With all pairs constrained, K has |In|(|In|-1)
// rows; each pricing model then starts from the 8-neighbour pairs and adds
// the violated pairs its solutions reveal (constraint generation).
type colGen struct {
	nIn, nOut int
	// costY[y*nIn+x] = scale c[x,y]: one output's costs contiguous, scaled
	// so that the cheapest constant channel costs nIn. The solvers'
	// tolerances are absolute (about 1e-9 per reduced cost); summed over
	// |Out| pricing bounds they would eat a 1e-6 relative gap on small
	// objectives (San Francisco at eps = 4 stalled at 5e-6 unscaled).
	costY []float64
	scale float64
	k     *geoPairs // K: the pricing cone, with the requested eps
	// colKern[x*nIn+z] = e^{-epsCol m(x,z)}, m being K's metric and
	// epsCol slightly below K's eps: master columns are mapped into this
	// smaller cone (see column), so that the channel keeps some slack.
	colKern []float64
	master  lp.Model
	// freeMaster frees the master and closes its backend.
	freeMaster func()
	pricers    []*pricer
	workers    []*cgWorker
	// running counts the workers that still hold models.
	running sync.WaitGroup
	// The master's columns: vector, output, cost, hash, rounds since
	// last used.
	pool    [][]float64
	poolY   []int
	poolH   []float64
	poolKey []uint64
	poolAge []int
	seen    map[uint64]bool
	seed    maphash.Seed
	opt     cgOptions
	st      cgStats
	// center holds the duals of the best lower bound.
	center []float64
}

type cgOptions struct {
	gap      float64   // stop when (upper - lower) <= gap * upper
	accept   float64   // ... or at a stall, when it is <= accept * upper
	alpha    float64   // Wentges smoothing weight of the stability centre
	workers  int       // pricing goroutines (each with its own models)
	master   string    // the master's solver ("": the pricing's)
	deadline time.Time // zero: none
	log      func(format string, args ...any)
	// stop, if set, is asked before every round: an error ends the run
	// with it (a caller's cancellation).
	stop func() error
}

type cgStats struct {
	rounds, masterIters, pricingIters, pricingRows int
	upper, lower                                   float64
	masterSec, pricingSec                          float64
}

// ErrTimeLimit is returned (wrapped) by a decomposition that reached
// Optimal.TimeLimit before certifying its gap.
var ErrTimeLimit = errors.New("LP time limit reached before the gap was certified")

// pricer is the pricing LP of one output.
type pricer struct {
	y     int
	model lp.Model
	// Rows k[i] v[a[i]] - v[b[i]] <= 0; has[a*nIn+b] marks the pairs in.
	a, b  []int32
	k     []float64
	has   []bool
	iters int
}

// cgWorker owns the pricing models of outputs y with y % len(workers) ==
// its index, on its own goroutine (GLPK needs every call to a model on
// the thread that made it).
type cgWorker struct {
	tasks chan cgTask
	done  chan []cgResult
}

type cgTask struct {
	ps []*pricer
	u  []float64
}

type cgResult struct {
	y     int
	v     []float64 // the minimiser, nil if it does not improve
	bound float64
	err   error
}

// newColGen sets up the master and the pricing workers for the costs
// c[x*nOut+y] on the cone k, with master columns in the cone of eps
// epsCol <= k.eps; extra[y] (optional) are pricing rows to start output
// y's model with beyond K's initial ones (pairs an earlier solve needed),
// and init are the first master columns.
func newColGen(solver string, nIn, nOut int, cost []float64, k *geoPairs, epsCol float64, extra [][]pairRow, init [][]float64, opt cgOptions) (*colGen, error) {
	cg := &colGen{nIn: nIn, nOut: nOut, k: k, opt: opt, seen: map[uint64]bool{}, seed: maphash.MakeSeed()}
	cg.costY = make([]float64, len(cost))
	for x := 0; x < nIn; x++ {
		for y := 0; y < nOut; y++ {
			cg.costY[y*nIn+x] = cost[x*nOut+y]
		}
	}
	ones := make([]float64, nIn)
	for i := range ones {
		ones[i] = 1
	}
	cg.scale = 1
	if _, h1 := cg.h(ones); h1 > 0 {
		cg.scale = float64(nIn) / h1
		for i := range cg.costY {
			cg.costY[i] *= cg.scale
		}
	}
	m := k.metric()
	cg.colKern = make([]float64, len(m))
	for i, d := range m {
		cg.colKern[i] = math.Exp(-epsCol * d)
	}
	back, err := lp.NewBackend(cmp.Or(opt.master, solver))
	if err != nil {
		return nil, err
	}
	cg.master, err = back.Model()
	if err != nil {
		back.Close()
		return nil, err
	}
	masterBack := back
	if err := cg.master.AddRows(ones, ones, make([]int32, nIn+1), nil, nil); err != nil {
		cg.master.Free()
		masterBack.Close()
		return nil, err
	}
	if _, err := cg.addColumns(init); err != nil {
		cg.master.Free()
		masterBack.Close()
		return nil, err
	}
	initial := k.initialRows()
	cg.pricers = make([]*pricer, nOut)
	for y := range cg.pricers {
		cg.pricers[y] = &pricer{y: y}
	}
	w := max(1, min(opt.workers, nOut))
	cg.workers = make([]*cgWorker, w)
	errs := make(chan error, w)
	for i := range cg.workers {
		cw := &cgWorker{tasks: make(chan cgTask), done: make(chan []cgResult)}
		cg.workers[i] = cw
		cg.running.Add(1)
		go cg.work(cw, solver, i, initial, extra, errs)
	}
	var firstErr error
	for range cg.workers {
		if err := <-errs; err != nil && firstErr == nil {
			firstErr = err
		}
	}
	// The master's backend stays with this goroutine; closing it is the
	// last step of free.
	cg.freeMaster = func() {
		cg.master.Free()
		masterBack.Close()
	}
	if firstErr != nil {
		cg.free()
		return nil, firstErr
	}
	return cg, nil
}

// work runs one worker: it makes its pricing models, then prices the
// tasks it receives until its task channel closes, then frees them.
func (cg *colGen) work(cw *cgWorker, solver string, i int, rows []pairRow, extra [][]pairRow, errs chan<- error) {
	defer cg.running.Done()
	back, err := lp.NewBackend(solver)
	if err != nil {
		errs <- err
		for range cw.tasks {
			cw.done <- nil
		}
		return
	}
	var mine []*pricer
	for y := i; y < cg.nOut; y += len(cg.workers) {
		p := cg.pricers[y]
		if err == nil {
			err = cg.newPricing(back, p, rows)
		}
		if err == nil && y < len(extra) {
			err = cg.addPricingRows(p, extra[y])
		}
		mine = append(mine, p)
	}
	errs <- err
	for t := range cw.tasks {
		res := make([]cgResult, len(t.ps))
		for j, p := range t.ps {
			res[j] = cg.price(back, p, t.u)
		}
		cw.done <- res
	}
	for _, p := range mine {
		if p.model != nil {
			p.model.Free()
		}
	}
	back.Close()
}

// newPricing makes p's model: variables v in [0,1]^nIn, K's initial rows.
func (cg *colGen) newPricing(back *lp.Backend, p *pricer, rows []pairRow) error {
	m, err := back.Model()
	if err != nil {
		return err
	}
	p.model = m
	n := cg.nIn
	p.has = make([]bool, n*n)
	zero, one := make([]float64, n), make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	if err := m.AddCols(zero, zero, one, make([]int32, n+1), nil, nil); err != nil {
		return err
	}
	return cg.addPricingRows(p, rows)
}

// rebuildPricing replaces p's model by a fresh one with the same rows.
func (cg *colGen) rebuildPricing(back *lp.Backend, p *pricer) error {
	rows := make([]pairRow, len(p.a))
	for i := range rows {
		rows[i] = pairRow{p.a[i], p.b[i], 0}
	}
	ks := p.k
	p.model.Free()
	p.a, p.b, p.k = nil, nil, nil
	if err := cg.newPricing(back, p, nil); err != nil {
		return err
	}
	return cg.addPricingRowsK(p, rows, ks)
}

// free stops the workers and releases every model.
func (cg *colGen) free() {
	for _, w := range cg.workers {
		close(w.tasks)
	}
	cg.workers = nil
	cg.running.Wait()
	if cg.freeMaster != nil {
		cg.freeMaster()
		cg.freeMaster = nil
	}
}

// addPricingRows adds the rows k v[a] - v[b] <= 0 of the pairs rs to p.
func (cg *colGen) addPricingRows(p *pricer, rs []pairRow) error {
	return cg.addPricingRowsK(p, rs, nil)
}

// addPricingRowsK is addPricingRows with the factors ks given (nil: from
// the pairs' distances).
func (cg *colGen) addPricingRowsK(p *pricer, rs []pairRow, ks []float64) error {
	if len(rs) == 0 {
		return nil
	}
	lo, up := make([]float64, len(rs)), make([]float64, len(rs))
	start := make([]int32, len(rs)+1)
	idx := make([]int32, 0, 2*len(rs))
	val := make([]float64, 0, 2*len(rs))
	for i, r := range rs {
		lo[i] = math.Inf(-1)
		start[i+1] = int32(2 * (i + 1))
		idx = append(idx, r.a, r.b)
		var k float64
		if ks != nil {
			k = ks[i]
		} else {
			k = cg.k.factor(r)
		}
		val = append(val, k, -1)
		p.a, p.b, p.k = append(p.a, r.a), append(p.b, r.b), append(p.k, k)
		p.has[int(r.a)*cg.nIn+int(r.b)] = true
	}
	return p.model.AddRows(lo, up, start, idx, val)
}

// price solves p's LP at duals u: min (c[.,y] - u).v over v in P, adding
// violated pairs when K is all pairs. It returns the certified bound and
// the minimiser if it improves the master (clearly negative value).
func (cg *colGen) price(back *lp.Backend, p *pricer, u []float64) cgResult {
	n := cg.nIn
	c := cg.costY[p.y*n : (p.y+1)*n]
	w := make([]float64, n)
	scale := 0.0
	for x := range w {
		w[x] = c[x] - u[x]
		scale += math.Abs(w[x])
	}
	p.model.SetObj(w)
	v := make([]float64, n)
	dual := false
	before := p.model.Iterations()
	rebuilt := false
	for {
		sec, err := cg.remaining()
		if err == nil {
			err = cg.timedOut(p.model.Solve(dual, sec))
		}
		if err != nil && !errors.Is(err, ErrTimeLimit) && !rebuilt {
			// A numerical failure after many warm starts: start this
			// output's model afresh with the rows it has gathered.
			rebuilt = true
			p.iters += p.model.Iterations() - before
			if err = cg.rebuildPricing(back, p); err == nil {
				before = p.model.Iterations()
				p.model.SetObj(w)
				dual = false
				continue
			}
		}
		if err != nil {
			return cgResult{y: p.y, err: fmt.Errorf("pricing output %d: %w", p.y, err)}
		}
		p.model.Solution(v, nil)
		rs := cg.k.separate(nil, v, cutTol)
		// A pair already in the model can only be "violated" within the
		// solver's tolerance; adding it again would loop.
		kept := rs[:0]
		for _, r := range rs {
			if !p.has[int(r.a)*n+int(r.b)] {
				kept = append(kept, r)
			}
		}
		rs = kept
		if len(rs) == 0 {
			break
		}
		if err := cg.addPricingRows(p, rs); err != nil {
			return cgResult{y: p.y, err: err}
		}
		dual = true
	}
	p.iters += p.model.Iterations() - before
	mu := make([]float64, len(p.a))
	p.model.Solution(nil, mu)
	red := append([]float64(nil), w...)
	for i, d := range mu {
		if d < 0 {
			red[p.a[i]] -= d * p.k[i]
			red[p.b[i]] += d
		}
	}
	// With m_i = min(mu_i, 0), every v of P has (c - u).v >=
	// (c - u - A^T m).v >= sum_x min(0, (c - u - A^T m)_x), as
	// m_i (k_i v[a_i] - v[b_i]) >= 0 and 0 <= v <= 1. The rows are a subset
	// of K's, so this bounds the minimum over the whole of P too, whatever
	// the solver's tolerances.
	res := cgResult{y: p.y}
	for _, r := range red {
		res.bound += math.Min(0, r)
	}
	// The solver may leave entries a tolerance below 0; a column is made
	// of the clamped values, and only a clearly negative value counts.
	val, top := 0.0, 0.0
	for x, wx := range w {
		v[x] = math.Max(v[x], 0)
		val += wx * v[x]
		top = math.Max(top, v[x])
	}
	if val < -colTol*scale && top > 0 {
		res.v = v
	}
	return res
}

// cutTol is the violation k v[a] - v[b] above which a pair is added to a
// pricing model (the solvers' feasibility tolerance is 1e-9).
const cutTol = 2e-9

// colTol is the reduced cost, relative to the pricing objective's l1 norm,
// below which a pricing solution enters the master (about the solvers'
// optimality tolerance).
const colTol = 1e-10

// h returns the cheapest output for r and its cost.
func (cg *colGen) h(r []float64) (int, float64) {
	best, by := math.Inf(1), 0
	for y := 0; y < cg.nOut; y++ {
		c := cg.costY[y*cg.nIn : (y+1)*cg.nIn]
		s := 0.0
		for x, v := range r {
			s += c[x] * v
		}
		if s < best {
			best, by = s, y
		}
	}
	return by, best
}

// column maps a pricing solution v (in K up to the solver's tolerance)
// into the master's cone: it returns the smallest vector of that cone
// above v, r[x] = max_z v[z] e^{-epsCol m(x,z)}, scaled to a largest entry
// of 1. r belongs to the cone exactly (up to rounding: by the triangle
// inequality of m, r[x] >= e^{-epsCol m(x,x')} r[x'] for all x, x'), has no
// zero entry unless e^{-epsCol m} underflows, and, as v is in K, exceeds v
// by at most a factor e^{(eps - epsCol) m}. It returns nil for a v with
// no positive entry.
func (cg *colGen) column(v []float64) []float64 {
	n := cg.nIn
	r := make([]float64, n)
	top := 0.0
	for x := range r {
		kx := cg.colKern[x*n : (x+1)*n]
		best := 0.0
		for z, vz := range v {
			if t := vz * kx[z]; t > best {
				best = t
			}
		}
		r[x] = best
		top = math.Max(top, best)
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return nil
	}
	for x := range r {
		r[x] /= top
	}
	return r
}

// addColumns maps the vectors vs into the column cone and adds those not
// yet in the master; it returns how many were new.
func (cg *colGen) addColumns(vs [][]float64) (int, error) {
	var cost, lb, ub, val []float64
	var idx []int32
	start := []int32{0}
	for _, v := range vs {
		r := cg.column(v)
		if r == nil {
			continue
		}
		key := maphash.Bytes(cg.seed, float64Bytes(r))
		if cg.seen[key] {
			continue
		}
		cg.seen[key] = true
		y, c := cg.h(r)
		cg.pool, cg.poolY, cg.poolH = append(cg.pool, r), append(cg.poolY, y), append(cg.poolH, c)
		cg.poolKey, cg.poolAge = append(cg.poolKey, key), append(cg.poolAge, 0)
		cost, lb, ub = append(cost, c), append(lb, 0), append(ub, math.Inf(1))
		for x, rx := range r {
			if rx > 0 {
				idx, val = append(idx, int32(x)), append(val, rx)
			}
		}
		start = append(start, int32(len(idx)))
	}
	return len(cost), cg.master.AddCols(cost, lb, ub, start, idx, val)
}

// Columns unused for purgeAge rounds leave the master once it holds more
// than purgeMin columns per row: its simplex prices every column at every
// iteration, and on San Francisco the pool grows past 6000 dense columns.
const (
	purgeAge = 20
	purgeMin = 4
)

// purge ages the columns (lambda > 0 resets the age) and deletes the old
// ones that are nonbasic (reduced cost clearly positive at the duals u),
// forgetting them so that pricing may bring them back.
func (cg *colGen) purge(lambda, u []float64) error {
	var del []int32
	for j, l := range lambda {
		if l > 0 {
			cg.poolAge[j] = 0
			continue
		}
		cg.poolAge[j]++
		if cg.poolAge[j] < purgeAge || len(cg.pool) <= purgeMin*cg.nIn {
			continue
		}
		rc := cg.poolH[j]
		for x, v := range cg.pool[j] {
			rc -= u[x] * v
		}
		if rc > 1e-9*(1+math.Abs(cg.poolH[j])) {
			del = append(del, int32(j))
		}
	}
	if len(del) == 0 {
		return nil
	}
	if err := cg.master.DelCols(del); err != nil {
		return err
	}
	keep := 0
	d := 0
	for j := range cg.pool {
		if d < len(del) && int32(j) == del[d] {
			delete(cg.seen, cg.poolKey[j])
			d++
			continue
		}
		cg.pool[keep], cg.poolY[keep], cg.poolH[keep] = cg.pool[j], cg.poolY[j], cg.poolH[j]
		cg.poolKey[keep], cg.poolAge[keep] = cg.poolKey[j], cg.poolAge[j]
		keep++
	}
	cg.pool, cg.poolY, cg.poolH = cg.pool[:keep], cg.poolY[:keep], cg.poolH[:keep]
	cg.poolKey, cg.poolAge = cg.poolKey[:keep], cg.poolAge[:keep]
	return nil
}

func float64Bytes(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, f := range v {
		u := math.Float64bits(f)
		for j := 0; j < 8; j++ {
			b[8*i+j] = byte(u >> (8 * j))
		}
	}
	return b
}

// timedOut turns a solver's failure into ErrTimeLimit once the deadline
// has passed: the solvers stop at the time limit they are given and
// report it as a status of their own.
func (cg *colGen) timedOut(err error) error {
	if err != nil && !errors.Is(err, ErrTimeLimit) && !cg.opt.deadline.IsZero() && !time.Now().Before(cg.opt.deadline) {
		return fmt.Errorf("%w (%v)", ErrTimeLimit, err)
	}
	return err
}

// remaining is the time left before the deadline (0: no deadline).
func (cg *colGen) remaining() (float64, error) {
	if cg.opt.deadline.IsZero() {
		return 0, nil
	}
	s := time.Until(cg.opt.deadline).Seconds()
	if s <= 0 {
		return 0, ErrTimeLimit
	}
	return s, nil
}

// run alternates master and pricing until the gap closes and returns the
// master's lambda (one per pool column).
func (cg *colGen) run() ([]float64, error) {
	nIn := cg.nIn
	u := make([]float64, nIn)
	cg.st.lower = math.Inf(-1)
	if cg.center == nil {
		// u = 0 is a dual with a known bound: the costs are >= 0, so every
		// pricing minimum is 0 and L(0) = 0. Starting the smoothing from it
		// keeps the first rounds' wild duals (the initial master is very
		// degenerate, most of all at small eps) from being priced raw.
		cg.center = make([]float64, nIn)
		cg.st.lower = 0
	}
	var lambda []float64
	misses := 0
	for {
		if cg.opt.stop != nil {
			if err := cg.opt.stop(); err != nil {
				return nil, fmt.Errorf("stopped before round %d: %w", cg.st.rounds+1, err)
			}
		}
		cg.st.rounds++
		sec, err := cg.remaining()
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := cg.timedOut(cg.master.Solve(false, sec)); err != nil {
			return nil, fmt.Errorf("master LP, round %d (%d columns): %w", cg.st.rounds, len(cg.pool), err)
		}
		cg.st.masterSec += time.Since(t0).Seconds()
		lambda = make([]float64, len(cg.pool))
		cg.master.Solution(lambda, u)
		upper := 0.0
		for j, l := range lambda {
			upper += l * cg.poolH[j]
		}
		cg.st.upper = upper
		// After k rounds in a row without a new column (mispricing: the
		// smoothed duals found nothing the master lacks) the weight falls
		// to 1 - (k+1)(1 - alpha), reaching the master's own duals, where
		// pricing either finds a new column or certifies the master.
		alpha := 0.0
		if cg.center != nil {
			alpha = math.Max(0, 1-float64(misses+1)*(1-cg.opt.alpha))
		}
		us := u
		if alpha > 0 {
			us = make([]float64, nIn)
			for x := range us {
				us[x] = alpha*cg.center[x] + (1-alpha)*u[x]
			}
		}
		t1 := time.Now()
		lower, fresh, err := cg.priceAll(us)
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", cg.st.rounds, err)
		}
		cg.st.pricingSec += time.Since(t1).Seconds()
		if lower > cg.st.lower {
			cg.st.lower = lower
			cg.center = append(cg.center[:0], us...)
		}
		if cg.opt.log != nil {
			rows, iters := 0, 0
			for _, p := range cg.pricers {
				rows, iters = rows+len(p.a), iters+p.iters
			}
			cg.opt.log("round %d: columns %d upper %.12g lower %.12g best %.12g gap %.3g alpha %.2f new %d pricing rows %d iterations %d, time master %.1fs pricing %.1fs",
				cg.st.rounds, len(cg.pool), upper, lower, cg.st.lower, (upper-cg.st.lower)/upper, alpha, len(fresh), rows, iters, cg.st.masterSec, cg.st.pricingSec)
		}
		if upper-cg.st.lower <= cg.opt.gap*upper {
			break
		}
		if err := cg.purge(lambda, u); err != nil {
			return nil, err
		}
		added, err := cg.addColumns(fresh)
		if err != nil {
			return nil, err
		}
		switch {
		case added > 0:
			misses = 0
		case alpha == 0:
			// Pricing at the master's own duals finds nothing new: the
			// solvers' tolerances leave no further progress.
			if upper-cg.st.lower <= cg.opt.accept*upper {
				return lambda, cg.finish()
			}
			return nil, fmt.Errorf("round %d: no new column at the master's duals but gap %.3g above %.3g (solver tolerances)",
				cg.st.rounds, (upper-cg.st.lower)/upper, cg.opt.accept)
		default:
			misses++
		}
	}
	return lambda, cg.finish()
}

// finish collects the run's counts into cg.st.
func (cg *colGen) finish() error {
	cg.st.masterIters = cg.master.Iterations()
	for _, p := range cg.pricers {
		cg.st.pricingIters += p.iters
		cg.st.pricingRows += len(p.a)
	}
	return nil
}

// priceAll prices every output at the duals u and returns the certified
// lower bound L(u) and the improving columns, in output order.
func (cg *colGen) priceAll(u []float64) (float64, [][]float64, error) {
	tasks := make([][]*pricer, len(cg.workers))
	for y, p := range cg.pricers {
		w := y % len(cg.workers)
		tasks[w] = append(tasks[w], p)
	}
	for w, cw := range cg.workers {
		cw.tasks <- cgTask{ps: tasks[w], u: u}
	}
	bounds := make([]float64, cg.nOut)
	vs := make([][]float64, cg.nOut)
	var firstErr error
	for _, cw := range cg.workers {
		for _, r := range <-cw.done {
			if r.err != nil && firstErr == nil {
				firstErr = r.err
			}
			bounds[r.y], vs[r.y] = r.bound, r.v
		}
	}
	if firstErr != nil {
		return 0, nil, firstErr
	}
	lower := 0.0
	for _, ux := range u {
		lower += ux
	}
	var fresh [][]float64
	for y := range vs {
		lower += bounds[y]
		if vs[y] != nil {
			fresh = append(fresh, vs[y])
		}
	}
	return lower, fresh, nil
}

// channel assembles the master's solution lambda into the channel matrix
// C[x*nOut+y].
func (cg *colGen) channel(lambda []float64) []float64 {
	p := make([]float64, cg.nIn*cg.nOut)
	for j, l := range lambda {
		if l <= 0 {
			continue
		}
		y := cg.poolY[j]
		for x, v := range cg.pool[j] {
			p[x*cg.nOut+y] += l * v
		}
	}
	return p
}

// pricingPairs returns, per output, the rows its pricing model added
// beyond K's initial ones, for a later solve to start from.
func (cg *colGen) pricingPairs() [][]pairRow {
	if cg.k.edges != nil {
		return nil
	}
	n0 := len(cg.k.initialRows())
	out := make([][]pairRow, cg.nOut)
	for y, p := range cg.pricers {
		for i := n0; i < len(p.a); i++ {
			a, b := p.a[i], p.b[i]
			out[y] = append(out[y], pairRow{a, b, kernels.Dist(cg.k.g, int(a), cg.k.g, int(b))})
		}
	}
	return out
}
