package harness

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"privic/internal/atomicfile"

	"golang.org/x/sync/errgroup"
)

// ErrInterrupted is returned (wrapped) when the caller's context is
// cancelled, e.g. by Ctrl-C: every job finished so far is stored and a
// rerun resumes from there.
var ErrInterrupted = errors.New("interrupted")

// RunOptions configure Run and Merge. The zero value runs everything into
// results/ with one job per CPU and no output.
type RunOptions struct {
	// Out is the results root; each spec writes Out/<name>/. Default "results".
	Out string
	// Jobs is how many jobs run at once. Default runtime.NumCPU().
	Jobs int
	// Force recomputes jobs whose stored results are current.
	Force bool
	// Shard runs only the jobs of one shard and skips Finish; `privic
	// merge` joins the shards.
	Shard Shard
	// MemLimit refuses jobs whose estimate (MemoryEstimator) exceeds it and
	// keeps the estimates of the jobs running at once below it. 0 means
	// DefaultMemLimit(); negative means no limit.
	MemLimit int64
	// Log receives progress and info lines (stderr in the CLI); nil is
	// silent. On a terminal progress is a bar, otherwise a line every
	// ProgressEvery (default 5 s); both start after a second.
	Log           io.Writer
	ProgressEvery time.Duration
	// Stopping receives, when ctx is cancelled or a spec's budget runs
	// out, one line saying which running jobs the run waits for (the CLI:
	// stderr, also with -q); nil: Log.
	Stopping io.Writer
	// History is a results root whose manifests record the job times of
	// an earlier run of the same specs: they order the jobs, longest
	// first. Empty: Out (the previous run in the same place).
	History string
	// Summary ends the run with a table of every spec: wall time from its
	// first job's start to its completion, jobs computed and reused, and
	// the process's peak resident memory while its jobs ran.
	Summary bool
}

