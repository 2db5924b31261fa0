package privic

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
	"privic/kernels/emd"
)

// lazy computes a value shared by the jobs of one run on first use. Jobs
// run concurrently; the value is read-only once computed, so sharing it
// is safe and saves recomputing it in every job.
type lazy[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (l *lazy[T]) get(f func() (T, error)) (T, error) {
	l.once.Do(func() { l.v, l.err = f() })
	return l.v, l.err
}

// population is one city's data set with what every PRIVIC job of a run
// needs from it. Everything is read-only after construction except the
// lazily computed fields, which are guarded by sync.Once.
type population struct {
	ds      *datasets.Dataset // read-only
	name    string
	grid    kernels.Grid
	xs, ys  []float64   // cell coordinates (row, col)
	points  *emd.Points // the cells with their distances, for the EMD solver (small grids; nil: kernels.EMD)
	prior   []float64   // pi: counts / N
	uniform []float64
	// cells lists the cell of every check-in (grouped by cell), so that a
	// uniform index draws a check-in and a shuffle of a copy draws
	// without replacement.
	cells []int32
	// batch is the batch size n (batch_size, or floor(batch_fraction * N));
	// partitions is how many disjoint batches of that size the data holds.
	batch, partitions int

	emd0  lazy[float64]           // EMD(uniform, pi): cycle 0
	lap   lazy[kernels.ChannelOp] // LAP on the base grid (first cycle, reference code)
	first map[float64]*lazy[kernels.ChannelOp]
}

// newPopulation prepares the shared state of a dataset's jobs. The batch
// size is size when > 0, else floor(fraction * N).
func newPopulation(ds *datasets.Dataset, fraction float64, size int, betas []float64) (*population, error) {
	if size > 0 {
		fraction = float64(size) / float64(ds.N)
	}
	p, err := populationOf(ds, fraction, betas)
	if err != nil {
		return nil, err
	}
	if size > 0 {
		p.batch, p.partitions = size, ds.N/size
	}
	return p, nil
}

// populationOf builds the shared state from any data set (tests use
// synthetic ones).
func populationOf(ds *datasets.Dataset, fraction float64, betas []float64) (*population, error) {
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	p := &population{
		ds:      ds,
		name:    ds.Name,
		grid:    ds.Grid,
		prior:   ds.Prior(),
		uniform: make([]float64, ds.Grid.Len()),
		cells:   make([]int32, 0, ds.N),
		first:   map[float64]*lazy[kernels.ChannelOp]{},
	}
	p.xs, p.ys = make([]float64, ds.Grid.Len()), make([]float64, ds.Grid.Len())
	for i := range p.uniform {
		p.uniform[i] = 1 / float64(len(p.uniform))
		r, c := ds.Grid.Abs(i)
		p.xs[i], p.ys[i] = float64(r), float64(c)
	}
	if ds.Grid.Len() <= TableMaxCells {
		pts, err := emd.NewPoints(p.xs, p.ys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
		p.points = pts
	}
	for x, c := range ds.Counts {
		for range c {
			p.cells = append(p.cells, int32(x))
		}
	}
	p.batch = int(math.Floor(fraction * float64(ds.N)))
	if p.batch < 1 {
		return nil, fmt.Errorf("%s: batch_fraction %v of N = %d check-ins is less than one check-in", ds.Name, fraction, ds.N)
	}
	p.partitions = ds.N / p.batch
	for _, b := range betas {
		p.first[b] = &lazy[kernels.ChannelOp]{}
	}
	return p, nil
}

// cycle0 is EMD(uniform, pi), the paper's first table row.
func (p *population) cycle0() (float64, error) {
	return p.emd0.get(func() (float64, error) {
		return kernels.EMD(p.grid, p.uniform, p.grid, p.prior)
	})
}

// laplace is LAP with eps on the base grid (output = input domain).
func (p *population) laplace(eps float64) (kernels.ChannelOp, error) {
	return p.lap.get(func() (kernels.ChannelOp, error) {
		return kernels.NewLaplaceOp(p.grid, p.grid, eps)
	})
}

// baUniform is C_1 = BA(theta_0 = uniform): the same for every round and
// variant of a (city, beta), so it is built once.
func (p *population) baUniform(beta float64, cfg kernels.BAConfig) (kernels.ChannelOp, error) {
	l, ok := p.first[beta]
	if !ok {
		// Not planned for this beta: build a private copy.
		l = &lazy[kernels.ChannelOp]{}
	}
	return l.get(func() (kernels.ChannelOp, error) {
		b, err := kernels.BA(p.grid, p.uniform, cfg)
		if err != nil {
			return nil, err
		}
		return b, nil
	})
}

// simConfig is everything one PRIVIC trajectory depends on besides the
// data and the random stream.
type simConfig struct {
	Beta       float64
	Variant    Variant
	Schedule   Schedule
	LaplaceEps float64
	// PerCycle measures the EMDs after every cycle (privic-convergence);
	// otherwise only after the last one (beta-sweep).
	PerCycle bool
	// Population and Batch select the EMD references measured.
	Population, Batch bool
	FinalGIBU         bool
	GIBUStart         string // "previous" (theta_N) or "uniform"
	FinalBA           bool

	// source replaces the random batches (tests: exact reports); trace
	// keeps every cycle's IBU estimate mu_t in the trajectory; dense
	// materialises every channel, whatever the grid (tests: the dense
	// path beside the operators on a large grid).
	source batchSource
	trace  bool
	dense  bool
}

func (c simConfig) baConfig() kernels.BAConfig {
	return kernels.BAConfig{Beta: c.Beta, Iterations: c.Schedule.BAIterations, Delta: c.Schedule.BADelta, MaxIterations: c.Schedule.MaxIterations}
}

func (c simConfig) ibuConfig() kernels.IBUConfig {
	return kernels.IBUConfig{Iterations: c.Schedule.IBUIterations, Delta: c.Schedule.IBUDelta, MaxIterations: c.Schedule.MaxIterations}
}

func (c simConfig) gibuConfig() kernels.IBUConfig {
	return kernels.IBUConfig{Iterations: c.Schedule.GIBUIterations, Delta: c.Schedule.GIBUDelta, MaxIterations: c.Schedule.MaxIterations}
}

// trajectory is what one simulated PRIVIC run measured.
type trajectory struct {
	// Cycles is the number of cycles run: the schedule's, or fewer when
	// partition batches run out of data.
	Cycles    int
	BatchSize int
	// Pop[t] and Batch[t] are the EMD of theta_t to pi and to the
	// empirical distribution of batch t (t = 0: theta_0 = uniform against
	// pi for both, as there is no batch yet). NaN where not measured.
	Pop, Batch []float64
	// BAIters[t] and IBUIters[t] are the iterations done in cycle t
	// (index 0 unused); the first cycle's BA is 0 under laplace.
	BAIters, IBUIters []int
	// Last is theta_N, the estimate after the last cycle.
	Last []float64
	// GIBU is the final GIBU estimate over all batches (nil when off),
	// GIBUPop and GIBUBatch its EMD to pi and to the pooled batches.
	GIBU               []float64
	GIBUIters          int
	GIBUPop, GIBUBatch float64
	// FinalEps is the tight epsilon of the final channel BA(pi_hat) and
	// FinalBAIters its iteration count (NaN and 0 when off).
	FinalEps     float64
	FinalBAIters int

	mus [][]float64 // mu_t per cycle, with simConfig.trace
}

// batchSource supplies each cycle's data. draw writes the empirical
// distribution of cycle t's true locations; obfuscate writes the report
// counts over ch's output grid that those check-ins send through ch
// (summing to the batch size). Every variant of a group sees the same
// draws.
type batchSource interface {
	draw(t int, empirical []float64) error
	obfuscate(ch kernels.ChannelOp, reports []float64) error
}

// sampler draws real batches: n check-ins per cycle, iid from the
// population or the next n of a random permutation, each obfuscated
// independently by the cycle's channel.
type sampler struct {
	rng    *rand.Rand
	p      *population
	perm   []int32 // partition mode: check-ins in shuffled order
	counts []int   // the current batch per cell
}

func newSampler(rng *rand.Rand, p *population, partition bool) *sampler {
	s := &sampler{rng: rng, p: p, counts: make([]int, p.grid.Len())}
	if partition {
		s.perm = append([]int32(nil), p.cells...)
	}
	return s
}

func (s *sampler) draw(t int, empirical []float64) error {
	n := s.p.batch
	clear(s.counts)
	if s.perm != nil {
		if t*n > len(s.perm) {
			return fmt.Errorf("partition batch %d of %d check-ins exceeds the %d check-ins", t, n, len(s.perm))
		}
		drawPartition(s.rng, s.perm, (t-1)*n, n, s.counts)
	} else {
		drawIID(s.rng, s.p.cells, n, s.counts)
	}
	for x, k := range s.counts {
		empirical[x] = float64(k) / float64(n)
	}
	return nil
}

// obfuscate draws the batch's reports: through the channel's dense form
// on small grids (the kernels' own, not re-checked), through the operator
// on large ones.
func (s *sampler) obfuscate(ch kernels.ChannelOp, reports []float64) error {
	r, err := kernels.Obfuscate(s.rng, s.counts, ch)
	if err != nil {
		return fmt.Errorf("obfuscate: %w", err)
	}
	total := 0
	for y, k := range r {
		total += k
		reports[y] = float64(k)
	}
	if total != s.p.batch {
		return fmt.Errorf("obfuscation returned %d reports for %d check-ins", total, s.p.batch)
	}
	return nil
}

// simulate runs one variant (c.Variant); see simulateGroup.
func simulate(ctx context.Context, rng *rand.Rand, p *population, c simConfig) (*trajectory, error) {
	trs, err := simulateGroup(ctx, rng, p, c, []Variant{c.Variant})
	if err != nil {
		return nil, err
	}
	return trs[0], nil
}

// state is one distinct estimate theta_t. Variants whose histories are
// identical share one state (and so one channel, one obfuscation, one IBU
// and one EMD per cycle); a state's identity therefore stands for its
// whole history.
type state struct {
	theta      []float64
	mu         []float64       // the IBU estimate theta was made from (trace)
	hist       []kernels.Batch // (C_t, reports_t) of every cycle so far
	weight     float64         // check-ins summarised by theta
	pop, batch float64         // EMD to pi and to the cycle's batch
	baIters    int
	ibuIters   int
}

// Keys of the shared steps of a cycle.
type (
	chanKey struct {
		s    *state
		mech string // the first mechanism; only cycle 1 depends on it
	}
	chanVal struct {
		ch      kernels.ChannelOp
		reports []float64
		q       []float64
		baIters int
	}
	muKey struct {
		ck    chanKey
		start string // "uniform" or "previous" (the same in cycle 1)
	}
	muVal struct {
		mu    []float64
		iters int
	}
	thetaKey struct {
		mk     muKey
		mixing string // "none" or "weighted" (the same in cycle 1)
	}
)

// simulateGroup runs PRIVIC (paper Algorithm 1, or a variant of it) for
// several variants on the same batches of true check-ins (common random
// numbers, so that variants compare in pairs), sharing every computation
// on which their histories still agree.
//
// Cycle t = 1..N: C_t = BA(theta_{t-1}) (cycle 1 with laplace: LAP eps
// on the base grid); a batch of n check-ins is drawn (iid: with
// replacement from the population; partition: the next n of a random
// permutation, i.e. without replacement across cycles) and obfuscated
// with C_t; mu_t = IBU(C_t, q_t) from theta_{t-1} or from uniform;
// theta_t = mu_t, or under weighted mixing the sample-size-weighted
// average of mu_t and theta_{t-1}. Afterwards GIBU over all (C_t, y_t)
// and BA on its estimate (paper step 3).
//
// All variants must use the same batches mode.
func simulateGroup(ctx context.Context, rng *rand.Rand, p *population, c simConfig, vs []Variant) ([]*trajectory, error) {
	g, err := newGroup(rng, p, c, vs)
	if err != nil {
		return nil, err
	}
	g.sv.Context = ctx // a stop interrupts the cycle's transports too
	for t := 1; t <= g.cycles; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		harness.Progress(ctx, "cycle %d of %d", t, g.cycles)
		if err := g.cycle(t); err != nil {
			return nil, fmt.Errorf("cycle %d: %w", t, err)
		}
	}
	for x := range g.pooled {
		g.pooled[x] /= float64(g.cycles) * g.n
	}
	if err := g.finish(ctx); err != nil {
		return nil, err
	}
	return g.trs, nil
}

// group is the state of one simulateGroup: the variants' trajectories,
// their current estimates, and the work spaces every step reuses.
type group struct {
	p      *population
	c      simConfig
	vs     []Variant
	cycles int
	n      float64 // the batch size
	src    batchSource
	trs    []*trajectory
	cur    []*state // each variant's current estimate
	// The BA workspace reuses its buffers across cycles and variants; the
	// channels (kept for the final GIBU) are the per-cycle allocations:
	// factorised BA channels and LAP operators, O(m) each, materialised
	// only on grids below kernels.DenseOpCells cells, where the kernels
	// use their dense forms. Every channel is a structured operator (BA or
	// LAP, stochastic by construction), so obfuscation, IBU and GIBU take
	// the dense forms without re-checking their rows on every use.
	ws                kernels.BAWorkspace
	iw                kernels.IBUWorkspace
	sv                emd.Solver
	empirical, pooled []float64
	// The shared steps of the current cycle.
	chans map[chanKey]*chanVal
	mus   map[muKey]*muVal
	next  map[thetaKey]*state
}

func newGroup(rng *rand.Rand, p *population, c simConfig, vs []Variant) (*group, error) {
	if len(vs) == 0 {
		return nil, fmt.Errorf("simulate: no variants")
	}
	for _, v := range vs[1:] {
		if v.Batches != vs[0].Batches {
			return nil, fmt.Errorf("simulate: variants %s and %s draw batches differently", vs[0].Label(), v.Label())
		}
	}
	cycles := c.Schedule.Cycles
	if vs[0].Batches == "partition" && cycles > p.partitions {
		cycles = p.partitions
	}
	e0, err := p.cycle0()
	if err != nil {
		return nil, fmt.Errorf("emd(uniform, pi): %w", err)
	}
	m := p.grid.Len()
	g := &group{p: p, c: c, vs: vs, cycles: cycles, n: float64(p.batch), src: c.source,
		trs: make([]*trajectory, len(vs)), cur: make([]*state, len(vs)),
		empirical: make([]float64, m), pooled: make([]float64, m),
		chans: map[chanKey]*chanVal{}, mus: map[muKey]*muVal{}, next: map[thetaKey]*state{}}
	for i := range g.trs {
		g.trs[i] = &trajectory{
			Cycles:    cycles,
			BatchSize: p.batch,
			Pop:       nanSlice(cycles + 1),
			Batch:     nanSlice(cycles + 1),
			BAIters:   make([]int, cycles+1),
			IBUIters:  make([]int, cycles+1),
			GIBUPop:   math.NaN(),
			GIBUBatch: math.NaN(),
			FinalEps:  math.NaN(),
		}
		g.trs[i].Pop[0], g.trs[i].Batch[0] = e0, e0
	}
	if g.src == nil {
		g.src = newSampler(rng, p, vs[0].Batches == "partition")
	}
	root := &state{theta: append([]float64(nil), p.uniform...)}
	for i := range g.cur {
		g.cur[i] = root
	}
	return g, nil
}

// cycle runs cycle t of every variant.
func (g *group) cycle(t int) error {
	if err := g.src.draw(t, g.empirical); err != nil {
		return err
	}
	for x, e := range g.empirical {
		g.pooled[x] += e * g.n
	}
	clear(g.chans)
	clear(g.mus)
	clear(g.next)
	for i, v := range g.vs {
		ns, err := g.step(t, g.cur[i], v)
		if err != nil {
			return err
		}
		g.cur[i] = ns
		tr := g.trs[i]
		tr.Pop[t], tr.Batch[t] = ns.pop, ns.batch
		tr.BAIters[t], tr.IBUIters[t] = ns.baIters, ns.ibuIters
		if g.c.trace {
			tr.mus = append(tr.mus, ns.mu)
		}
	}
	return nil
}

// step takes variant v from state s through cycle t: the channel, the
// obfuscated batch, the IBU estimate and the new theta, each computed once
// for all variants that share it.
func (g *group) step(t int, s *state, v Variant) (*state, error) {
	ck := chanKey{s: s}
	if t == 1 {
		ck.mech = v.FirstMechanism
	}
	cv, err := g.channel(t, ck)
	if err != nil {
		return nil, err
	}
	mk := muKey{ck: ck, start: v.IBUStart}
	if t == 1 {
		mk.start = "uniform" // theta_0 is uniform
	}
	mv := g.mus[mk]
	if mv == nil {
		var start []float64
		if mk.start == "previous" {
			start = s.theta
		}
		var mu []float64
		var iters int
		var err error
		// The group's work space on the dense forms, where its reuse
		// changes nothing; a fresh one for an operator, as a reused one
		// may split the FFT products differently.
		if kernels.DenseOf(cv.ch) != nil {
			mu, iters, err = g.iw.IBU(nil, cv.ch, cv.q, start, g.c.ibuConfig())
		} else {
			mu, iters, err = kernels.IBU(cv.ch, cv.q, start, g.c.ibuConfig())
		}
		if err != nil {
			return nil, fmt.Errorf("ibu: %w", err)
		}
		mv = &muVal{mu: mu, iters: iters}
		g.mus[mk] = mv
	}
	tk := thetaKey{mk: mk, mixing: v.Mixing}
	if t == 1 {
		tk.mixing = "none" // theta_1 = mu_1
	}
	if ns := g.next[tk]; ns != nil {
		return ns, nil
	}
	ns := &state{
		theta:    mv.mu,
		mu:       mv.mu,
		hist:     append(append(make([]kernels.Batch, 0, t), s.hist...), kernels.Batch{Channel: cv.ch, Counts: cv.reports}),
		weight:   s.weight + g.n,
		pop:      math.NaN(),
		batch:    math.NaN(),
		baIters:  cv.baIters,
		ibuIters: mv.iters,
	}
	if tk.mixing == "weighted" {
		ns.theta = append([]float64(nil), s.theta...)
		mix(ns.theta, s.weight, mv.mu, g.n)
	}
	if g.c.PerCycle || t == g.cycles {
		if err := measure(&g.sv, g.p, g.c, ns.theta, g.empirical, &ns.pop, &ns.batch); err != nil {
			return nil, err
		}
	}
	g.next[tk] = ns
	return ns, nil
}

// channel returns C_t of the state and first mechanism of ck with its
// obfuscated batch, building them on first use in the cycle.
func (g *group) channel(t int, ck chanKey) (*chanVal, error) {
	if cv := g.chans[ck]; cv != nil {
		return cv, nil
	}
	ch, baIters, err := cycleChannel(&g.ws, g.p, g.c, t, ck.mech, ck.s.theta)
	if err == nil && g.c.dense {
		ch, err = materialise(ch)
	}
	if err != nil {
		return nil, fmt.Errorf("channel: %w", err)
	}
	_, out := ch.Grids()
	cv := &chanVal{ch: ch, reports: make([]float64, out.Len()), q: make([]float64, out.Len()), baIters: baIters}
	if err := g.src.obfuscate(ch, cv.reports); err != nil {
		return nil, err
	}
	for y, r := range cv.reports {
		cv.q[y] = r / g.n
	}
	g.chans[ck] = cv
	return cv, nil
}

// final is paper step 3 for one final state: GIBU over all batches and BA
// on its estimate.
type final struct {
	gibu               []float64
	iters              int
	gibuPop, gibuBatch float64
	eps                float64
	baIters            int
}

// finish runs paper step 3 once per distinct final state and records it
// in the trajectories.
func (g *group) finish(ctx context.Context) error {
	finals := map[*state]*final{}
	for i, s := range g.cur {
		f := finals[s]
		if f == nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if f, err = g.final(s); err != nil {
				return err
			}
			finals[s] = f
		}
		tr := g.trs[i]
		tr.Last = s.theta
		tr.GIBU, tr.GIBUIters, tr.GIBUPop, tr.GIBUBatch = f.gibu, f.iters, f.gibuPop, f.gibuBatch
		tr.FinalEps, tr.FinalBAIters = f.eps, f.baIters
	}
	return nil
}

