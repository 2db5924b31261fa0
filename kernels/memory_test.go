package kernels

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestBAMemory: the estimate covers the heap that BA, IBU on its channel
// and an obfuscation actually keep live (measured after a collection, with
// everything still reachable), without being far above it.
func TestBAMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING: measures the heap around BA on a 128 x 128 grid")
	}
	rng := rand.New(rand.NewPCG(91, 92))
	for _, side := range []int{20, 64, 128} {
		g, _ := NewGrid(side, side)
		prior := islandPrior(rng, side, side)
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var ws BAWorkspace
		b, err := ws.BA(g, prior, BAConfig{Beta: 1, Iterations: 10})
		if err != nil {
			t.Fatal(err)
		}
		q, _ := Marginal(prior, b)
		var iw IBUWorkspace
		est, _, err := iw.IBU(nil, b.Factorised(), q, nil, IBUConfig{Iterations: 5})
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, g.Len())
		for x, p := range prior {
			counts[x] = int(p * 1e5)
		}
		if _, err := Obfuscate(rng, counts, b); err != nil {
			t.Fatal(err)
		}
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(&ws)
		runtime.KeepAlive(&iw)
		runtime.KeepAlive(est)
		peak := BAMemory(g)
		t.Logf("%v: live %d KiB, estimated peak %d KiB", g, live>>10, peak>>10)
		if live > peak/2 || (side >= 64 && 4*live < peak/2) {
			t.Errorf("%v: BAMemory %d bytes (live estimate %d) against %d bytes measured", g, peak, peak/2, live)
		}
	}
}
