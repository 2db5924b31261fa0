package kernels

import (
	"fmt"
	"math"

	"privic/kernels/internal/asm"
)

// IBUConfig selects the stopping rule of IBU and GIBU.
type IBUConfig struct {
	// Iterations > 0 runs exactly that many updates (the reference code).
	// Iterations == 0 iterates until the largest change of an estimate
	// entry, max_x |theta_r(x) - theta_{r-1}(x)|, is below Delta.
	Iterations int
	// Delta is the convergence threshold (> 0) when Iterations == 0.
	Delta float64
	// MaxIterations caps convergence mode (0 means DefaultMaxIterations).
	// Reaching the cap is not an error: the caller sees iters == cap.
	MaxIterations int
}

// DefaultMaxIterations is the iteration cap of the convergence modes of BA
// and IBU when the configuration leaves it at zero.
const DefaultMaxIterations = 10000

func (cfg IBUConfig) limits() (maxIter int, converge bool, err error) {
	return iterLimits(cfg.Iterations, cfg.Delta, cfg.MaxIterations)
}

func iterLimits(iterations int, delta float64, maxIterations int) (int, bool, error) {
	switch {
	case iterations < 0:
		return 0, false, fmt.Errorf("iterations = %d: must be >= 0", iterations)
	case iterations > 0:
		return iterations, false, nil
	}
	if err := checkPositive("delta", delta); err != nil {
		return 0, false, fmt.Errorf("convergence mode (iterations = 0): %w", err)
	}
	switch {
	case maxIterations < 0:
		return 0, false, fmt.Errorf("max iterations = %d: must be >= 0", maxIterations)
	case maxIterations == 0:
		maxIterations = DefaultMaxIterations
	}
	return maxIterations, true, nil
}

// Batch is one set of reports for GIBU: the channel that produced them and
// the report counts (or any non-negative weights) over its output grid.
type Batch struct {
	Channel ChannelOp
	Counts  []float64
}

// denseBatch is a Batch on a dense channel, for the dense GIBU: check
// says whether the channel's rows are to be checked (see denseForm).
type denseBatch struct {
	ch     *Channel
	counts []float64
	check  bool
}

// IBU estimates the input distribution of a channel from the report
// distribution q (over its output grid, summing to 1 within
// StochasticTol*len) by iterative Bayesian update,
//
//	theta_{r+1}(x) = theta_r(x) sum_y q(y) C[x,y] / sum_z theta_r(z) C[z,y],
//
// starting from start (a distribution over the input grid; nil means
// uniform). It returns the estimate and the number of updates done.
//
// Zero-probability outputs never produce NaN: a report y with q(y) = 0 is
// skipped, and so is one the current estimate cannot produce
// (sum_z theta_r(z) C[z,y] = 0); each estimate is renormalised to sum 1, so
// in exact arithmetic nothing changes when no report is skipped, and
// otherwise the estimate is the one conditioned on the explainable reports.
// If no report at all can be explained IBU returns an error. Cells with
// theta(x) = 0 stay at zero.
//
// The code path follows op's concrete type (see ChannelOp). On a dense
// channel every iteration is one fused pass over the matrix. On a
// *BAChannel of DenseOpCells cells or more, or one from
// BAChannel.Factorised at any size, it iterates the factorisation C = diag(1/Z) K diag(c)
// without materialising the channel:
//
//	den = theta C = c .* K(theta ./ Z),  theta' = theta ./ Z .* K(c .* q ./ den),
//
// two products with K per iteration instead of two passes over the
// m x m matrix (the BA/IBU duality: the same products as a BA step; on
// large grids certified FFT products, see BA). On small grids that agrees
// with the dense IBU to rounding, and channels that BA iterated in the
// log domain (large beta) are materialised and handed to the dense IBU.
// On large grids nothing is materialised: log-domain channels, and runs
// in which some reported output becomes (nearly) impossible under the
// estimate (the case the dense IBU's careful step handles), iterate in
// the log domain with log-sum-exp products. On other operators each
// iteration is den = C^T theta, theta' = theta .* C(q ./ den) with
// Apply and ApplyT, renormalised, with the same zero handling; when some
// den(y) is below 1e-280 the ratios are scaled by the smallest one, so
// that none overflows (the update does not depend on their scale).
func IBU(op ChannelOp, q, start []float64, cfg IBUConfig) ([]float64, int, error) {
	var w IBUWorkspace
	return w.IBU(nil, op, q, start, cfg)
}