func (g *group) final(s *state) (*final, error) {
	f := &final{gibuPop: math.NaN(), gibuBatch: math.NaN(), eps: math.NaN()}
	est := s.theta
	if g.c.FinalGIBU && len(s.hist) > 0 {
		var start []float64
		if g.c.GIBUStart == "previous" {
			start = s.theta
		}
		gibu, iters, err := g.gibu(s.hist, start)
		if err != nil {
			return nil, fmt.Errorf("final GIBU: %w", err)
		}
		f.gibu, f.iters, est = gibu, iters, gibu
		if err := measure(&g.sv, g.p, g.c, gibu, g.pooled, &f.gibuPop, &f.gibuBatch); err != nil {
			return nil, fmt.Errorf("final GIBU: %w", err)
		}
	}
	if g.c.FinalBA {
		b, err := g.ws.BA(g.p.grid, est, g.c.baConfig())
		if err != nil {
			return nil, fmt.Errorf("final BA: %w", err)
		}
		if f.eps, err = b.TightEpsilon(); err != nil {
			return nil, fmt.Errorf("final BA: %w", err)
		}
		f.baIters = b.Iterations
	}
	return f, nil
}

// gibu is the final GIBU over hist: on the dense forms with the group's
// work space when every channel has one, else on the operators.
func (g *group) gibu(hist []kernels.Batch, start []float64) ([]float64, int, error) {
	return g.iw.GIBU(nil, hist, start, g.c.gibuConfig())
}

