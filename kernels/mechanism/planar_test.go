package mechanism

import (
	"math"
	"math/rand/v2"
	"testing"

	"privic/kernels"
)

func laplaceDensity(eps, z1, z2 float64) float64 {
	return eps * eps / (2 * math.Pi) * math.Exp(-eps*math.Hypot(z1, z2))
}

func TestPlanarLaplaceRowsSumToOne(t *testing.T) {
	// The nearest-cell regions partition the plane, so every row must sum
	// to 1; this checks the quadrature of every entry at once, including
	// the unbounded border regions.
	base := mustGrid(t, 4, 5)
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, out := range []kernels.Grid{base, base.Widen(2), {Rows: 1, Cols: 3, Row0: 1, Col0: 1}} {
			for _, eps := range []float64{0.05, 0.7, 3, 12} {
				ch, err := PlanarLaplace{Point: pm}.Channel(base, out, nil, eps)
				if err != nil {
					t.Fatal(err)
				}
				checkStochastic(t, pm.String()+" "+out.String(), ch, 1e-11)
			}
		}
	}
}

func TestPlanarLaplaceCentreMatchesCartesianQuadrature(t *testing.T) {
	// For a square not containing the true point the density is smooth,
	// so a tensor Gauss rule in Cartesian coordinates is an independent
	// reference.
	in := mustGrid(t, 9, 9)
	const eps = 1.3
	ch, err := PlanarLaplace{Point: CellCentre}.Channel(in, in, nil, eps)
	if err != nil {
		t.Fatal(err)
	}
	g := newGaussRule(30)
	x := in.Index(4, 4)
	for _, off := range [][2]int{{0, 1}, {1, 1}, {2, -1}, {-3, 2}} {
		y := in.Index(4+off[0], 4+off[1])
		want := 0.0
		for i, u := range g.x {
			for j, v := range g.x {
				want += g.w[i] * g.w[j] / 4 * laplaceDensity(eps, float64(off[0])+u/2, float64(off[1])+v/2)
			}
		}
		got := ch.P[x*in.Len()+y]
		if math.Abs(got-want) > 1e-11*want {
			t.Errorf("offset %v: got %.15g, want %.15g", off, got, want)
		}
	}
}

func TestPlanarLaplaceUniformMatchesFourFoldQuadrature(t *testing.T) {
	// With the true point uniform in its cell, an entry for two distinct,
	// non-adjacent interior cells is a smooth 4-fold integral; a 12^4
	// tensor Gauss rule is an independent reference.
	in := mustGrid(t, 9, 9)
	for _, eps := range []float64{0.4, 2.5} {
		ch, err := PlanarLaplace{}.Channel(in, in, nil, eps)
		if err != nil {
			t.Fatal(err)
		}
		g := newGaussRule(12)
		x := in.Index(4, 4)
		for _, off := range [][2]int{{0, 2}, {2, 2}, {-2, 1}, {3, -3}} {
			y := in.Index(4+off[0], 4+off[1])
			want := 0.0
			for i1, u1 := range g.x {
				for i2, u2 := range g.x {
					for j1, v1 := range g.x {
						for j2, v2 := range g.x {
							w := g.w[i1] * g.w[i2] * g.w[j1] * g.w[j2] / 16
							want += w * laplaceDensity(eps, float64(off[0])+(v1-u1)/2, float64(off[1])+(v2-u2)/2)
						}
					}
				}
			}
			got := ch.P[x*in.Len()+y]
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("eps=%v offset %v: got %.15g, want %.15g (rel %.2g)", eps, off, got, want, math.Abs(got-want)/want)
			}
		}
	}
}