// GIBU is IBU over several batches of reports (the paper's Definition 2.6,
// after Elsalamouny and Palamidessi): with N = sum of all counts,
//
//	theta_{r+1}(x) = (1/N) sum_t sum_y counts_t(y) theta_r(x) C_t[x,y] / sum_z theta_r(z) C_t[z,y].
//
// All channels must share the input grid; their output grids may differ.
// Every batch needs a positive total count.
// One batch with counts n*q gives exactly IBU with q. When every batch's
// channel has a dense form (see ChannelOp) GIBU runs on the matrices,
// else on the operators with Apply and ApplyT.
func GIBU(batches []Batch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	var w IBUWorkspace
	return w.GIBU(nil, batches, start, cfg)
}

// IBUWorkspace holds the buffers of IBU and GIBU so that repeated calls
// allocate nothing once they have grown to the problem size. A workspace
// must not be used by two goroutines at once. Its reuse changes no result
// on dense channels (and on the dense forms of small operators); on a BA
// channel with FFT products (from DenseOpCells cells) it also keeps the
// near/far split its products learned on that channel, which saves FFTs
// and agrees with a fresh workspace's estimate to the products' certified
// rounding, not bit for bit.
type IBUWorkspace struct {
	prev, s, dot    []float64
	den, r, scratch []float64
	iz              []float64 // 1/Z of the factorised IBU
	dens, rs        [][]float64
	batch           [1]denseBatch
	batches         []denseBatch
	kw              kprodWork
	sites           [2]kprodSite // K a and K r of the factorised IBU
	sitesFor        *kprod       // the plan sites describes
	// Work of the last IBU or GIBU, for tests of its cost: careful steps
	// taken, and passes over a dense channel (asm.DensePass calls).
	careful, passes int
}

// grow returns b resliced to n entries, or a new zeroed slice when b's
// capacity is short.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// IBU is the package-level IBU writing the estimate into dst (grown if its
// capacity is short) and reusing the workspace's buffers: no allocations
// once warm on dense channels and BA channels.
func (w *IBUWorkspace) IBU(dst []float64, op ChannelOp, q, start []float64, cfg IBUConfig) ([]float64, int, error) {
	if ch, check, ok := denseForm(op); ok {
		return w.ibu(dst, ch, q, start, cfg, check)
	}
	switch c := op.(type) {
	case nil:
		return nil, 0, fmt.Errorf("ibu: channel is nil")
	case *BAChannel:
		return w.ibuOnBA(dst, c, q, start, cfg)
	case factorisedBA:
		return w.ibuOnBA(dst, c.BAChannel, q, start, cfg)
	}
	_, out := op.Grids()
	if err := checkDist("ibu: report distribution q", q, out.Len()); err != nil {
		return nil, 0, err
	}
	est, it, err := gibuOps("ibu", []Batch{{op, q}}, start, cfg)
	return into(dst, est), it, err
}

// into returns est, copied into dst when dst has the capacity.
func into(dst, est []float64) []float64 {
	if est == nil || cap(dst) < len(est) {
		return est
	}
	dst = dst[:len(est)]
	copy(dst, est)
	return dst
}

