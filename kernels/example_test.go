package kernels_test

import (
	"fmt"
	"math/rand/v2"

	"privic/kernels"
)

// A BA channel for a small prior, its privacy and utility figures, and the
// estimate of the prior that IBU recovers from obfuscated reports.
func Example() {
	g, _ := kernels.NewGrid(3, 3)
	prior := []float64{0.3, 0.1, 0, 0.1, 0.2, 0.1, 0, 0.1, 0.1}
	ba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: 1, Iterations: 10})
	if err != nil {
		panic(err)
	}
	ch := ba.Channel()
	mi, _ := kernels.MutualInformation(prior, ch)
	d, _ := kernels.AvgDistortion(prior, ch)
	eps, _ := ba.TightEpsilon()
	fmt.Println("geo-indistinguishable within 2 beta:", eps <= 2*1)
	fmt.Println("leaks less than the identity channel:", mi < 1.83) // H(prior) = 1.834 nats
	fmt.Println("average error under one cell:", d < 1)

	counts := make([]int, g.Len())
	for x, p := range prior {
		counts[x] = int(p * 100000)
	}
	rep, _ := kernels.Obfuscate(rand.New(rand.NewPCG(1, 2)), counts, ch)
	q := make([]float64, len(rep))
	for y, v := range rep {
		q[y] = float64(v) / 100000
	}
	est, _, _ := kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: 2000})
	e, _ := kernels.EMD(g, prior, g, est)
	fmt.Println("estimate within 0.2 cells of the prior (EMD):", e < 0.2)
	// Output:
	// geo-indistinguishable within 2 beta: true
	// leaks less than the identity channel: true
	// average error under one cell: true
	// estimate within 0.2 cells of the prior (EMD): true

}
