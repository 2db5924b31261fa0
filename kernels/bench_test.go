package kernels

import (
	"math/rand/v2"
	"testing"
)

// The benchmarks below do the workloads of the NumPy/POT peer benchmark
// (BA10, IBU10, EMD, obfuscation) on the Paris and SF data (empirical prior, beta = 1), so their medians
// can be set against the peer's run in the same session.

var benchCities = []string{"paris", "sf"}

type benchCity struct {
	g      Grid
	counts []int
	prior  []float64
	ba     *BAChannel
	ch     *Channel
	q      []float64
}

func loadBenchCity(b *testing.B, city string) benchCity {
	b.Helper()
	g, counts := loadCity(b, city)
	prior := cityPrior(counts)
	ba, err := BA(g, prior, BAConfig{Beta: 1, Iterations: 10})
	if err != nil {
		b.Fatal(err)
	}
	ch := ba.Channel()
	q, err := Marginal(prior, ch)
	if err != nil {
		b.Fatal(err)
	}
	return benchCity{g: g, counts: counts, prior: prior, ba: ba, ch: ch, q: q}
}

// benchEachCity runs a benchmark per city; setup prepares the operation
// from the city's data outside the timed loop, and the loop times op alone.
func benchEachCity(b *testing.B, setup func(c benchCity) (op func() error)) {
	for _, city := range benchCities {
		b.Run(city, func(b *testing.B) {
			op := setup(loadBenchCity(b, city))
			b.ReportAllocs()
			defer startCPU().report(b)
			for b.Loop() {
				if err := op(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBA10: 10 BA iterations from the uniform channel at beta = 1,
// including the kernel table (the peer computes exp(-D) inside too).
func BenchmarkBA10(b *testing.B) {
	benchEachCity(b, func(c benchCity) func() error {
		return func() error {
			_, err := BA(c.g, c.prior, BAConfig{Beta: 1, Iterations: 10})
			return err
		}
	})
}

// BenchmarkIBU10Dense: 10 IBU iterations from uniform on the materialised
// BA channel with q = prior C (workspace reused: no allocations): the path
// for channels of any form.
func BenchmarkIBU10Dense(b *testing.B) {
	benchIBU10(b, func(ws *IBUWorkspace, dst []float64, c benchCity) error {
		_, _, err := ws.IBU(dst, c.ch, c.q, nil, IBUConfig{Iterations: 10})
		return err
	})
}

// BenchmarkIBU10: the peer's ibu10 workload, 10 IBU iterations from
// uniform on the BA channel with q = prior C, in the factorised form
// (BAChannel.Factorised: two stencil products per iteration, the channel
// never materialised), the form every BA channel is meant to be used in.
func BenchmarkIBU10(b *testing.B) {
	benchIBU10(b, func(ws *IBUWorkspace, dst []float64, c benchCity) error {
		_, _, err := ws.IBU(dst, c.ba.Factorised(), c.q, nil, IBUConfig{Iterations: 10})
		return err
	})
}

// benchIBU10 runs one IBU path per city with a reused workspace.
func benchIBU10(b *testing.B, run func(ws *IBUWorkspace, dst []float64, c benchCity) error) {
	benchEachCity(b, func(c benchCity) func() error {
		var ws IBUWorkspace
		dst := make([]float64, c.g.Len())
		return func() error { return run(&ws, dst, c) }
	})
}

// BenchmarkObfuscate: all N check-ins through the BA channel, then the
// empirical report distribution.
func BenchmarkObfuscate(b *testing.B) {
	benchEachCity(b, func(c benchCity) func() error {
		rng := rand.New(rand.NewPCG(1, 2))
		q := make([]float64, c.g.Len())
		return func() error {
			rep, err := Obfuscate(rng, c.counts, c.ch)
			if err != nil {
				return err
			}
			empiricalInto(q, rep)
			return nil
		}
	})
}

// BenchmarkTightEps: tight epsilon of the BA channel at beta = 1 by the
// O(m^2) form.
func BenchmarkTightEps(b *testing.B) {
	benchEachCity(b, func(c benchCity) func() error {
		return func() error {
			_, err := c.ba.TightEpsilon()
			return err
		}
	})
}