// cycleChannel returns C_t and the BA iterations it took; mech is the first
// mechanism (cycle 1 only).
func cycleChannel(ws *kernels.BAWorkspace, p *population, c simConfig, t int, mech string, theta []float64) (kernels.ChannelOp, int, error) {
	if t == 1 {
		if mech == "laplace" {
			ch, err := p.laplace(c.LaplaceEps)
			return ch, 0, err
		}
		// theta_0 is uniform in every variant: share C_1.
		ch, err := p.baUniform(c.Beta, c.baConfig())
		return ch, c.Schedule.BAIterations, err
	}
	b, err := ws.BA(p.grid, theta, c.baConfig())
	if err != nil {
		return nil, 0, err
	}
	return b, b.Iterations, nil
}

// materialise returns the dense channel of a BA or LAP operator (for
// simConfig.dense).
func materialise(op kernels.ChannelOp) (kernels.ChannelOp, error) {
	switch c := op.(type) {
	case *kernels.BAChannel:
		return c.Dense()
	case *kernels.LaplaceOp:
		return kernels.Laplace(c.In, c.Out, c.Eps)
	}
	return op, nil
}

// measure writes EMD(est, pi) to pop and EMD(est, ref) to batch, each
// only when that reference is requested. It is kernels.EMD on the base
// grid (Euclidean cost between cell positions, shared mass cancelled);
// on grids of up to TableMaxCells cells through one solver per job,
// whose work space is reused across calls instead of being allocated for
// each of the thousands of EMDs, on the population's distance table
// (computed once per city, not per EMD), with the same result bit for
// bit.
func measure(sv *emd.Solver, p *population, c simConfig, est, ref []float64, pop, batch *float64) error {
	dist := func(a, b []float64) (float64, error) {
		if p.points == nil {
			return kernels.EMD(p.grid, a, p.grid, b)
		}
		r, err := sv.SolveOn(p.points, a, b)
		return r.Cost, err
	}
	if c.Population {
		d, err := dist(est, p.prior)
		if err != nil {
			return fmt.Errorf("emd to pi: %w", err)
		}
		*pop = d
	}
	if c.Batch {
		d, err := dist(est, ref)
		if err != nil {
			return fmt.Errorf("emd to the batch: %w", err)
		}
		*batch = d
	}
	return nil
}

