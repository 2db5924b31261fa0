package harness

import (
	"context"
	"sync"
)

// memPool shares a memory limit among the jobs running at once, by their
// estimates (MemoryEstimator). Unlike a FIFO semaphore it never lets a job
// that does not fit hold up the jobs behind it: the dispatcher takes the
// first job in the schedule that fits, so a large job waiting for memory
// leaves its core to smaller ones, and it starts as soon as enough is
// given back, before any job behind it.
type memPool struct {
	mu    sync.Mutex
	limit int64 // <= 0: no limit
	used  int64
	// freed is signalled (without blocking) whenever memory is given back.
	freed chan struct{}
}

func newMemPool(limit int64) *memPool {
	return &memPool{limit: limit, freed: make(chan struct{}, 1)}
}

// take waits until one of the pending tasks fits beside the running jobs,
// reserves its estimate and returns its index: the first that fits, in
// the order given. It returns false when ctx is done first. Every
// estimate is at most the limit (the memory guard refused larger ones),
// so a task always fits once the running jobs have given theirs back.
func (p *memPool) take(ctx context.Context, pending []task, estimate func(task) int64) (int, bool) {
	for {
		p.mu.Lock()
		for k, t := range pending {
			if e := max(estimate(t), 0); p.limit <= 0 || p.used+e <= p.limit || p.used == 0 {
				p.used += e
				p.mu.Unlock()
				return k, true
			}
		}
		p.mu.Unlock()
		select {
		case <-p.freed:
		case <-ctx.Done():
			return 0, false
		}
	}
}

// give returns a job's estimate to the pool.
func (p *memPool) give(n int64) {
	p.mu.Lock()
	p.used -= max(n, 0)
	p.mu.Unlock()
	select {
	case p.freed <- struct{}{}:
	default:
	}
}
