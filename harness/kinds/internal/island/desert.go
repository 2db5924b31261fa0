package island

import (
	"fmt"
	"math"

	"privic/datasets"
	"privic/kernels"
)

// DefaultDesertRadiusM is the radius, in metres, of the neighbourhood
// whose prior mass decides whether a reported cell is deserted.
const DefaultDesertRadiusM = 250

// Deserted marks the cells of out (a grid over the same absolute rows and
// columns as in, possibly widened) where a report lands in a desert: the
// prior mass within radiusM metres of the cell's centre is below what a
// uniform prior over the region (in) puts there. Mass within the radius
// counts each cell of in by the fraction of its area inside the disc
// (the prior spread evenly over its cell), so that the word means the
// same at 50 m and at 500 m cells; a cell of out outside in is deserted.
// cellH and cellW are the cells' height and width in metres.
func Deserted(in, out kernels.Grid, prior []float64, cellH, cellW, radiusM float64) ([]bool, error) {
	if len(prior) != in.Len() {
		return nil, fmt.Errorf("deserted cells: prior has %d cells, grid %d", len(prior), in.Len())
	}
	if !(radiusM > 0) || math.IsInf(radiusM, 0) || !(cellH > 0) || !(cellW > 0) {
		return nil, fmt.Errorf("deserted cells: radius %v m on cells of %v x %v m: all must be finite and > 0", radiusM, cellH, cellW)
	}
	kr, kc := int(math.Ceil(radiusM/cellH+0.5)), int(math.Ceil(radiusM/cellW+0.5))
	if (2*kr+1)*(2*kc+1) > 1<<22 {
		return nil, fmt.Errorf("deserted cells: a radius of %v m covers more than 4 million cells of %v x %v m", radiusM, cellH, cellW)
	}
	type tap struct {
		dr, dc int
		w      float64
	}
	var taps []tap
	for dr := -kr; dr <= kr; dr++ {
		for dc := -kc; dc <= kc; dc++ {
			x0, y0 := (float64(dc)-0.5)*cellW, (float64(dr)-0.5)*cellH
			if w := DiscRect(radiusM, x0, x0+cellW, y0, y0+cellH) / (cellW * cellH); w > 0 {
				taps = append(taps, tap{dr, dc, w})
			}
		}
	}
	m := float64(in.Len())
	desert := make([]bool, out.Len())
	for j := range desert {
		r, c := out.Abs(j)
		if in.IndexOf(r, c) < 0 {
			desert[j] = true
			continue
		}
		mass, uniform := 0.0, 0.0
		for _, t := range taps {
			if i := in.IndexOf(r+t.dr, c+t.dc); i >= 0 {
				mass += t.w * prior[i]
				uniform += t.w / m
			}
		}
		desert[j] = mass < uniform
	}
	return desert, nil
}

// DesertedOn is Deserted with ds's cell sides (a dataset without them
// has square cells of sideM metres).
func DesertedOn(ds *datasets.Dataset, out kernels.Grid, prior []float64, sideM, radiusM float64) ([]bool, error) {
	h, w := ds.CellHeightM, ds.CellWidthM
	if !(h > 0 && w > 0) {
		h, w = sideM, sideM
	}
	return Deserted(ds.Grid, out, prior, h, w, radiusM)
}

// DiscRect is the area of the intersection of the disc of radius r
// centred at the origin with the rectangle [x0, x1] x [y0, y1]
// (x0 <= x1, y0 <= y1), in closed form.
func DiscRect(r, x0, x1, y0, y1 float64) float64 {
	return quadrant(r, x1, y1) - quadrant(r, x0, y1) - quadrant(r, x1, y0) + quadrant(r, x0, y0)
}

// quadrant is the signed area of the disc of radius r within the box
// between the origin and (x, y): the primitive whose second difference is
// DiscRect.
func quadrant(r, x, y float64) float64 {
	s := 1.0
	if x < 0 {
		s, x = -s, -x
	}
	if y < 0 {
		s, y = -s, -y
	}
	x, y = math.Min(x, r), math.Min(y, r)
	if x*x+y*y <= r*r {
		return s * x * y
	}
	// Where the circle crosses the top of the box: beyond t the disc's
	// edge sqrt(r^2 - u^2) is below y.
	t := math.Sqrt(r*r - y*y)
	g := func(u float64) float64 { return (u*math.Sqrt(r*r-u*u) + r*r*math.Asin(u/r)) / 2 }
	return s * (y*t + g(x) - g(t))
}