func (o RunOptions) withDefaults() RunOptions {
	if o.Out == "" {
		o.Out = "results"
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.MemLimit == 0 {
		o.MemLimit = DefaultMemLimit()
	}
	return o
}

// Result summarises one spec of a run or merge.
type Result struct {
	Spec     *Spec
	Dir      string // Out/<name>
	Manifest *Manifest
}

// specRun is the state of one spec during a run.
type specRun struct {
	spec     *Spec
	dir      string
	jobs     []PlannedJob
	estimate []int64 // per job, bytes (0 when the kind does not say)
	unlock   func()
	created  bool // dir did not exist before this run

	mu       sync.Mutex
	recs     []*record // by plan index; nil: not stored
	reused   []bool
	todo     []int // plan indices to compute
	pending  int   // jobs of todo not yet stored
	computed int
	manifest *Manifest
	result   Result
	history  map[string]float64 // job key -> seconds an earlier run took
	// While it runs: when its first job started, how many of its jobs run
	// now, the process's peak resident memory while they ran, and when
	// the spec completed (zero: not yet).
	firstStart time.Time
	active     int
	peakRSS    int64
	completed  time.Time
}

func (r *specRun) jobStarted(t time.Time) {
	r.mu.Lock()
	if r.firstStart.IsZero() {
		r.firstStart = t
	}
	r.active++
	r.mu.Unlock()
}

func (r *specRun) jobEnded() {
	r.mu.Lock()
	r.active--
	r.mu.Unlock()
}

// sampleRSS records rss as the spec's peak if some of its jobs run.
func (r *specRun) sampleRSS(rss int64) {
	r.mu.Lock()
	if r.active > 0 {
		r.peakRSS = max(r.peakRSS, rss)
	}
	r.mu.Unlock()
}

// overBudget reports how long the spec has run when that exceeds its
// budget and it has not completed.
func (r *specRun) overBudget(now time.Time) (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spec.Budget <= 0 || r.firstStart.IsZero() || !r.completed.IsZero() {
		return 0, false
	}
	d := now.Sub(r.firstStart)
	return d, d > r.spec.Budget
}

// Run runs the specs: plans every job, checks memory estimates, reuses
// stored results whose spec hash matches (unless Force), computes the rest
// in parallel, then for each spec merges the job tables in plan order,
// calls Finish and writes manifest.json. Bad input is reported before
// anything is written. The first error, or cancellation of ctx, stops
// every job; finished jobs stay stored.
func Run(ctx context.Context, specs []*Spec, opt RunOptions) ([]Result, error) {
	opt = opt.withDefaults()
	runs, err := prepare(specs, opt)
	if err != nil {
		return nil, err
	}
	env := CurrentEnv(ctx)
	con := newConsole(opt.Log, opt.ProgressEvery)
	for _, r := range runs {
		for _, l := range sizeLimits(r.spec) {
			con.Logf("%s: by size: %s", r.spec.Name, l)
		}
	}
	_, statErr := os.Stat(opt.Out)
	outCreated := errors.Is(statErr, fs.ErrNotExist)
	res, err := func() ([]Result, error) {
		defer unlockAll(runs)
		for _, r := range runs {
			if err := r.open(opt); err != nil {
				return nil, err
			}
		}
		return execute(ctx, runs, opt, con, env, nil)
	}()
	if err != nil {
		removeEmptyRuns(runs, opt.Out, outCreated)
	}
	return res, err
}

// sizeLimits asks the spec's parameters what the run will refuse or
// leave out by size (SizeLimited); a panic in kind code is one line.
func sizeLimits(s *Spec) []string {
	l, ok := s.Params.(SizeLimited)
	if !ok {
		return nil
	}
	var out []string
	if err := safely(func() error { out = l.SizeLimits(); return nil }); err != nil {
		return []string{fmt.Sprintf("cannot tell (%v)", err)}
	}
	return out
}

// datasetTitles asks the spec's parameters for the titles of their
// datasets (DatasetTitler); a panic in kind code leaves them unnamed.
func datasetTitles(s *Spec) []string {
	d, ok := s.Params.(DatasetTitler)
	if !ok {
		return nil
	}
	var out []string
	if safely(func() error { out = d.DatasetTitles(); return nil }) != nil {
		return nil
	}
	return out
}

// removeEmptyRuns deletes, after a failed run, the experiment directories
// this run created and stored no job in (and the output directory if this
// run created it and it is now empty), so a run that fails before any
// result exists leaves nothing behind. Directories holding stored jobs are
// kept: a rerun resumes from them.
func removeEmptyRuns(runs []*specRun, out string, outCreated bool) {
	for _, r := range runs {
		if !r.created {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(r.dir, jobsDir))
		if err != nil || len(entries) > 0 {
			continue
		}
		os.RemoveAll(r.dir)
	}
	if outCreated {
		os.Remove(out) // fails, harmlessly, unless empty
	}
}

// prepare plans the specs and applies the memory guard; it writes nothing.
func prepare(specs []*Spec, opt RunOptions) ([]*specRun, error) {
	if len(specs) == 0 {
		return nil, errors.New("no specs to run")
	}
	byName := map[string]string{}
	var runs []*specRun
	for _, s := range specs {
		if prev, dup := byName[s.Name]; dup {
			return nil, fmt.Errorf("%s: name %q is also used by %s: both would write %s", s.Path, s.Name, prev, filepath.Join(opt.Out, s.Name))
		}
		byName[s.Name] = s.Path
		jobs, err := s.Plan()
		if err != nil {
			return nil, err
		}
		r := &specRun{spec: s, dir: filepath.Join(opt.Out, s.Name), jobs: jobs, estimate: make([]int64, len(jobs))}
		if err := r.checkMemory(opt); err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// checkMemory asks the kind for each job's memory and refuses the spec
// if one job alone exceeds the limit.
func (r *specRun) checkMemory(opt RunOptions) error {
	est, ok := r.spec.Kind.(MemoryEstimator)
	if !ok {
		return nil
	}
	for _, j := range r.jobs {
		if !opt.Shard.Contains(j.Index) {
			continue
		}
		var b int64
		if err := safely(func() error { b = est.EstimateBytes(j.Job); return nil }); err != nil {
			return fmt.Errorf("%s: job %s: memory estimate: %v", r.spec.Path, j.Key, err)
		}
		r.estimate[j.Index] = max(b, 0)
		if opt.MemLimit > 0 && b > opt.MemLimit {
			return fmt.Errorf("%s: job %s needs about %s of memory, above the limit of %s (--mem-limit; default half the machine's memory)",
				r.spec.Path, j.Key, FormatBytes(b), FormatBytes(opt.MemLimit))
		}
	}
	return nil
}

// open prepares the experiment directory (see lockDirectory) and loads
// the stored results.
func (r *specRun) open(opt RunOptions) error {
	if _, err := os.Stat(r.dir); errors.Is(err, fs.ErrNotExist) {
		r.created = true
	}
	if err := r.lockDirectory(); err != nil {
		return fmt.Errorf("%s: %w", r.spec.Path, err)
	}
	r.recs = make([]*record, len(r.jobs))
	r.reused = make([]bool, len(r.jobs))
	hist := opt.History
	if hist == "" {
		hist = opt.Out
	}
	r.history = loadHistory(hist, r.spec.Name)
	for _, j := range r.jobs {
		if !opt.Shard.Contains(j.Index) {
			continue
		}
		if !opt.Force {
			if rec, _ := readRecord(filepath.Join(r.dir, jobsDir, jobFileName(j.Key)), r.spec.Hash, j.Key); rec != nil {
				r.recs[j.Index], r.reused[j.Index] = rec, true
				continue
			}
		}
		r.todo = append(r.todo, j.Index)
	}
	r.pending = len(r.todo)
	return nil
}

// lockDirectory creates and locks the experiment directory, and removes
// stale temporary files and the job files of other plans.
func (r *specRun) lockDirectory() error {
	if err := os.MkdirAll(filepath.Join(r.dir, jobsDir), 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(r.dir)
	if err != nil {
		return err
	}
	r.unlock = unlock
	if err := removeTemps(r.dir); err != nil {
		return err
	}
	return removeForeignJobs(r.dir, r.jobs)
}

// removeForeignJobs deletes job files that belong to no job of the plan
// (left by an earlier version of the spec), so the store holds exactly
// the plan's jobs.
func removeForeignJobs(dir string, jobs []PlannedJob) error {
	want := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		want[jobFileName(j.Key)] = true
	}
	entries, err := os.ReadDir(filepath.Join(dir, jobsDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !want[e.Name()] {
			if err := os.Remove(filepath.Join(dir, jobsDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func unlockAll(runs []*specRun) {
	for _, r := range runs {
		if r.unlock != nil {
			r.unlock()
		}
	}
}

// execute computes the pending jobs of all specs in one errgroup, and
// completes each spec (tables, Finish, manifest) in the slot of its last
// job, so no spec waits for another's jobs.
func execute(ctx context.Context, runs []*specRun, opt RunOptions, con *console, env Env, mergedFrom []string) ([]Result, error) {
	start := time.Now()
	act := newActivity()
	con.note = act.longestNote
	// The watcher cancels the run when a spec's budget runs out (the
	// cause says which jobs it cut), samples the memory of the running
	// specs and, once the run is cancelled, says what it waits for.
	bctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopWatch := watch(bctx, cancel, runs, act, opt, con)
	defer stopWatch()
	g, gctx := errgroup.WithContext(bctx)
	// slots holds one token per job or completion running (opt.Jobs at
	// most); the dispatcher takes a slot first, then the first job in the
	// schedule whose memory estimate fits beside the running ones.
	slots := make(chan struct{}, opt.Jobs)
	lim := &limits{mem: newMemPool(opt.MemLimit)}
	total := 0
	for _, r := range runs {
		total += len(r.todo)
	}
	con.startProgress("privic", total)
	finish := func(r *specRun) error {
		return r.complete(gctx, opt, con, env, start, mergedFrom)
	}
	// Specs that finish last complete after g.Wait, in their order.
	last := func(r *specRun) bool {
		fl, ok := r.spec.Kind.(FinishesLast)
		return ok && fl.FinishLast()
	}
	slot := func() bool {
		select {
		case slots <- struct{}{}:
			return true
		case <-gctx.Done():
			return false
		}
	}
	for _, r := range runs {
		if len(r.todo) == 0 && !last(r) && slot() {
			g.Go(func() error {
				defer func() { <-slots }()
				return finish(r)
			})
		}
	}
	for pending := schedule(runs); len(pending) > 0 && slot(); {
		k, ok := lim.mem.take(gctx, pending, func(t task) int64 { return t.run.estimate[t.job] })
		if !ok {
			<-slots
			break
		}
		t := pending[k]
		pending = slices.Delete(pending, k, k+1)
		r, i := t.run, t.job
		g.Go(func() error {
			defer func() { <-slots }()
			done, err := r.runJob(gctx, i, lim, con, act)
			if err != nil || !done || last(r) {
				return err
			}
			return finish(r)
		})
	}
	err := g.Wait()
	if cause := context.Cause(bctx); errors.Is(cause, ErrBudget) {
		stopWatch()
		con.stopProgress()
		return nil, fmt.Errorf("%w; %s", cause, storedText(runs, opt))
	}
	if err == nil && ctx.Err() == nil {
		for _, r := range runs {
			if last(r) {
				if err = r.complete(ctx, opt, con, env, start, mergedFrom); err != nil {
					break
				}
			}
		}
	}
	stopWatch()
	con.stopProgress()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %s", ErrInterrupted, storedText(runs, opt))
	}
	if err != nil {
		return nil, err
	}
	results := make([]Result, len(runs))
	for i, r := range runs {
		results[i] = r.result
	}
	if opt.Summary {
		con.Logf("%s", summaryTable(runs))
	}
	return results, nil
}

// ErrBudget is returned (wrapped) when a spec's jobs run past its budget:
// the run stops as an interrupted run does, and the error names the jobs
// that were still running.
var ErrBudget = errors.New("time budget exceeded")

// storedText is "12 of 40 jobs stored; run the same command again to
// resume".
func storedText(runs []*specRun, opt RunOptions) string {
	stored, want := 0, 0
	for _, r := range runs {
		r.mu.Lock()
		for _, j := range r.jobs {
			if opt.Shard.Contains(j.Index) {
				want++
				if r.recs[j.Index] != nil {
					stored++
				}
			}
		}
		r.mu.Unlock()
	}
	return fmt.Sprintf("%d of %d jobs stored; run the same command again to resume", stored, want)
}

// watch starts the run's watcher (see execute) and returns the function
// that stops it and waits for it.
func watch(ctx context.Context, cancel context.CancelCauseFunc, runs []*specRun, act *activity, opt RunOptions, con *console) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		stopped := ctx.Done()
		for {
			select {
			case <-done:
				return
			case <-stopped:
				stopped = nil // said once, below
				now := time.Now()
				w := opt.Stopping
				if w == nil {
					w = opt.Log
				}
				if jobs := act.running(nil); w != nil && len(jobs) > 0 {
					con.logTo(w, "privic: stopping: waiting for %d running job(s) to return (a second Ctrl-C aborts at once; finished jobs stay stored): %s",
						len(jobs), describeAll(jobs, now, 8))
				}
			case now := <-tick.C:
				rss := rssBytes()
				for _, r := range runs {
					r.sampleRSS(rss)
					if d, over := r.overBudget(now); over && ctx.Err() == nil {
						cancel(fmt.Errorf("%w: %s: budget %v, its jobs have run for %s; still running: %s (the jobs finished so far are stored)",
							ErrBudget, r.spec.Path, r.spec.Budget, shortDuration(d), describeAll(act.running(r), now, 8)))
					}
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// summaryTable is the table that ends a run with RunOptions.Summary.
func summaryTable(runs []*specRun) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "spec\twall\tjobs (computed/reused)\tpeak RSS")
	for _, r := range runs {
		r.mu.Lock()
		wall := "-"
		if !r.firstStart.IsZero() && !r.completed.IsZero() {
			wall = shortDuration(r.completed.Sub(r.firstStart))
		}
		rss := "-"
		if r.peakRSS > 0 {
			rss = FormatBytes(r.peakRSS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\n", r.spec.Path, wall, r.computed, len(r.jobs)-r.computed, rss)
		r.mu.Unlock()
	}
	tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// task is one pending job of a spec.
type task struct {
	run *specRun
	job int // plan index
}

// schedule orders the pending jobs of all specs for submission (the
// errgroup starts them in this order as slots free up):
//
//  1. jobs of Exclusive kinds, which run alone anyway: first, so they
//     neither stall a busy pool nor leave a core idle at the end;
//  2. jobs whose cost is unknown (no time recorded by an earlier run, no
//     CostEstimator), in plan order: they go early, where a long one
//     cannot form the tail;
//  3. every other job of every spec, longest first (longest-processing-
//     time order over the whole run, ties in plan order): the cost of a
//     job is the time an earlier run recorded for it (RunOptions.History)
//     or else its kind's estimate, so the run ends on short jobs and no
//     long job of a light spec is left to run alone at the end.
//
// Results do not depend on the order: every job's random stream comes
// from its key.
func schedule(runs []*specRun) []task {
	var first, plain, costed []task
	cost := map[task]float64{}
	for _, r := range runs {
		if len(r.todo) == 0 {
			continue
		}
		if ex, ok := r.spec.Kind.(Exclusive); ok && ex.Exclusive() {
			for _, i := range r.todo {
				first = append(first, task{r, i})
			}
			continue
		}
		est, hasEst := r.spec.Kind.(CostEstimator)
		for _, i := range r.todo {
			t := task{r, i}
			if v, ok := r.history[r.jobs[i].Key]; ok {
				cost[t] = v
				costed = append(costed, t)
				continue
			}
			if !hasEst {
				plain = append(plain, t)
				continue
			}
			v := 0.0
			// A panicking or silly estimate only loses the ordering.
			_ = safely(func() error { v = est.EstimateCost(r.jobs[i].Job); return nil })
			if !(v >= 0) || math.IsInf(v, 1) {
				v = 0
			}
			cost[t] = v
			costed = append(costed, t)
		}
	}
	slices.SortStableFunc(costed, func(a, b task) int { return cmp.Compare(cost[b], cost[a]) })
	out := append(first, plain...)
	return append(out, costed...)
}

// loadHistory reads the job times that the manifest of an earlier run of
// the spec (under root) recorded, by job key; nothing when there is none.
func loadHistory(root, name string) map[string]float64 {
	m, err := ReadManifest(filepath.Join(root, name))
	if err != nil {
		return nil
	}
	h := make(map[string]float64, len(m.Jobs))
	for _, j := range m.Jobs {
		if j.Seconds >= 0 && !math.IsInf(j.Seconds, 0) {
			h[j.Key] = j.Seconds
		}
	}
	return h
}

// limits are what jobs share besides the run's slots.
type limits struct {
	mem *memPool // memory estimates of running jobs
	// alone is held for writing by a job of an Exclusive kind and for
	// reading by every other job.
	alone sync.RWMutex
}

// runJob computes and stores one job; last reports whether it was the
// spec's last pending job.
func (r *specRun) runJob(ctx context.Context, i int, lim *limits, con *console, act *activity) (last bool, err error) {
	defer lim.mem.give(r.estimate[i]) // taken by the dispatcher
	j := r.jobs[i]
	fail := func(err error) error { return fmt.Errorf("%s: job %s: %w", r.spec.Path, j.Key, err) }
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if ex, ok := r.spec.Kind.(Exclusive); ok && ex.Exclusive() {
		lim.alone.Lock()
		defer lim.alone.Unlock()
	} else {
		lim.alone.RLock()
		defer lim.alone.RUnlock()
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	t0 := time.Now()
	var tables []Table
	jctx, end := act.begin(ctx, r, j.Key)
	err = safely(func() error {
		var err error
		tables, err = r.spec.Kind.Run(jctx, j.Job, j.Rand())
		return err
	})
	end()
	secs := time.Since(t0).Seconds()
	if ctx.Err() != nil {
		// A job cut short may return partial tables without an error:
		// never store what ran under a cancelled context.
		return false, ctx.Err()
	}
	if err != nil {
		return false, fail(errors.New(oneLine(err.Error())))
	}
	for _, t := range tables {
		if err := checkTable(t); err != nil {
			return false, fail(err)
		}
	}
	if names := tableNames(tables); len(names) != len(slices.Compact(slices.Sorted(slices.Values(names)))) {
		return false, fail(fmt.Errorf("tables %q: a job returns each table once", names))
	}
	rec := newRecord(r.spec.Hash, j.Key, secs, tables)
	if err := writeRecord(filepath.Join(r.dir, jobsDir, jobFileName(j.Key)), rec); err != nil {
		return false, fail(err)
	}
	r.mu.Lock()
	r.recs[i] = rec
	r.computed++
	r.pending--
	last = r.pending == 0
	r.mu.Unlock()
	con.jobDone()
	return last, nil
}

func tableNames(ts []Table) []string {
	n := make([]string, len(ts))
	for i, t := range ts {
		n[i] = t.Name
	}
	return n
}

// complete finishes a spec whose jobs are all stored: merged tables,
// Finish and manifest (only the manifest for a shard).
func (r *specRun) complete(ctx context.Context, opt RunOptions, con *console, env Env, start time.Time, mergedFrom []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := r.spec
	m := &Manifest{
		Format: 1, Name: s.Name, Kind: s.Kind.Name(), Description: s.Description,
		SpecFile: s.Path, SpecHash: s.Hash, DataDir: s.DataDir, Datasets: datasetTitles(s), Seed: s.Seed, Shard: opt.Shard.String(),
		MergedFrom: mergedFrom, Env: env, Parallelism: opt.Jobs, Start: start.UTC(),
		Jobs: []JobTiming{}, Tables: []string{},
	}
	var recs []*record
	for _, j := range r.jobs {
		if !opt.Shard.Contains(j.Index) {
			continue
		}
		rec := r.recs[j.Index]
		if rec == nil {
			return fmt.Errorf("%s: job %s has no stored result (internal error)", s.Path, j.Key)
		}
		recs = append(recs, rec)
		m.Jobs = append(m.Jobs, JobTiming{Key: j.Key, Seconds: rec.Seconds, Reused: r.reused[j.Index]})
		if r.reused[j.Index] {
			m.JobsReused++
		} else {
			m.JobsComputed++
		}
	}
	// spec.toml, the tables and the manifest are written together, after
	// the jobs, so they always describe the same spec.
	if err := WriteFileAtomic(filepath.Join(r.dir, specCopy), s.Source); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	if opt.Shard.Whole() {
		if err := r.finish(ctx, con, recs, m); err != nil {
			return err
		}
	}
	end := time.Now()
	m.End = end.UTC()
	m.WallSeconds = end.Sub(start).Seconds()
	r.mu.Lock()
	r.completed = end
	if r.peakRSS > 0 {
		m.PeakRSSBytes = r.peakRSS
	}
	r.mu.Unlock()
	if err := writeManifest(filepath.Join(r.dir, manifestFile), m); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	r.manifest = m
	r.result = Result{Spec: s, Dir: r.dir, Manifest: m}
	what := "jobs"
	if !opt.Shard.Whole() {
		what = "jobs of shard " + opt.Shard.String()
	}
	con.Logf("%s: %d %s (%d computed, %d reused) in %s -> %s", s.Name, len(recs), what, m.JobsComputed, m.JobsReused, shortDuration(end.Sub(start)), r.dir)
	return nil
}

// finish writes the merged job tables, runs the kind's Finish and writes
// the Section it returns; it records the tables and Finish's time in m.
func (r *specRun) finish(ctx context.Context, con *console, recs []*record, m *Manifest) error {
	s := r.spec
	tables, err := mergeTables(recs)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	if err := removeOldTables(r.dir, tables); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	for _, t := range tables {
		if err := atomicfile.WriteFile(filepath.Join(r.dir, t.Name+".csv"), func(w io.Writer) error { return encodeCSV(w, t) }); err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		m.Tables = append(m.Tables, t.Name)
	}
	out := &Output{dir: r.dir, name: s.Name, console: con, jobTables: m.Tables}
	t0 := time.Now()
	err = safely(func() error {
		sec, err := s.Kind.Finish(ctx, s.Params, out)
		if err != nil {
			return err
		}
		return out.writeSection(sec, s.Kind.Outputs())
	})
	m.FinishSeconds = time.Since(t0).Seconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%s: finish: %s", s.Path, oneLine(err.Error()))
	}
	return nil
}

// Checked is what Check found out about a spec.
type Checked struct {
	Spec     *Spec
	Jobs     int   // jobs in the plan (all shards)
	MaxBytes int64 // largest memory estimate of a job (0 if the kind gives none)
	// Limits are what the run will refuse or leave out by size
	// (SizeLimited).
	Limits []string
}

// Check plans the specs and applies the memory guard without writing
// anything (what `privic validate` does, and what Run does first).
func Check(specs []*Spec, opt RunOptions) ([]Checked, error) {
	opt = opt.withDefaults()
	runs, err := prepare(specs, opt)
	if err != nil {
		return nil, err
	}
	out := make([]Checked, len(runs))
	for i, r := range runs {
		out[i] = Checked{Spec: r.spec, Jobs: len(r.jobs), MaxBytes: slices.Max(r.estimate), Limits: sizeLimits(r.spec)}
	}
	return out, nil
}

// removeOldTables deletes the merged job tables of the previous run (as
// its manifest lists them) that this run no longer produces, so a
// directory never mixes tables of two versions of a kind.
func removeOldTables(dir string, tables []Table) error {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return nil // no previous run
	}
	var old Manifest
	if json.Unmarshal(b, &old) != nil {
		return nil
	}
	for _, name := range old.Tables {
		if !namePattern.MatchString(name) || slices.ContainsFunc(tables, func(t Table) bool { return t.Name == name }) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name+".csv")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
