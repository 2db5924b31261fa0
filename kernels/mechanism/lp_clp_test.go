//go:build clp && cgo

package mechanism

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
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
	defer m.free()
	// min c.x subject to A x >= 1, x >= 0, A random with 20 entries per
	// column: 2,000 rows and 20,000 columns, seconds of primal simplex.
	const rows, cols = 2000, 20000
	rng := rand.New(rand.NewPCG(5, 6))
	lo, up := make([]float64, rows), make([]float64, rows)
	for i := range lo {
		lo[i], up[i] = 1, math.Inf(1)
	}
	if err := m.addRows(lo, up, make([]int32, rows+1), nil, nil); err != nil {
		t.Fatal(err)
	}
	cost, lb, ub := make([]float64, cols), make([]float64, cols), make([]float64, cols)
	start, idx, val := make([]int32, cols+1), make([]int32, 0, rows*cols), make([]float64, 0, rows*cols)
	for j := range cost {
		cost[j], ub[j] = 1+rng.Float64(), math.Inf(1)
		for _, i := range rng.Perm(rows)[:20] {
			idx, val = append(idx, int32(i)), append(val, rng.Float64())
		}
		slices.Sort(idx[start[j]:])
		start[j+1] = int32(len(idx))
	}
	if err := m.addCols(cost, lb, ub, start, idx, val); err != nil {
		t.Fatal(err)
	}
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
	err = m.solve(false, limit)
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
