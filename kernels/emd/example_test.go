package emd_test

import (
	"fmt"

	"privic/kernels/emd"
)

// Half of the mass at the origin has to move to (3, 4), a distance of 5;
// the half at (0, 1) stays where it is.
func ExampleSolvePoints() {
	d, err := emd.SolvePoints(
		[]float64{0, 0}, []float64{0, 1}, []float64{0.5, 0.5},
		[]float64{3, 0}, []float64{4, 1}, []float64{0.5, 0.5},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d)
	// Output: 2.5
}

// A 2 x 3 transport problem with an explicit cost matrix, and its plan.
func ExampleSolver_SolveMatrix() {
	var s emd.Solver
	res, err := s.SolveMatrix(
		[]float64{2, 1},
		[]float64{1, 1, 1},
		[]float64{
			1, 2, 3,
			4, 1, 1,
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cost", res.Cost)
	for _, f := range res.Flows {
		fmt.Printf("%d -> %d: %v\n", f.From, f.To, f.Mass)
	}
	// Unordered output:
	// cost 4
	// 0 -> 0: 1
	// 0 -> 1: 1
	// 1 -> 2: 1
}