// ibu is IBU on a dense channel; checkEntries false skips the
// O(|X||Y|) check of the channel's rows (see denseForm).
func (w *IBUWorkspace) ibu(dst []float64, ch *Channel, q, start []float64, cfg IBUConfig, checkEntries bool) ([]float64, int, error) {
	// The shape first: q is checked against the output grid's size.
	if err := checkChannelShape(ch); err != nil {
		return nil, 0, fmt.Errorf("ibu: %w", err)
	}
	if err := checkDist("ibu: report distribution q", q, ch.Out.Len()); err != nil {
		return nil, 0, err
	}
	w.batch[0] = denseBatch{ch: ch, counts: q, check: checkEntries}
	est, it, err := w.run("ibu", dst, w.batch[:], start, cfg)
	w.batch[0] = denseBatch{}
	return est, it, err
}

// GIBU is the package-level GIBU writing the estimate into dst and reusing
// the workspace's buffers (no allocations once warm on dense channels).
func (w *IBUWorkspace) GIBU(dst []float64, batches []Batch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	w.batches = grow(w.batches, len(batches))
	defer clear(w.batches)
	for t, b := range batches {
		ch, check, ok := denseForm(b.Channel)
		if !ok {
			est, it, err := gibuOps("gibu", batches, start, cfg)
			return into(dst, est), it, err
		}
		w.batches[t] = denseBatch{ch: ch, counts: b.Counts, check: check}
	}
	return w.run("gibu", dst, w.batches, start, cfg)
}

// run is the dense IBU and GIBU.
func (w *IBUWorkspace) run(name string, dst []float64, batches []denseBatch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	maxIter, converge, err := cfg.limits()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if len(batches) == 0 {
		return nil, 0, fmt.Errorf("%s: no batches", name)
	}
	in := Grid{}
	total := 0.0
	for t, b := range batches {
		ch := b.ch
		if err := checkChannelShape(ch); err != nil {
			return nil, 0, fmt.Errorf("%s: batch %d: %w", name, t, err)
		}
		if t == 0 {
			in = ch.In
		} else if ch.In != in {
			return nil, 0, fmt.Errorf("%s: batch %d: channel input %v differs from batch 0's %v", name, t, ch.In, in)
		}
		n, err := checkWeights("counts", b.counts, ch.Out.Len())
		if err != nil {
			return nil, 0, fmt.Errorf("%s: batch %d: %w", name, t, err)
		}
		total += n
		if !b.check {
			continue
		}
		if bad := checkRows(ch.P, ch.In.Len(), ch.Out.Len()); bad >= 0 {
			return nil, 0, fmt.Errorf("%s: batch %d: channel row %d is not a distribution (entries finite and >= 0, sum 1 within %g)",
				name, t, bad, StochasticTol*float64(ch.Out.Len()))
		}
	}
	if math.IsInf(total, 1) {
		return nil, 0, fmt.Errorf("%s: total count overflows", name)
	}
	m := in.Len()
	theta := grow(dst, m)
	if start == nil {
		for i := range theta {
			theta[i] = 1 / float64(m)
		}
	} else {
		if err := checkDist(name+": start", start, m); err != nil {
			return nil, 0, err
		}
		copy(theta, start)
	}
	w.prev = grow(w.prev, m)
	w.s = grow(w.s, m)
	w.careful, w.passes = 0, 0
	var iters int
	if len(batches) == 1 {
		iters, err = w.runOne(theta, batches[0], 1/total, maxIter, converge, cfg.Delta)
	} else {
		iters, err = w.runMany(theta, batches, 1/total, maxIter, converge, cfg.Delta)
	}
	if err != nil {
		return nil, iters, fmt.Errorf("%s: %w", name, err)
	}
	return theta, iters, nil
}

// checkChannelShape checks the parts of a channel that are cheap to check;
// the entries are checked by checkRows.
func checkChannelShape(ch *Channel) error {
	if ch == nil {
		return fmt.Errorf("channel is nil")
	}
	if err := ch.In.Validate(); err != nil {
		return fmt.Errorf("channel input %w", err)
	}
	if err := ch.Out.Validate(); err != nil {
		return fmt.Errorf("channel output %w", err)
	}
	if len(ch.P) != ch.In.Len()*ch.Out.Len() {
		return fmt.Errorf("channel %v -> %v has %d entries, want %d", ch.In, ch.Out, len(ch.P), ch.In.Len()*ch.Out.Len())
	}
	return nil
}

