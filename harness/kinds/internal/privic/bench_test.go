package privic

import (
	"context"
	"math/rand/v2"
	"testing"

	"privic/datasets"
	"privic/kernels"
)

// benchPopulation loads a paper city for the benchmarks.
func benchPopulation(b *testing.B, city string) *population {
	b.Helper()
	ds, err := datasets.Load(city, datasets.LoadOptions{})
	if err != nil {
		b.Skipf("SKIPPED: cannot load %s: %v", city, err)
	}
	pop, err := populationOf(ds, 0.1, []float64{1})
	if err != nil {
		b.Fatal(err)
	}
	return pop
}

func paperConfig(p *Protocol, city string, v Variant, perCycle bool) simConfig {
	return simConfig{
		Beta: 1, Variant: v, Schedule: p.Schedule(city), LaplaceEps: 2,
		PerCycle: perCycle, Population: true, Batch: true,
		FinalGIBU: true, GIBUStart: "previous", FinalBA: true,
	}
}

// BenchmarkTrajectory is one privic-convergence job (one round of one
// variant, both EMD references per cycle) at beta = 1.
func BenchmarkTrajectory(b *testing.B) {
	p := DefaultProtocol(1, 1)
	for _, city := range []string{"paris", "sf"} {
		for _, v := range []Variant{PaperVariant(), ReferenceVariant()} {
			for _, perCycle := range []bool{true, false} {
				name := city + "/" + v.Name()
				if !perCycle {
					name += "/final-only"
				}
				b.Run(name, func(b *testing.B) {
					pop := benchPopulation(b, city)
					cfg := paperConfig(&p, city, v, perCycle)
					rng := rand.New(rand.NewPCG(1, 2))
					for b.Loop() {
						if _, err := simulate(context.Background(), rng, pop, cfg); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkCycleSteps times the steps of one PRIVIC cycle (paper variant,
// beta = 1, a mid-run estimate) so that the per-job cost can be split.
func BenchmarkCycleSteps(b *testing.B) {
	p := DefaultProtocol(1, 1)
	for _, city := range []string{"paris", "sf"} {
		pop := benchPopulation(b, city)
		cfg := paperConfig(&p, city, PaperVariant(), true)
		cfg.Schedule.Cycles = 4
		cfg.trace = true
		tr, err := simulate(context.Background(), rand.New(rand.NewPCG(3, 4)), pop, cfg)
		if err != nil {
			b.Fatal(err)
		}
		theta := tr.Last
		var ws kernels.BAWorkspace
		var iw kernels.IBUWorkspace
		bac, err := ws.BA(pop.grid, theta, cfg.baConfig())
		if err != nil {
			b.Fatal(err)
		}
		ch := bac.Channel()
		rng := rand.New(rand.NewPCG(5, 6))
		s := newSampler(rng, pop, false)
		emp := make([]float64, pop.grid.Len())
		rep := make([]float64, pop.grid.Len())
		q := make([]float64, pop.grid.Len())
		if err := s.draw(1, emp); err != nil {
			b.Fatal(err)
		}
		if err := s.obfuscate(ch, rep); err != nil {
			b.Fatal(err)
		}
		for y := range q {
			q[y] = rep[y] / float64(pop.batch)
		}
		b.Run(city+"/ba", func(b *testing.B) {
			for b.Loop() {
				if _, err := ws.BA(pop.grid, theta, cfg.baConfig()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(city+"/channel", func(b *testing.B) {
			for b.Loop() {
				bac.Channel()
			}
		})
		b.Run(city+"/sample", func(b *testing.B) {
			for b.Loop() {
				if err := s.draw(1, emp); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(city+"/obfuscate", func(b *testing.B) {
			for b.Loop() {
				if err := s.obfuscate(ch, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
		mu := make([]float64, pop.grid.Len())
		b.Run(city+"/ibu", func(b *testing.B) {
			for b.Loop() {
				if _, _, err := iw.IBU(mu, ch, q, theta, cfg.ibuConfig()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(city+"/emd-population", func(b *testing.B) {
			for b.Loop() {
				if _, err := kernels.EMD(pop.grid, theta, pop.grid, pop.prior); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(city+"/emd-batch", func(b *testing.B) {
			for b.Loop() {
				if _, err := kernels.EMD(pop.grid, theta, pop.grid, emp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