func TestPlanarLaplaceMatchesMonteCarlo(t *testing.T) {
	// Simulate what deployed code does (perturb the point, snap to the
	// nearest output cell) and compare the frequencies with the integrated
	// channel: every cell within 5 binomial standard deviations. The
	// negative control simulates with eps 10% too large and must have a
	// cell beyond that.
	in := mustGrid(t, 4, 4)
	out := in.Widen(1)
	rng := rand.New(rand.NewPCG(5, 17))
	const n = 100000
	// worst returns the largest deviation, in standard deviations, of n
	// simulated reports of x with noise simEps from the channel's row x.
	worst := func(pm PointModel, ch *kernels.Channel, x int, simEps float64) (float64, int) {
		counts := make([]int, out.Len())
		xr, xc := in.Abs(x)
		for i := 0; i < n; i++ {
			r, c := float64(xr), float64(xc)
			if pm == UniformInCell {
				r += rng.Float64() - 0.5
				c += rng.Float64() - 0.5
			}
			d1, d2 := PlanarNoise(rng, simEps)
			counts[Snap(out, r+d1, c+d2)]++
		}
		w, wy := 0.0, -1
		for y, k := range counts {
			p := ch.P[x*out.Len()+y]
			sd := math.Sqrt(p * (1 - p) / n)
			if z := (math.Abs(float64(k)/n-p) - 1.0/n) / sd; z > w {
				w, wy = z, y
			}
		}
		return w, wy
	}
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, eps := range []float64{0.6, 2} {
			ch, err := PlanarLaplace{Point: pm}.Channel(in, out, nil, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []int{0, in.Index(1, 2)} {
				if z, y := worst(pm, ch, x, eps); z > 5 {
					t.Errorf("%v eps=%v x=%d y=%d: Monte Carlo frequency %.1f sd from the channel", pm, eps, x, y, z)
				}
			}
			if z, _ := worst(pm, ch, in.Index(1, 2), 1.1*eps); z <= 5 {
				t.Errorf("%v eps=%v: negative control (noise for eps 10%% larger): largest deviation %.1f sd <= 5", pm, eps, z)
			}
		}
	}
}

func TestPlanarRadiusInvertsRadialCDF(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 7} {
		for _, p := range []float64{1e-12, 1e-6, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-9} {
			r := PlanarRadius(p, eps)
			got := 1 - (1+eps*r)*math.Exp(-eps*r)
			if math.Abs(got-p) > 1e-12+1e-9*p {
				t.Errorf("eps=%v p=%v: CDF(r=%v) = %v", eps, p, r, got)
			}
		}
	}
}

func TestPlanarLaplaceTightEpsWithinClaim(t *testing.T) {
	in := mustGrid(t, 5, 6)
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, eps := range []float64{0.3, 1, 2.5} {
			m := PlanarLaplace{Point: pm}
			ch, err := m.Channel(in, in, nil, eps)
			if err != nil {
				t.Fatal(err)
			}
			got := bruteTightEps(ch)
			c := m.Claim(in, in, eps)
			if got < c.Lo-1e-9 || got > c.Hi*(1+1e-9) {
				t.Errorf("%v eps=%v: tight eps %v outside claim [%v, %v]", pm, eps, got, c.Lo, c.Hi)
			}
			t.Logf("%v eps=%v: tight eps on %v = %.6f (ratio %.4f)", pm, eps, in, got, got/eps)
		}
	}
}

func TestSnap(t *testing.T) {
	g := kernels.Grid{Rows: 3, Cols: 4, Row0: -1, Col0: 2}
	cases := []struct {
		r, c float64
		want int
	}{
		{-1, 2, 0}, {-1.49, 2.49, 0}, {-1.51, 2.51, 1}, {-100, -100, 0}, {100, 100, g.Len() - 1},
		{0.2, 4.6, g.Index(1, 3)}, {1.7, 1e300, g.Index(2, 3)}, {math.NaN(), 3, 1},
	}
	for _, c := range cases {
		if got := Snap(g, c.r, c.c); got != c.want {
			t.Errorf("Snap(%v, %v) = %d, want %d", c.r, c.c, got, c.want)
		}
	}
}
