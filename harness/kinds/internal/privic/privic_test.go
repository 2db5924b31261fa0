package privic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"privic/datasets"
	"privic/harness/kinds/internal/paper"
	"privic/kernels"
	"privic/kernels/emd"
)

// tinyDataset is a 3 x 4 city with every cell occupied (a full-support
// prior, so the MLE from exact reports is the prior itself).
func tinyDataset(t *testing.T) *datasets.Dataset {
	t.Helper()
	g, err := kernels.NewGrid(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	counts := []int{50, 10, 5, 35, 200, 120, 20, 60, 15, 5, 300, 180}
	n := 0
	for _, c := range counts {
		n += c
	}
	return &datasets.Dataset{Name: "tiny", Grid: g, Counts: counts, N: n}
}

// exactSource feeds PRIVIC noise-free data: each batch's true locations
// follow the prior exactly and its reports are n * (prior . C).
type exactSource struct {
	prior []float64
	n     float64
}

func (e exactSource) draw(_ int, empirical []float64) error {
	copy(empirical, e.prior)
	return nil
}

func (e exactSource) obfuscate(op kernels.ChannelOp, reports []float64) error {
	ch := kernels.DenseOf(op)
	if ch == nil {
		// A large grid: prior . C from the operator.
		if err := op.ApplyT(reports, e.prior); err != nil {
			return err
		}
		for y := range reports {
			reports[y] *= e.n
		}
		return nil
	}
	out := ch.Out.Len()
	for y := range reports {
		s := 0.0
		for x, px := range e.prior {
			s += px * ch.P[x*out+y]
		}
		reports[y] = e.n * s
	}
	return nil
}

// allVariants is every combination of the protocol options.
func allVariants() []Variant {
	var out []Variant
	for _, f := range FirstMechanisms() {
		for _, s := range IBUStarts() {
			for _, m := range Mixings() {
				for _, b := range BatchModes() {
					out = append(out, Variant{f, s, m, b})
				}
			}
		}
	}
	return out
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// With exact reports every variant's estimate, and the final GIBU, must
// converge to the prior: its EMD to pi goes to 0.
func TestExactReportsConvergeToPrior(t *testing.T) {
	ds := tinyDataset(t)
	pop, err := populationOf(ds, 0.1, []float64{2})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range allVariants() {
		t.Run(v.Label(), func(t *testing.T) {
			cfg := simConfig{
				Beta: 2, Variant: v,
				// IBU and GIBU to convergence: the MLE of exact reports
				// through an invertible channel is the prior itself.
				// (Not tighter than 1e-10: kernels.EMD then rejects the
				// near-zero net measure on rounding grounds.)
				Schedule:   Schedule{Cycles: 6, BAIterations: 3, IBUDelta: 1e-10, GIBUDelta: 1e-10, MaxIterations: 200000},
				LaplaceEps: 2, PerCycle: true, Population: true, Batch: true,
				FinalGIBU: true, GIBUStart: "previous", FinalBA: true,
				source: exactSource{pop.prior, float64(pop.batch)},
			}
			tr, err := simulate(context.Background(), rand.New(rand.NewPCG(1, 2)), pop, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Cycles != 6 {
				t.Fatalf("ran %d cycles, want 6", tr.Cycles)
			}
			if d := maxAbsDiff(tr.Last, pop.prior); d > 1e-4 {
				t.Errorf("theta_N differs from the prior by %g", d)
			}
			if d := maxAbsDiff(tr.GIBU, pop.prior); d > 1e-4 {
				t.Errorf("GIBU estimate differs from the prior by %g", d)
			}
			if tr.Pop[tr.Cycles] > 1e-3 || tr.GIBUPop > 1e-3 {
				t.Errorf("final EMD to pi = %g (GIBU %g), want ~0", tr.Pop[tr.Cycles], tr.GIBUPop)
			}
			// The batch is the prior here, so both references agree.
			if math.Abs(tr.Batch[tr.Cycles]-tr.Pop[tr.Cycles]) > 1e-9 {
				t.Errorf("batch EMD %g != population EMD %g on exact data", tr.Batch[tr.Cycles], tr.Pop[tr.Cycles])
			}
			if !(tr.Pop[0] > 0.1) {
				t.Errorf("cycle-0 EMD(uniform, pi) = %g, want clearly > 0", tr.Pop[0])
			}
		})
	}
}

// With few IBU iterations per cycle, starting IBU from the previous
// estimate carries the work over: the error must shrink over the cycles
// (the incremental convergence PRIVIC relies on), while restarting from
// uniform cannot improve on one cycle's worth.
func TestExactReportsImproveOverCycles(t *testing.T) {
	ds := tinyDataset(t)
	pop, err := populationOf(ds, 0.1, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	run := func(start string) *trajectory {
		cfg := simConfig{
			Beta: 0.5, Variant: Variant{"ba-uniform", start, "none", "iid"},
			Schedule:   Schedule{Cycles: 10, BAIterations: 10, IBUIterations: 5, MaxIterations: 100},
			LaplaceEps: 2, PerCycle: true, Population: true,
			source: exactSource{pop.prior, float64(pop.batch)},
		}
		tr, err := simulate(context.Background(), rand.New(rand.NewPCG(3, 4)), pop, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	prev, unif := run("previous"), run("uniform")
	for c := 2; c <= 10; c++ {
		if !(prev.Pop[c] < prev.Pop[c-1]) {
			t.Errorf("ibu_start=previous: EMD rose from %g to %g at cycle %d", prev.Pop[c-1], prev.Pop[c], c)
		}
	}
	if !(prev.Pop[10] < 0.65*prev.Pop[1]) {
		t.Errorf("ibu_start=previous: EMD %g at cycle 1, %g at cycle 10: want a drop of more than 35%%", prev.Pop[1], prev.Pop[10])
	}
	if !(prev.Pop[10] < 0.65*unif.Pop[10]) {
		t.Errorf("after 10 cycles previous-start EMD %g is not well below uniform-start %g", prev.Pop[10], unif.Pop[10])
	}
}

// The mixing rule: theta_N must equal the sample-size-weighted average of
// every cycle's IBU estimate, computed here directly.
func TestWeightedMixingIsSampleWeightedAverage(t *testing.T) {
	// Unit check with unequal sizes against the closed form.
	rng := rand.New(rand.NewPCG(5, 6))
	sizes := []float64{100, 37, 250, 3}
	mus := make([][]float64, len(sizes))
	for i := range mus {
		mus[i] = make([]float64, 7)
		for j := range mus[i] {
			mus[i][j] = rng.Float64()
		}
	}
	theta := append([]float64(nil), mus[0]...)
	w := sizes[0]
	for i := 1; i < len(sizes); i++ {
		mix(theta, w, mus[i], sizes[i])
		w += sizes[i]
	}
	for j := range theta {
		num, den := 0.0, 0.0
		for i, n := range sizes {
			num += n * mus[i][j]
			den += n
		}
		if math.Abs(theta[j]-num/den) > 1e-14 {
			t.Fatalf("mix: theta[%d] = %v, weighted average %v", j, theta[j], num/den)
		}
	}

	// In a real (sampled) trajectory.
	ds := tinyDataset(t)
	pop, err := populationOf(ds, 0.1, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := simConfig{
		Beta: 1, Variant: PaperVariant(),
		Schedule:   Schedule{Cycles: 5, BAIterations: 5, IBUIterations: 5, MaxIterations: 100},
		LaplaceEps: 2, Population: true, trace: true,
	}
	tr, err := simulate(context.Background(), rand.New(rand.NewPCG(7, 8)), pop, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.mus) != 5 {
		t.Fatalf("traced %d IBU estimates, want 5", len(tr.mus))
	}
	for x := range tr.Last {
		avg := 0.0
		for _, mu := range tr.mus {
			avg += mu[x] // equal batch sizes: the plain mean
		}
		avg /= float64(len(tr.mus))
		if math.Abs(tr.Last[x]-avg) > 1e-12 {
			t.Fatalf("theta_N[%d] = %v, mean of mu_t = %v", x, tr.Last[x], avg)
		}
	}
	// Without mixing theta_N is the last mu.
	cfg.Variant.Mixing = "none"
	tr, err = simulate(context.Background(), rand.New(rand.NewPCG(7, 8)), pop, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(tr.Last, tr.mus[len(tr.mus)-1]); d != 0 {
		t.Fatalf("mixing none: theta_N differs from mu_N by %g", d)
	}
}

// iidVariants returns the variants whose batches are drawn iid: the ones
// a group simulation can run together.
func iidVariants() []Variant {
	var vs []Variant
	for _, v := range allVariants() {
		if v.Batches == "iid" {
			vs = append(vs, v)
		}
	}
	return vs
}

// exactIIDGroup simulates the iid variants together on ds (batches of a
// tenth of its users) under exactFullProtocol at beta; it returns the
// population, the configuration, the variants and their trajectories.
func exactIIDGroup(t *testing.T, ds *datasets.Dataset, beta float64, sched Schedule) (*population, simConfig, []Variant, []*trajectory) {
	t.Helper()
	pop, err := populationOf(ds, 0.1, []float64{beta})
	if err != nil {
		t.Fatal(err)
	}
	vs := iidVariants()
	cfg := exactFullProtocol(pop, beta, sched)
	group, err := simulateGroup(context.Background(), nil, pop, cfg, vs)
	if err != nil {
		t.Fatal(err)
	}
	return pop, cfg, vs, group
}

// exactFullProtocol configures the whole protocol at beta with schedule
// sched on exact (deterministic) batches of pop: every statistic
// recorded, the final GIBU started from the previous estimate, the final
// BA run.
func exactFullProtocol(pop *population, beta float64, sched Schedule) simConfig {
	return simConfig{
		Beta:       beta,
		Schedule:   sched,
		LaplaceEps: 2, PerCycle: true, Population: true, Batch: true,
		FinalGIBU: true, GIBUStart: "previous", FinalBA: true,
		source: exactSource{pop.prior, float64(pop.batch)},
	}
}

// Variants simulated together share the computations on which their
// histories agree; on deterministic (exact) data the shared run must give
// exactly what each variant gives alone.
func TestGroupEqualsSeparateRuns(t *testing.T) {
	ds := tinyDataset(t)
	pop, cfg, vs, group := exactIIDGroup(t, ds, 1, Schedule{Cycles: 4, BAIterations: 4, IBUIterations: 3, GIBUIterations: 3, MaxIterations: 100})
	distinct := map[float64]bool{}
	for i, v := range vs {
		c := cfg
		c.Variant = v
		alone, err := simulate(context.Background(), nil, pop, c)
		if err != nil {
			t.Fatal(err)
		}
		g := group[i]
		for c := 0; c <= alone.Cycles; c++ {
			if g.Pop[c] != alone.Pop[c] || g.Batch[c] != alone.Batch[c] {
				t.Errorf("%s cycle %d: group EMD %v/%v, alone %v/%v", v.Label(), c, g.Pop[c], g.Batch[c], alone.Pop[c], alone.Batch[c])
			}
		}
		if d := maxAbsDiff(g.GIBU, alone.GIBU); d != 0 || g.FinalEps != alone.FinalEps {
			t.Errorf("%s: final GIBU differs by %g, eps %v vs %v", v.Label(), d, g.FinalEps, alone.FinalEps)
		}
		distinct[g.Pop[4]] = true
	}
	// The 8 variants are genuinely different protocols.
	if len(distinct) < 6 {
		t.Errorf("only %d distinct final EMDs among %d variants", len(distinct), len(vs))
	}
}

// Partition batches are disjoint and each holds batch_fraction of the
// check-ins; after floor(1/fraction) batches the data is exhausted.
func TestPartitionBatchesDisjoint(t *testing.T) {
	const n = 1234
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i) // every check-in its own "cell": identities visible
	}
	size := int(math.Floor(0.1 * n))
	rng := rand.New(rand.NewPCG(9, 10))
	seen := make([]int, n)
	for b := range n / size {
		counts := make([]int, n)
		drawPartition(rng, ids, b*size, size, counts)
		got := 0
		for id, c := range counts {
			if c > 1 {
				t.Fatalf("batch %d holds check-in %d %d times", b, id, c)
			}
			seen[id] += c
			got += c
		}
		if got != size {
			t.Fatalf("batch %d has %d check-ins, want %d", b, got, size)
		}
	}
	for id, c := range seen {
		if c > 1 {
			t.Fatalf("check-in %d appears in %d batches", id, c)
		}
	}

	// Through the sampler on a city: per-cell totals never exceed the
	// data and the number of batches is floor(N / n).
	ds := tinyDataset(t)
	pop, err := populationOf(ds, 0.1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := ds.N / int(math.Floor(0.1*float64(ds.N))); pop.partitions != want || pop.partitions != 10 {
		t.Fatalf("partitions = %d, want %d (10)", pop.partitions, want)
	}
	s := newSampler(rng, pop, true)
	ch, err := kernels.Laplace(pop.grid, pop.grid, 1)
	if err != nil {
		t.Fatal(err)
	}
	total := make([]float64, pop.grid.Len())
	emp := make([]float64, pop.grid.Len())
	rep := make([]float64, pop.grid.Len())
	for b := 1; b <= pop.partitions; b++ {
		if err := s.draw(b, emp); err != nil {
			t.Fatal(err)
		}
		if err := s.obfuscate(ch, rep); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, r := range rep {
			sum += r
		}
		if sum != float64(pop.batch) {
			t.Fatalf("batch %d: %g reports for %d check-ins", b, sum, pop.batch)
		}
		for x, e := range emp {
			total[x] += e * float64(pop.batch)
		}
	}
	for x, c := range ds.Counts {
		if total[x] > float64(c)+1e-9 {
			t.Fatalf("cell %d: %g check-ins drawn from %d", x, total[x], c)
		}
	}
	if err := s.draw(pop.partitions+1, emp); err == nil {
		t.Fatal("a batch beyond the data was drawn without error")
	}
}

// Cycle 0 is EMD(uniform, pi): the paper's first table row. Paris
// reproduces the paper's 2.02262 to 5 decimals. San Francisco does not:
// the paper prints 7.37595, while the exact EMD on the reference domain
// (16 x 24, N = 123,025) is 7.3761044 -- POT's exact ot.emd2 on the same
// counts gives 7.3761044 too, and N = 123,026 gives 7.3760801, so the
// 1.5e-4 gap is in the paper's data or solver, not in ours. The test pins
// SF to the independent POT value and checks the paper's within 2e-4.
func TestCycle0MatchesPaper(t *testing.T) {
	for _, c := range []struct {
		city       string
		want, tol  float64
		paper, ptl float64
	}{
		{"paris", 2.02262, 5e-6, 2.02262, 5e-6},
		{"sf", 7.3761044, 1e-6, 7.37595, 2e-4},
	} {
		ds, err := datasets.Load(c.city, datasets.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.city, err)
		}
		pop, err := populationOf(ds, 0.1, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pop.cycle0()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > c.tol {
			t.Errorf("%s: EMD(uniform, pi) = %.7f, want %.7f", c.city, got, c.want)
		}
		if math.Abs(got-c.paper) > c.ptl {
			t.Errorf("%s: EMD(uniform, pi) = %.7f, paper %.5f", c.city, got, c.paper)
		}
		if f, _ := paper.Of(c.city); func() float64 { v, _ := f.Table.Cycle0(); return v }() != c.paper {
			t.Errorf("%s: the paper's facts give another cycle 0 than %v", c.city, c.paper)
		}
	}
}

// measure reuses one EMD solver across calls; it must agree with
// kernels.EMD, including on a grid placed away from the origin.
func TestMeasureMatchesKernelsEMD(t *testing.T) {
	g := kernels.Grid{Rows: 4, Cols: 5, Row0: 3, Col0: -2}
	counts := make([]int, g.Len())
	rng := rand.New(rand.NewPCG(11, 12))
	n := 0
	for i := range counts {
		counts[i] = rng.IntN(20)
		n += counts[i]
	}
	pop, err := populationOf(&datasets.Dataset{Name: "offset", Grid: g, Counts: counts, N: n}, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sv emd.Solver
	for trial := range 20 {
		est, ref := make([]float64, g.Len()), make([]float64, g.Len())
		se, sr := 0.0, 0.0
		for i := range est {
			est[i], ref[i] = rng.Float64(), rng.Float64()*float64(rng.IntN(2))
			se, sr = se+est[i], sr+ref[i]
		}
		for i := range est {
			est[i], ref[i] = est[i]/se, ref[i]/sr
		}
		var pop1, batch1 float64
		cfg := simConfig{Population: true, Batch: true}
		if err := measure(&sv, pop, cfg, est, ref, &pop1, &batch1); err != nil {
			t.Fatal(err)
		}
		want1, err := kernels.EMD(g, est, g, pop.prior)
		if err != nil {
			t.Fatal(err)
		}
		want2, err := kernels.EMD(g, est, g, ref)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(pop1-want1) > 1e-12 || math.Abs(batch1-want2) > 1e-12 {
			t.Fatalf("trial %d: measure gave %v, %v; kernels.EMD %v, %v", trial, pop1, batch1, want1, want2)
		}
	}
}

// On a grid above kernels.DenseOpCells the channels are kept as
// operators (factorised BA, LAP): the whole protocol, every variant with
// its final GIBU over the operators, gives the trajectories of
// the same protocol run on the materialised channels, to the accuracy of
// the certified products.
func TestOperatorsMatchDenseOnLargeGrid(t *testing.T) {
	g, err := kernels.NewGrid(33, 32) // 1,056 cells
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	counts := make([]int, g.Len())
	n := 0
	for x := range counts {
		r, c := g.Cell(x)
		if r < 8 && c < 10 {
			continue // a deserted corner
		}
		counts[x] = 1 + rng.IntN(40)
		if (r-20)*(r-20)+(c-12)*(c-12) < 20 {
			counts[x] += 400 // a hotspot
		}
		n += counts[x]
	}
	ds := &datasets.Dataset{Name: "large", Grid: g, Counts: counts, N: n}
	pop, cfg, vs, ops := exactIIDGroup(t, ds, 0.8, Schedule{Cycles: 3, BAIterations: 4, IBUIterations: 5, GIBUIterations: 5, MaxIterations: 100})
	cfg.dense = true
	dense, err := simulateGroup(context.Background(), nil, pop, cfg, vs)
	if err != nil {
		t.Fatal(err)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-7*math.Max(math.Abs(b), 1e-3) }
	for i, v := range vs {
		o, d := ops[i], dense[i]
		for c := 0; c <= d.Cycles; c++ {
			if !close(o.Pop[c], d.Pop[c]) || !close(o.Batch[c], d.Batch[c]) {
				t.Errorf("%s cycle %d: operators %v/%v, dense %v/%v", v.Label(), c, o.Pop[c], o.Batch[c], d.Pop[c], d.Batch[c])
			}
		}
		if !close(o.GIBUPop, d.GIBUPop) || !close(o.FinalEps, d.FinalEps) {
			t.Errorf("%s: GIBU EMD %v vs %v, final eps %v vs %v", v.Label(), o.GIBUPop, d.GIBUPop, o.FinalEps, d.FinalEps)
		}
		if dd := maxAbsDiff(o.GIBU, d.GIBU); dd > 1e-9 {
			t.Errorf("%s: GIBU estimates differ by %g", v.Label(), dd)
		}
	}
}
