package kernels_test

import (
	"fmt"

	"privic/kernels"
)

// The Blahut-Arimoto channel of a row of three cells with most users in
// the first: each row is where a user of that cell reports, and the
// channel is geo-indistinguishable at level 2·beta at most. (A NumPy
// replay of the ten iterations from the uniform channel gives the same
// rows.)
func ExampleBA() {
	g, _ := kernels.NewGrid(1, 3)
	prior := []float64{0.6, 0.3, 0.1}
	const beta = 1.0
	ba, err := kernels.BA(g, prior, kernels.BAConfig{Beta: beta, Iterations: 10})
	if err != nil {
		panic(err)
	}
	ch := ba.Channel()
	for x := range g.Len() {
		fmt.Printf("from cell %d: %.3f\n", x, ch.Row(x))
	}
	eps, _ := ba.TightEpsilon()
	fmt.Printf("tight epsilon %.3f <= 2 beta: %v\n", eps, eps <= 2*beta)
	// Output:
	// from cell 0: [0.870 0.128 0.002]
	// from cell 1: [0.476 0.517 0.007]
	// from cell 2: [0.456 0.494 0.050]
	// tight epsilon 1.956 <= 2 beta: true
}

// IBU recovers the distribution of true locations from the distribution of
// reports: here two cells and randomized response that keeps the true
// cell with probability 3/4, so 80% of users in cell 0 report cell 0 with
// probability 0.8·0.75 + 0.2·0.25 = 0.65.
func ExampleIBU() {
	g, _ := kernels.NewGrid(1, 2)
	ch, _ := kernels.NewChannel(g, g)
	copy(ch.P, []float64{
		0.75, 0.25,
		0.25, 0.75,
	})
	reports := []float64{0.65, 0.35}
	est, iters, err := kernels.IBU(ch, reports, nil, kernels.IBUConfig{Delta: 1e-12})
	if err != nil {
		panic(err)
	}
	fmt.Printf("estimate %.4f (converged: %v)\n", est, iters < kernels.DefaultMaxIterations)
	// Output:
	// estimate [0.8000 0.2000] (converged: true)
}

// The earth mover's distance moves mass between cells at the Euclidean
// distance of their row and column indices.
func ExampleEMD() {
	g, _ := kernels.NewGrid(2, 2) // cells 0 1 / 2 3
	corner := []float64{1, 0, 0, 0}
	opposite := []float64{0, 0, 0, 1}
	top := []float64{0.5, 0.5, 0, 0}
	bottom := []float64{0, 0, 0.5, 0.5}
	diag, _ := kernels.EMD(g, corner, g, opposite)
	down, _ := kernels.EMD(g, top, g, bottom)
	fmt.Printf("corner to opposite corner: %.4f (sqrt 2)\n", diag)
	fmt.Printf("top row to bottom row: %.4f\n", down)
	// Output:
	// corner to opposite corner: 1.4142 (sqrt 2)
	// top row to bottom row: 1.0000
}