// denTiny is the smallest report probability den(y) = sum_x theta(x) C[x,y]
// the fast passes trust. Above it the products theta(x) C[x,y] that
// underflow (each below 2.3e-308) are negligible against den(y), and the
// ratios q(y)/den(y) stay below 1e290, so no sum overflows. A report with
// q(y) > 0 and a smaller den(y) (possibly 0 by underflow although some
// theta(x) C[x,y] > 0) sends that iteration to carefulStep.
const denTiny = 1e-290

// ratios sets r[y] = scale*counts[y]/den[y], or 0 where counts[y] = 0.
// It reports false if some report with counts[y] > 0 has den[y] < denTiny;
// r is then not used (the careful step replaces the iteration), so a
// den[y] = 0 needs no guard.
func ratios(r, counts, den []float64, scale float64) (ok bool) {
	r = r[:len(den)]
	counts = counts[:len(den)]
	ok = true
	for y, d := range den {
		v := 0.0
		if c := counts[y]; c > 0 {
			if d < denTiny {
				ok = false
			}
			v = scale * c / d
		}
		r[y] = v
	}
	return ok
}

// normalize divides theta by its sum and returns the sum. When the sum is
// not positive and finite theta is left meaningless: every caller then
// fails with errUnexplained, or cannot meet that case.
func normalize(theta []float64) float64 {
	s := 0.0
	for _, v := range theta {
		s += v
	}
	if inv := 1 / s; !math.IsInf(inv, 1) {
		for i := range theta {
			theta[i] *= inv
		}
	} else {
		for i := range theta { // s is subnormal
			theta[i] /= s
		}
	}
	return s
}

func maxAbsDiff(a, b []float64) float64 {
	b = b[:len(a)]
	d := 0.0
	for i, v := range a {
		d = max(d, math.Abs(v-b[i]))
	}
	return d
}

var errUnexplained = fmt.Errorf("no report can be produced by the current estimate (all weighted reports have zero probability)")

// carefulStep is one GIBU update done in the log domain, for iterations in
// which some reported output is (nearly) impossible under theta:
//
//	ln den_t(y) = log-sum-exp over x of ln theta(x) + ln C_t[x,y],
//	theta'(x) = sum_t sum_y w_t(y) exp(ln theta(x) + ln C_t[x,y] - ln den_t(y)),
//
// with w_t = counts_t * scale. Every term is at most w_t(y), so nothing
// overflows, and den_t(y) is exact even when all its products underflow.
// next must have len(theta) entries; lt is scratch of the same length.
func carefulStep(next, theta, lt []float64, batches []denseBatch, scale float64) {
	negInf := math.Inf(-1)
	for x, v := range theta {
		lt[x] = log(v) // -Inf for 0
	}
	clear(next)
	for _, b := range batches {
		ch := b.ch
		m, n := ch.In.Len(), ch.Out.Len()
		for y := 0; y < n; y++ {
			w := b.counts[y] * scale
			if !(w > 0) {
				continue
			}
			// A term with theta(x) = 0 or C[x,y] = 0 is -Inf (never NaN:
			// no log of a finite number is +Inf): it leaves mx as it is and
			// adds exp(-Inf) = 0 to the sums.
			mx := negInf
			for x := 0; x < m; x++ {
				mx = max(mx, lt[x]+log(ch.P[x*n+y]))
			}
			if mx == negInf {
				continue // y is impossible: skipped
			}
			sum := 0.0
			for x := 0; x < m; x++ {
				sum += math.Exp(lt[x] + log(ch.P[x*n+y]) - mx)
			}
			lden := mx + log(sum)
			for x := 0; x < m; x++ {
				next[x] += w * math.Exp(lt[x]+log(ch.P[x*n+y])-lden)
			}
		}
	}
}

