package mechanism

import (
	"fmt"
	"testing"

	"privic/datasets"
	"privic/kernels"
)

// benchPrior is a fixed, uneven prior over g.
func benchPrior(g kernels.Grid) []float64 {
	p := make([]float64, g.Len())
	for i := range p {
		p[i] = float64(1 + (i*7919)%13)
	}
	normalise(p)
	return p
}

// benchSolve times m.Solve(g, g, prior, 1) b.N times and returns the
// statistics of the last solve, for the benchmark to report.
func benchSolve(b *testing.B, m Optimal, g kernels.Grid, prior []float64) LPStats {
	b.Helper()
	var st LPStats
	for i := 0; i < b.N; i++ {
		var err error
		if _, st, err = m.Solve(g, g, prior, 1); err != nil {
			b.Fatal(err)
		}
	}
	return st
}

// BenchmarkOptimal solves the optimal-mechanism LP at eps = 1 for growing
// square grids, per solver and spanner, up to sizes that take a few
// seconds (run with -benchtime=1x); the Optimal documentation lists the
// larger sizes measured and where each solver passes 60 s.
func BenchmarkOptimal(b *testing.B) {
	type size struct{ r, c int }
	for _, s := range lpSolvers() {
		sizes := []size{{2, 2}, {2, 3}, {3, 3}}
		if s == SolverGLPK {
			sizes = []size{{4, 4}, {5, 5}, {6, 6}}
		}
		for _, sp := range []int{0, 1} {
			for _, sz := range sizes {
				g := kernels.Grid{Rows: sz.r, Cols: sz.c}
				prior := benchPrior(g)
				m := Optimal{Solver: s, Spanner: sp}
				b.Run(fmt.Sprintf("solver=%s/spanner=%d/grid=%dx%d", s, sp, sz.r, sz.c), func(b *testing.B) {
					st := benchSolve(b, m, g, prior)
					b.ReportMetric(float64(st.Constraints), "constraints")
					b.ReportMetric(float64(st.Variables), "variables")
				})
			}
		}
	}
}

// BenchmarkPlanarLaplace builds the snapped planar Laplace channel on the
// Paris (11x15) and SF (16x24) grids.
func BenchmarkPlanarLaplace(b *testing.B) {
	for _, g := range []kernels.Grid{{Rows: 11, Cols: 15}, {Rows: 16, Cols: 24}} {
		for _, pm := range []PointModel{UniformInCell, CellCentre} {
			for _, eps := range []float64{0.5, 4, 16} {
				b.Run(fmt.Sprintf("grid=%v/point=%v/eps=%v", g, pm, eps), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if _, err := (PlanarLaplace{Point: pm}).Channel(g, g, nil, eps); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkOptimalCity solves the exact optimal mechanism by decomposition
// on the paper's city grids with their Gowalla priors at eps = 1: Paris
// (11x15) with all pairs and with the 8-neighbour spanner, San Francisco
// (16x24) with the spanner and with all pairs (the last takes tens of
// minutes). Run with -benchtime 1x; each sub-benchmark reports the
// decomposition's rounds, simplex iterations, certified gap and the
// channel's tight epsilon.
func BenchmarkOptimalCity(b *testing.B) {
	solvers := sparseSolvers(b)
	for _, city := range []string{"paris", "sf"} {
		d, err := datasets.Load(city, datasets.LoadOptions{Rows: datasets.HeaderQuirk})
		if err != nil {
			b.Fatal(err)
		}
		g, prior := d.Grid, d.Prior()
		for _, s := range solvers {
			for _, sp := range []int{0, 1} {
				m := Optimal{Solver: s, Method: MethodDecompose, Spanner: sp}
				b.Run(fmt.Sprintf("city=%s/solver=%s/spanner=%d", city, s, sp), func(b *testing.B) {
					st := benchSolve(b, m, g, prior)
					b.ReportMetric(float64(st.Rounds), "rounds")
					b.ReportMetric(float64(st.Iterations), "iterations")
					b.ReportMetric(st.Gap, "gap")
					b.ReportMetric(st.Primal, "distortion")
					b.ReportMetric(st.TightEps, "tight-eps")
				})
			}
		}
	}
}
