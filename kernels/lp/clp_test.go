//go:build clp && cgo

package lp

import (
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCLPTimeLimitIsWallClock: solve's limit is in wall-clock seconds.
// CLP's own limit is in the process's user CPU time (CoinCpuTime), which
// runs ahead of the wall clock while other goroutines (other jobs) compute;
// a regeneration of mechanisms-full failed on a master LP that stopped on
// time before its job's deadline. With every CPU busy beside it, an LP
// that outlasts the limit must stop on time only once the limit has passed
// on the wall clock.
func TestCLPTimeLimitIsWallClock(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2: other goroutines must compute beside CLP")
	}
	m, err := newCLPModel()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	// 2,000 rows and 20,000 columns: seconds of primal simplex.
	loadCover(t, m, 2000, 20000)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			x := 0.0
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range 100000 {
					x += math.Sqrt(float64(i))
				}
				if x < 0 {
					return
				}
			}
		})
	}
	const limit = 1.0
	t0 := time.Now()
	err = m.Solve(false, limit)
	wall := time.Since(t0).Seconds()
	close(stop)
	wg.Wait()
	if err == nil {
		t.Fatalf("solved in %.2f s: the LP must outlast the %v s limit", wall, limit)
	}
	if !strings.Contains(err.Error(), "stopped on iterations or time") || wall < limit {
		t.Errorf("after %.3f s of wall-clock time: %v; want a stop on time after %v s", wall, err, limit)
	}
}

// released reports whether free has deleted the CLP model.
func (c *clpModel) released() bool { return c.m == nil }
