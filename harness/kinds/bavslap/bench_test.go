package bavslap

import (
	"context"
	"math/rand/v2"
	"testing"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
)

// BenchmarkBaVsLapJob is one ba-vs-lap job at the paper's protocol (BA and
// LAP channels, 5 simulations of both mechanisms, true and reference EMD).
func BenchmarkBaVsLapJob(b *testing.B) {
	for _, city := range []string{"paris", "sf"} {
		b.Run(city, func(b *testing.B) {
			p := def{}.NewParams()
			ds, err := datasets.Load(city, datasets.LoadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			key := "city=" + city + "/beta=1"
			for b.Loop() {
				if _, err := (def{}).Run(context.Background(), job{p: p, ds: ds, beta: 1}, harness.JobRand(1, key)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUtilitySteps times the steps of one simulation of LAP (the
// larger, widened channel) separately.
func BenchmarkUtilitySteps(b *testing.B) {
	for _, city := range []string{"paris", "sf"} {
		ds, err := datasets.Load(city, datasets.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		g, prior := ds.Grid, ds.Prior()
		ch, err := kernels.Laplace(g, g.Widen(5), 2)
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		reports, err := kernels.Obfuscate(r, ds.Counts, ch)
		if err != nil {
			b.Fatal(err)
		}
		q := make([]float64, len(reports))
		for y, v := range reports {
			q[y] = float64(v) / float64(ds.N)
		}
		est, _, err := kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: 10})
		if err != nil {
			b.Fatal(err)
		}
		e, _ := newPointEMD(g, g.Len())
		d, _ := newPointEMD(g.Widen(5), g.Len())
		b.Run(city+"/laplace", func(b *testing.B) {
			for b.Loop() {
				kernels.Laplace(g, g.Widen(5), 2)
			}
		})
		b.Run(city+"/obfuscate", func(b *testing.B) {
			for b.Loop() {
				kernels.Obfuscate(r, ds.Counts, ch)
			}
		})
		b.Run(city+"/ibu10", func(b *testing.B) {
			for b.Loop() {
				kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: 10})
			}
		})
		b.Run(city+"/emd", func(b *testing.B) {
			for b.Loop() {
				e.dist(est, prior)
			}
		})
		b.Run(city+"/emd-defect", func(b *testing.B) {
			for b.Loop() {
				d.dist(prior, est)
			}
		})
	}
}
