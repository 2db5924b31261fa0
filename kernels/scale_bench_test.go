package kernels_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"privic/datasets"
	"privic/kernels"
)

// BenchmarkScale times the kernels on the synthetic hotspot cities with the
// workloads of the NumPy/POT peer (numpy_kernels.py --sides), so that its
// medians can be set against the peer's run in the same session:
//
//	BA10       10 BA iterations from uniform at beta = 1 on the hotspot prior
//	IBU10      10 IBU iterations from uniform on that channel's report
//	           distribution q = prior C (factorised, BAChannel.Factorised)
//	EMD        the exact EMD between the prior and the IBU10 estimate
//	EMDUniform    the exact EMD from the uniform distribution to the prior
//	EMDTranspose  the exact EMD from the prior to its reflection on the
//	           diagonal (kernels.EMDPair: the pairs of the POT peer
//	           emd_pairs.py, whose mass travels across the city); the
//	           emd metric is the value, to set against the peer's
//	Obfuscate  all 200,000 check-ins through the BA channel (one exact
//	           multinomial per occupied cell) and the empirical report
//	           distribution
//	TightEps   the tight epsilon of the BA channel
//
// Sides 32 to 256 read ../shared/datasets/synthetic/hotspots-<side>.csv
// (the peer's data; skipped, saying so, without ../shared); BA10 and IBU10
// also run at 512 and 1024 on cities drawn by datasets.Hotspots. Run one
// size per process to measure its peak memory, e.g.
//
//	go test -c -o /tmp/kernels.test ./kernels
//	/usr/bin/time -v /tmp/kernels.test -test.run '^$' -test.bench 'BenchmarkScale/BA10/1024$'
func BenchmarkScale(b *testing.B) {
	sides := []int{32, 64, 100, 128, 256}
	all := append(sides, 512, 1024)
	b.Run("BA10", func(b *testing.B) {
		benchSides(b, all, func(b *testing.B, c *scaleCity) func() error {
			return func() error {
				_, err := kernels.BA(c.g, c.prior, kernels.BAConfig{Beta: 1, Iterations: 10})
				return err
			}
		})
	})
	b.Run("IBU10", func(b *testing.B) {
		benchSides(b, all, func(b *testing.B, c *scaleCity) func() error {
			c.channel(b)
			var ws kernels.IBUWorkspace
			dst := make([]float64, c.g.Len())
			return func() error {
				_, _, err := ws.IBU(dst, c.ba.Factorised(), c.q, nil, kernels.IBUConfig{Iterations: 10})
				return err
			}
		})
	})
	b.Run("EMD", func(b *testing.B) {
		benchSides(b, sides, func(b *testing.B, c *scaleCity) func() error {
			c.channel(b)
			est, _, err := kernels.IBU(c.ba.Factorised(), c.q, nil, kernels.IBUConfig{Iterations: 10})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := kernels.EMD(c.g, c.prior, c.g, est); err != nil {
				b.Skipf("SKIPPING: EMD at side %d refused: %v", c.g.Rows, err)
			}
			return func() error {
				_, err := kernels.EMD(c.g, c.prior, c.g, est)
				return err
			}
		})
	})
	for _, pair := range kernels.EMDPairs() {
		b.Run("EMD"+strings.ToUpper(pair[:1])+pair[1:], func(b *testing.B) {
			benchSides(b, sides, func(b *testing.B, c *scaleCity) func() error {
				p, q, err := kernels.EMDPair(c.g, c.counts, pair)
				if err != nil {
					b.Fatal(err)
				}
				return func() error {
					v, err := kernels.EMD(c.g, p, c.g, q)
					b.ReportMetric(v, "emd")
					return err
				}
			})
		})
	}
	b.Run("Obfuscate", func(b *testing.B) {
		benchSides(b, sides, func(b *testing.B, c *scaleCity) func() error {
			c.channel(b)
			rng := rand.New(rand.NewPCG(1, 2))
			q := make([]float64, c.g.Len())
			return func() error {
				rep, err := kernels.Obfuscate(rng, c.counts, c.ba)
				if err != nil {
					return err
				}
				kernels.EmpiricalInto(q, rep)
				return nil
			}
		})
	})
	b.Run("TightEps", func(b *testing.B) {
		benchSides(b, sides, func(b *testing.B, c *scaleCity) func() error {
			c.channel(b)
			return func() error {
				_, err := c.ba.TightEpsilon()
				return err
			}
		})
	})
}

// benchSides runs a benchmark per city side; setup prepares the operation
// from the city outside the timed loop (it may skip), and the loop times
// op alone.
func benchSides(b *testing.B, sides []int, setup func(b *testing.B, c *scaleCity) (op func() error)) {
	for _, side := range sides {
		b.Run(strconv.Itoa(side), func(b *testing.B) {
			op := setup(b, loadScaleCity(b, side))
			b.ReportAllocs()
			defer kernels.StartCPU().Report(b)
			for b.Loop() {
				if err := op(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type scaleCity struct {
	g      kernels.Grid
	counts []int
	prior  []float64
	ba     *kernels.BAChannel
	q      []float64
}

// channel adds the BA channel (beta = 1, 10 iterations) and its report
// distribution q = prior C.
func (c *scaleCity) channel(b *testing.B) {
	b.Helper()
	ba, err := kernels.BA(c.g, c.prior, kernels.BAConfig{Beta: 1, Iterations: 10})
	if err != nil {
		b.Fatal(err)
	}
	q, err := kernels.Marginal(c.prior, ba)
	if err != nil {
		b.Fatal(err)
	}
	c.ba, c.q = ba, q
}

// loadScaleCity reads hotspots-<side>.csv from ../shared (sides up to 256)
// or draws the city with datasets.Hotspots (larger sides).
func loadScaleCity(b *testing.B, side int) *scaleCity {
	b.Helper()
	var counts []int
	if side > 256 {
		ds, err := datasets.Hotspots(side)
		if err != nil {
			b.Fatal(err)
		}
		counts = ds.Counts
	} else {
		dir, why := kernels.SharedDir()
		if dir == "" {
			b.Skipf("SKIPPING: the hotspot cities need ../shared next to the module root: %s", why)
		}
		ds, err := datasets.ReadHotspots(filepath.Join(dir, "datasets", "synthetic", fmt.Sprintf("hotspots-%d.csv", side)), side)
		if err != nil {
			b.Skipf("SKIPPING: %v", err)
		}
		counts = ds.Counts
	}
	g, err := kernels.NewGrid(side, side)
	if err != nil {
		b.Fatal(err)
	}
	return &scaleCity{g: g, counts: counts, prior: kernels.Empirical(counts)}
}