// TableMaxCells is the largest grid whose cells' distances a PRIVIC job
// tabulates for its EMDs (8 bytes a pair: 32 MB at 2,048 cells); larger
// grids price the arcs of each EMD from the cells' coordinates
// (kernels.EMD).
const TableMaxCells = 2048

// mix sets theta to the sample-size-weighted average of theta (summarising
// w check-ins) and mu (n new check-ins): the paper's mu_t (+) theta_{t-1}.
func mix(theta []float64, w float64, mu []float64, n float64) {
	a, b := w/(w+n), n/(w+n)
	for x := range theta {
		theta[x] = a*theta[x] + b*mu[x]
	}
}

// drawIID adds n check-ins drawn uniformly with replacement from cells
// to counts: a fresh sample of the population (paper).
func drawIID(rng *rand.Rand, cells []int32, n int, counts []int) {
	for range n {
		counts[cells[rng.IntN(len(cells))]]++
	}
}

// drawPartition adds perm[from:from+n] to counts after shuffling those
// positions in from the rest of perm (a partial Fisher-Yates shuffle), so
// successive calls with from = 0, n, 2n, ... draw disjoint batches without
// replacement (reference code).
func drawPartition(rng *rand.Rand, perm []int32, from, n int, counts []int) {
	for i := from; i < from+n; i++ {
		j := i + rng.IntN(len(perm)-i)
		perm[i], perm[j] = perm[j], perm[i]
		counts[perm[i]]++
	}
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