// runOne is IBU with one channel: every iteration is one fused pass over
// the channel that finishes theta_{r+1}(x) row by row and, while the row is
// in cache, adds theta_{r+1}(x) C[x,:] to the next iteration's den.
func (w *IBUWorkspace) runOne(theta []float64, b denseBatch, scale float64, maxIter int, converge bool, delta float64) (int, error) {
	ch := b.ch
	m, n := ch.In.Len(), ch.Out.Len()
	p := ch.P
	w.den = grow(w.den, n)
	w.r = grow(w.r, n)
	w.dot = grow(w.dot, m)
	den, r := w.den, w.r
	fresh := false // den holds theta C for the current theta
	for it := 1; it <= maxIter; it++ {
		if converge {
			copy(w.prev, theta)
		}
		if !fresh {
			clear(den)
			w.passes++
			asm.DensePass(p, m, n, r, den, theta, w.s, passAxpy)
		}
		fresh = false
		if !ratios(r, b.counts, den, scale) {
			w.carefulOne(theta, b, scale)
		} else {
			mode := passFused
			if it == maxIter {
				mode = passUpdate // the next den is not needed
			} else {
				clear(den)
			}
			w.passes++
			asm.DensePass(p, m, n, r, den, theta, w.s, mode)
			fresh = mode == passFused
		}
		sum := normalize(theta)
		if !(sum > 0) || math.IsInf(sum, 1) {
			return it, errUnexplained
		}
		if fresh {
			if inv := 1 / sum; !math.IsInf(inv, 1) {
				for y := range den {
					den[y] *= inv
				}
			} else {
				fresh = false // recompute from the normalised theta
			}
		}
		if converge && maxAbsDiff(theta, w.prev) < delta {
			return it, nil
		}
	}
	return maxIter, nil
}

// carefulOne replaces theta by carefulStep's update for one batch.
func (w *IBUWorkspace) carefulOne(theta []float64, b denseBatch, scale float64) {
	w.careful++
	one := [1]denseBatch{b}
	carefulStep(w.dot, theta, w.s, one[:], scale)
	copy(theta, w.dot)
}

// runMany is GIBU with several channels: per iteration, one axpy pass per
// batch for its den, then one dot pass per batch accumulating
// s(x) = sum_t <C_t[x,:], r_t>.
func (w *IBUWorkspace) runMany(theta []float64, batches []denseBatch, scale float64, maxIter int, converge bool, delta float64) (int, error) {
	w.dens = grow(w.dens, len(batches))
	w.rs = grow(w.rs, len(batches))
	s := w.s
	w.dot = grow(w.dot, len(theta))
	dot := w.dot
	for it := 1; it <= maxIter; it++ {
		if converge {
			copy(w.prev, theta)
		}
		ok := true
		for t, b := range batches {
			ch := b.ch
			m, n := ch.In.Len(), ch.Out.Len()
			w.dens[t] = grow(w.dens[t], n)
			w.rs[t] = grow(w.rs[t], n)
			clear(w.dens[t])
			w.passes++
			asm.DensePass(ch.P, m, n, w.rs[t], w.dens[t], theta, nil, passAxpy)
			ok = ratios(w.rs[t], b.counts, w.dens[t], scale) && ok
		}
		if ok {
			clear(s)
			for t, b := range batches {
				ch := b.ch
				m, n := ch.In.Len(), ch.Out.Len()
				w.passes++
				asm.DensePass(ch.P, m, n, w.rs[t], w.dens[t], dot, nil, passDot)
				for x, v := range dot {
					s[x] += v
				}
			}
			for x := range theta {
				theta[x] *= s[x]
			}
		} else {
			w.careful++
			carefulStep(dot, theta, s, batches, scale)
			copy(theta, dot)
		}
		if sum := normalize(theta); !(sum > 0) || math.IsInf(sum, 1) {
			return it, errUnexplained
		}
		if converge && maxAbsDiff(theta, w.prev) < delta {
			return it, nil
		}
	}
	return maxIter, nil
}

