package harness

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// activity is the set of jobs running in a run, with what each reports of
// its progress: the progress line shows the job that has run longest, a
// stop says which jobs it waits for, and a spec's budget names the jobs it
// cut.
type activity struct {
	mu   sync.Mutex
	jobs map[*runningJob]bool
}

// runningJob is one job while it runs.
type runningJob struct {
	run   *specRun
	key   string
	start time.Time

	mu     sync.Mutex
	status string
}

// progressKey is the context key under which a job finds its runningJob.
type progressKey struct{}

func newActivity() *activity { return &activity{jobs: map[*runningJob]bool{}} }

// begin registers a job that starts now and returns the context it runs
// with (carrying its progress reporter) and the function that ends it.
func (a *activity) begin(ctx context.Context, r *specRun, key string) (context.Context, func()) {
	j := &runningJob{run: r, key: key, start: time.Now()}
	a.mu.Lock()
	a.jobs[j] = true
	a.mu.Unlock()
	r.jobStarted(j.start)
	return context.WithValue(ctx, progressKey{}, j), func() {
		a.mu.Lock()
		delete(a.jobs, j)
		a.mu.Unlock()
		r.jobEnded()
	}
}

// running lists the running jobs (of spec r only, when r is not nil),
// longest first.
func (a *activity) running(r *specRun) []*runningJob {
	a.mu.Lock()
	var out []*runningJob
	for j := range a.jobs {
		if r == nil || j.run == r {
			out = append(out, j)
		}
	}
	a.mu.Unlock()
	slices.SortFunc(out, func(x, y *runningJob) int {
		if c := x.start.Compare(y.start); c != 0 {
			return c
		}
		return strings.Compare(x.key, y.key)
	})
	return out
}

// describe is "spec job (3m12s: LP round 34)".
func (j *runningJob) describe(now time.Time) string {
	j.mu.Lock()
	status := j.status
	j.mu.Unlock()
	d := shortDuration(now.Sub(j.start))
	if status != "" {
		d += ": " + status
	}
	return fmt.Sprintf("%s %s (%s)", j.run.spec.Name, j.key, d)
}

// describeAll joins describe over jobs, at most limit of them.
func describeAll(jobs []*runningJob, now time.Time, limit int) string {
	var parts []string
	for i, j := range jobs {
		if i == limit {
			parts = append(parts, fmt.Sprintf("and %d more", len(jobs)-limit))
			break
		}
		parts = append(parts, j.describe(now))
	}
	return strings.Join(parts, "; ")
}

// Progress tells the run what a long job is doing, e.g. "calibration: 12
// channels" or "LP round 34, gap 3e-4": the progress line shows it beside
// the job that has run longest, and a stop or an exhausted budget names
// it. Kinds pass it on to the kernels' progress callbacks. Outside a run
// (tests, tools) it does nothing.
func Progress(ctx context.Context, format string, args ...any) {
	j, _ := ctx.Value(progressKey{}).(*runningJob)
	if j == nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	j.mu.Lock()
	j.status = s
	j.mu.Unlock()
}

// longestNote is the progress line's note on the job that has run
// longest, once it has run for a while ("" otherwise).
func (a *activity) longestNote(now time.Time) string {
	jobs := a.running(nil)
	if len(jobs) == 0 || now.Sub(jobs[0].start) < 20*time.Second {
		return ""
	}
	return "longest: " + jobs[0].describe(now)
}

// rssBytes is the process's resident memory (Linux: /proc/self/statm;
// 0 where it cannot be read).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
