package kernels

import "testing"

// BenchmarkEMD: the NumPy/POT peer's "emd" step,
// one exact EMD between the empirical prior and the IBU estimate (BA at
// beta = 1, 10 iterations from uniform; q = prior C; IBU 10 iterations from
// uniform), on the Paris and SF grids. Compare with POT's ot.emd2 on the
// same inputs, run in the same session.
func BenchmarkEMD(b *testing.B) {
	for _, city := range benchCities {
		b.Run(city, func(b *testing.B) {
			c := loadBenchCity(b, city)
			est, _, err := IBU(c.ch, c.q, nil, IBUConfig{Iterations: 10})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EMD(c.g, c.prior, c.g, est); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