// Factorised returns b as an operator that IBU and GIBU, Obfuscate, MAPGuess
// and the metrics use in its factorised form C = diag(1/Z) K diag(c) at
// every size. b itself is used in its dense form below DenseOpCells
// cells (see ChannelOp), for the bits of the dense path; the factorised
// form agrees with it to rounding (and, for Obfuscate, in distribution)
// and, for IBU on the paper's grids, costs two stencil products per
// iteration instead of two passes over the m x m matrix. As on large
// grids, a channel that BA iterated in the log domain (large beta) is
// materialised by IBU, and the metrics of the factorised form refuse it.
func (b *BAChannel) Factorised() ChannelOp { return factorisedBA{b} }

// factorisedBA is a BA channel without a dense form.
type factorisedBA struct{ *BAChannel }

// smallDense implements smallDenser: none.
func (factorisedBA) smallDense() *Channel { return nil }

// checkIBUOnBA checks the configuration, the report distribution q and
// the start (nil for uniform) of IBU on a BA channel of m cells, and
// returns the configuration's iteration limits.
func checkIBUOnBA(cfg IBUConfig, q, start []float64, m int) (maxIter int, converge bool, err error) {
	maxIter, converge, err = cfg.limits()
	if err != nil {
		return 0, false, fmt.Errorf("ibu: %w", err)
	}
	if err := checkDist("ibu: report distribution q", q, m); err != nil {
		return 0, false, err
	}
	if start != nil {
		if err := checkDist("ibu: start", start, m); err != nil {
			return 0, false, err
		}
	}
	return maxIter, converge, nil
}

// ibuOnBA is IBU on the factorised BA channel (see IBU), writing the
// estimate into dst and reusing the workspace's buffers (no allocations
// once warm).
func (w *IBUWorkspace) ibuOnBA(dst []float64, b *BAChannel, q, start []float64, cfg IBUConfig) ([]float64, int, error) {
	if b == nil || b.kp == nil {
		return nil, 0, fmt.Errorf("ibu: BA channel is nil or not built by BA")
	}
	if b.kp.useFFT {
		return w.ibuOnBALarge(dst, b, q, start, cfg)
	}
	if b.logDomain {
		return w.ibu(dst, b.Channel(), q, start, cfg, true)
	}
	m := b.Grid.Len()
	maxIter, converge, err := checkIBUOnBA(cfg, q, start, m)
	if err != nil {
		return nil, 0, err
	}
	theta := grow(dst, m)
	setStart(theta, start)
	f := w.factoredIBU(b, theta, m)
	q = q[:m]
	f.setA()
	if converge {
		copy(w.prev, theta)
	}
	// IBU is invariant to the scale of theta (den scales with it and the
	// ratios inversely), and in the fast path theta' sums to the sum of q
	// up to rounding, so the estimate is normalised once at the end rather
	// than every iteration; convergence mode normalises every iteration
	// because its stopping test compares normalised estimates. The factor
	// c of C cancels in the ratio: c .* q ./ (c .* K a) = q ./ K a.
	for it := 1; it <= maxIter; it++ {
		if !f.ratios(q) {
			// A reported output is (nearly) impossible under the
			// estimate: redo the whole run on the materialised channel,
			// whose iteration has the careful log-domain step.
			return w.ibu(dst, b.Channel(), q, start, cfg, true)
		}
		sum := f.update(converge || it == maxIter)
		if !(sum > 0) || math.IsInf(sum, 1) {
			return nil, it, fmt.Errorf("ibu: %w", errUnexplained)
		}
		if !converge {
			continue
		}
		normalize(theta)
		d := maxAbsDiff(theta, w.prev)
		copy(w.prev, theta)
		if d < cfg.Delta {
			return theta, it, nil
		}
		f.setA()
	}
	normalize(theta)
	return theta, maxIter, nil
}

// factoredIBU is the state of IBUOnBA's iteration on a small grid, in the
// workspace's buffers: the estimate theta, 1/Z, the marginal c, the
// product kv, and a = theta ./ Z and the ratios in the stencil's padded
// input layout (row stride cq after off zeros), written there directly so
// the products need no copy; padding stays zero.
type factoredIBU struct {
	st               *stencil
	R, C, cq, off    int
	theta, iz, c, kv []float64
	va, vr, scr      []float64
}

