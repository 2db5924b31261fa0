package datasets

import (
	"fmt"
	"math"
)

// maxEdges bounds the length of an arange so that a typo in a step cannot
// allocate gigabytes.
const maxEdges = 1 << 20

// Arange returns the values NumPy's arange(start, stop, step) gives for
// float64 arguments, bit for bit. NumPy takes the length as
// ceil((stop-start)/step), stores start and start+step, and fills the rest
// with start + i*delta where delta = (start+step) - start, which need not
// equal step in floating point. Each product is rounded before the sum
// (the explicit float64 conversion stops Go from fusing it into an FMA,
// which NumPy's baseline x86-64 build does not do either).
func Arange(start, stop, step float64) ([]float64, error) {
	for _, v := range []float64{start, stop, step} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("arange(%v, %v, %v): arguments must be finite", start, stop, step)
		}
	}
	if step == 0 {
		return nil, fmt.Errorf("arange(%v, %v, %v): step must not be 0", start, stop, step)
	}
	span := stop - start
	q := span / step
	var n float64
	if q == 0 && span != 0 {
		// NumPy's underflow rule: a tiny positive quotient still gives one value.
		if math.Signbit(q) {
			n = 0
		} else {
			n = 1
		}
	} else {
		n = math.Ceil(q)
	}
	if n <= 0 {
		return nil, nil
	}
	if n > maxEdges {
		return nil, fmt.Errorf("arange(%v, %v, %v): %v values is more than %d", start, stop, step, n, maxEdges)
	}
	vals := make([]float64, int(n))
	vals[0] = start
	if len(vals) == 1 {
		return vals, nil
	}
	vals[1] = start + step
	delta := vals[1] - vals[0]
	for i := 2; i < len(vals); i++ {
		vals[i] = start + float64(float64(i)*delta)
	}
	return vals, nil
}

// Cell is a grid cell by row and column. Row 0 is the northernmost band and
// column 0 the easternmost.
type Cell struct{ Row, Col int }

// Discretizer maps coordinates to grid cells with a city's edges and rule.
type Discretizer struct {
	lat, lon []float64 // descending edges
	rule     Rule
}

// Discretizer builds the city's edges: arange from the box minimum to the
// box maximum by the step, sorted descending so that row 0 is north and
// column 0 is east.
func (c City) Discretizer() (*Discretizer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	lat, err := Arange(c.Box.LatMin, c.Box.LatMax, c.LatStep)
	if err != nil {
		return nil, fmt.Errorf("city %q latitude edges: %w", c.Name, err)
	}
	lon, err := Arange(c.Box.LonMin, c.Box.LonMax, c.LonStep)
	if err != nil {
		return nil, fmt.Errorf("city %q longitude edges: %w", c.Name, err)
	}
	if len(lat) < 2 || len(lon) < 2 {
		return nil, fmt.Errorf("city %q: %d latitude and %d longitude edges; need at least 2 of each", c.Name, len(lat), len(lon))
	}
	reverse(lat)
	reverse(lon)
	return &Discretizer{lat: lat, lon: lon, rule: c.Rule}, nil
}

func reverse(v []float64) {
	for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
		v[i], v[j] = v[j], v[i]
	}
}

// Rows is the number of latitude bands (edges minus one).
func (d *Discretizer) Rows() int { return len(d.lat) - 1 }

// Cols is the number of longitude bands.
func (d *Discretizer) Cols() int { return len(d.lon) - 1 }

// LatEdges returns the latitude edges, descending.
func (d *Discretizer) LatEdges() []float64 { return append([]float64(nil), d.lat...) }

// LonEdges returns the longitude edges, descending.
func (d *Discretizer) LonEdges() []float64 { return append([]float64(nil), d.lon...) }

// Cells appends to dst every cell that (lat, lon) falls in, rows outer
// and columns inner, both ascending: none for a point outside all cells,
// one normally, and two or four for a point on an interior edge under
// BothClosed (each is a line of the reference grid file).
func (d *Discretizer) Cells(lat, lon float64, dst []Cell) []Cell {
	for i := 0; i+1 < len(d.lat); i++ {
		if !d.in(lat, d.lat[i+1], d.lat[i]) {
			continue
		}
		for j := 0; j+1 < len(d.lon); j++ {
			if d.in(lon, d.lon[j+1], d.lon[j]) {
				dst = append(dst, Cell{Row: i, Col: j})
			}
		}
	}
	return dst
}

func (d *Discretizer) in(v, lo, hi float64) bool {
	if d.rule == BothClosed {
		return lo <= v && v <= hi
	}
	return lo < v && v <= hi
}
