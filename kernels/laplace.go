package kernels

import (
	"fmt"
	"math"
)

// Laplace is the discrete planar Laplace mechanism from grid in to grid out
// (the base grid, or a widened one, e.g. in.Widen(5)):
// C[x,y] proportional to exp(-eps d(x,y)), normalised per row, with d the
// Euclidean distance between absolute cell positions.
//
// Entries below the smallest normal float64 are set to 0 (as in
// BAChannel.Channel). Each row is computed relative to its nearest output cell,
// exp(-eps (d(x,y) - dmin(x))), so for any eps the nearest output keeps
// weight 1 and no row underflows to zero.
func Laplace(in, out Grid, eps float64) (*Channel, error) {
	if err := checkPositive("laplace: eps", eps); err != nil {
		return nil, err
	}
	ch, err := NewChannel(in, out)
	if err != nil {
		return nil, fmt.Errorf("laplace: %w", err)
	}
	od := newOffsetDist(in, out)
	// When every row's nearest output is at distance 0 (out contains in)
	// the shift is zero for all rows and one exp table serves all entries.
	var kern []float64
	if out.Contains(in) {
		kern = make([]float64, len(od.d))
		for i, d := range od.d {
			kern[i] = math.Exp(-eps * d)
		}
	}
	for x := 0; x < in.Len(); x++ {
		row := ch.Row(x)
		if kern != nil {
			for y := range row {
				row[y] = kern[od.index(x, y)]
			}
		} else {
			dmin := math.Inf(1)
			for y := range row {
				dmin = min(dmin, od.at(x, y))
			}
			for y := range row {
				row[y] = math.Exp(-eps * (od.at(x, y) - dmin))
			}
		}
		s := 0.0
		for _, v := range row {
			s += v
		}
		inv := 1 / s
		for y := range row {
			// Subnormal entries are flushed to 0, as in BAChannel.Channel.
			if row[y] *= inv; row[y] < smallestNormal {
				row[y] = 0
			}
		}
	}
	return ch, nil
}

// offsetDist tabulates the distance between cells of grids in and out by
// absolute offset, so that d(x,y) is a table look-up instead of a hypot.
type offsetDist struct {
	in, out Grid
	stride  int // max |column offset| + 1
	d       []float64
}

func newOffsetDist(in, out Grid) offsetDist {
	maxDr := max(abs(in.Row0+in.Rows-1-out.Row0), abs(out.Row0+out.Rows-1-in.Row0))
	maxDc := max(abs(in.Col0+in.Cols-1-out.Col0), abs(out.Col0+out.Cols-1-in.Col0))
	od := offsetDist{in: in, out: out, stride: maxDc + 1, d: make([]float64, (maxDr+1)*(maxDc+1))}
	for dr := 0; dr <= maxDr; dr++ {
		for dc := 0; dc <= maxDc; dc++ {
			od.d[dr*od.stride+dc] = math.Hypot(float64(dr), float64(dc))
		}
	}
	return od
}

func (od offsetDist) index(x, y int) int {
	xr, xc := od.in.Abs(x)
	yr, yc := od.out.Abs(y)
	return abs(xr-yr)*od.stride + abs(xc-yc)
}

// at is d(x, y) for cell x of in and cell y of out.
func (od offsetDist) at(x, y int) float64 { return od.d[od.index(x, y)] }

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