// factoredIBU sizes the workspace's buffers for b's m cells and returns
// the iteration's state on them.
func (w *IBUWorkspace) factoredIBU(b *BAChannel, theta []float64, m int) factoredIBU {
	st := b.kp.st
	R, C, cq := st.rows, st.cols, st.padStride()
	pl, off := st.paddedLen(), st.rows*cq
	w.prev = grow(w.prev, m)
	w.dot = grow(w.dot, m)
	w.iz = grow(w.iz, m)
	w.scratch = grow(w.scratch, st.foldScratchLen()+2*pl)
	scr := w.scratch[:st.foldScratchLen()]
	va := w.scratch[len(scr) : len(scr)+pl]
	vr := w.scratch[len(scr)+pl : len(scr)+2*pl]
	clear(va)
	clear(vr)
	c, iz, kv := b.Marginal[:m], w.iz[:m], w.dot[:m]
	for x, v := range b.z[:m] {
		iz[x] = 1 / v
	}
	return factoredIBU{st: st, R: R, C: C, cq: cq, off: off, theta: theta, iz: iz, c: c, kv: kv, va: va, vr: vr, scr: scr}
}

// setA sets a = theta ./ Z.
func (f *factoredIBU) setA() {
	R, C, cq, off := f.R, f.C, f.cq, f.off
	for rr := 0; rr < R; rr++ {
		ar := f.va[off+rr*cq : off+rr*cq+C]
		tr, zr := f.theta[rr*C:(rr+1)*C], f.iz[rr*C:(rr+1)*C]
		for i, t := range tr {
			ar[i] = t * zr[i]
		}
	}
}

// ratios sets kv = K a and the ratios q ./ kv (see ibuRatios, whose
// report it returns).
func (f *factoredIBU) ratios(q []float64) bool {
	R, C, cq, off := f.R, f.C, f.cq, f.off
	f.st.prodPadded(f.kv, f.va, f.scr)
	ok := true
	for rr := 0; rr < R; rr++ {
		lo := rr * C
		ok = ibuRatios(f.vr[off+rr*cq:off+rr*cq+C], q[lo:lo+C], f.c[lo:lo+C], f.kv[lo:lo+C]) && ok
	}
	return ok
}

// update sets kv = K(ratios) and the next estimate a .* kv: into theta if
// keep, else straight into a, times 1/Z, for the next iteration. It
// returns the estimate's sum.
func (f *factoredIBU) update(keep bool) float64 {
	R, C, cq, off := f.R, f.C, f.cq, f.off
	f.st.prodPadded(f.kv, f.vr, f.scr)
	sum := 0.0
	for rr := 0; rr < R; rr++ {
		ar := f.va[off+rr*cq : off+rr*cq+C]
		kr, zr := f.kv[rr*C:(rr+1)*C], f.iz[rr*C:(rr+1)*C]
		if keep {
			tr := f.theta[rr*C : (rr+1)*C]
			for i, v := range kr {
				t := ar[i] * v
				tr[i] = t
				sum += t
			}
		} else {
			for i, v := range kr {
				t := ar[i] * v
				sum += t
				ar[i] = t * zr[i]
			}
		}
	}
	return sum
}

// ibuRatios sets r[y] = q[y]/kv[y], or 0 where q[y] = 0, for the
// factorised IBU (kv = K(theta ./ Z), so den = c .* kv). It reports false
// if some report with q[y] > 0 has den[y] < denTiny, the condition under
// which ratios sends an iteration to the careful step.
func ibuRatios(r, q, c, kv []float64) bool {
	n := len(kv)
	r, q, c = r[:n], q[:n], c[:n]
	ok := true
	for y, k := range kv {
		v := 0.0
		if qy := q[y]; qy > 0 {
			if c[y]*k < denTiny {
				ok = false
			}
			v = qy / k
		}
		r[y] = v
	}
	return ok
}
