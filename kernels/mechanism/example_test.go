package mechanism_test

import (
	"context"
	"fmt"

	"privic/kernels"
	"privic/kernels/mechanism"
)

// Put randomized response and the discrete Laplace mechanism at the same
// tight epsilon on a 4x4 grid and compare their average distortion.
func ExampleCalibrate() {
	g, _ := kernels.NewGrid(4, 4)
	prior := make([]float64, g.Len())
	for i := range prior {
		prior[i] = 1.0 / 16
	}
	for _, m := range []mechanism.Mechanism{mechanism.RR{}, mechanism.LAP{}} {
		res, err := mechanism.Calibrate(context.Background(), m, g, g, prior, mechanism.TargetEps, 1, mechanism.CalibrateOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		d, _ := kernels.AvgDistortion(prior, res.Channel)
		fmt.Printf("%s: %s = %.4f, tight eps %.6f, distortion %.3f cells\n", m.Info().Name, m.Info().Param, res.Param, res.Value, d)
	}
	// Output:
	// rr: eps = 1.0000, tight eps 1.000000, distortion 1.813 cells
	// lap: eps = 0.7309, tight eps 1.000000, distortion 1.329 cells
}
