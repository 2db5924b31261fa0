package datasets

import (
	"fmt"
	"math"
	"sort"

	"privic/kernels"
)

// The WGS 84 ellipsoid, on which GPS coordinates such as Gowalla's are
// given.
const (
	wgs84A = 6378137.0         // semi-major axis, metres
	wgs84F = 1 / 298.257223563 // flattening
)

// MetresPerDegree returns the length in metres of one degree of latitude
// and of one degree of longitude at latitude lat (degrees) on the WGS 84
// ellipsoid: the meridional radius of curvature M and the prime-vertical
// radius N·cos(lat), times pi/180. These are the scales of a local
// equirectangular projection centred at lat; over a city (a few tens of
// kilometres) they vary by well under 0.1%.
func MetresPerDegree(lat float64) (mLat, mLon float64) {
	e2 := wgs84F * (2 - wgs84F)
	s := math.Sin(lat * math.Pi / 180)
	w := 1 - e2*s*s
	m := wgs84A * (1 - e2) / (w * math.Sqrt(w))
	n := wgs84A / math.Sqrt(w)
	return m * math.Pi / 180, n * math.Cos(lat*math.Pi/180) * math.Pi / 180
}

// LowerClosed is the rule of grids laid by NewFrame: band i matches
// e[i+1] <= v < e[i] for descending edges e, and the outer edge e[0]
// belongs to band 0. A point on an interior edge therefore belongs to the
// band on the side of e[0]: the cell to its north (rows) and to its east
// (columns).
const LowerClosed Rule = BothClosed + 1

// Frame places a grid on the map: its descending latitude edges (one per
// row boundary; row 0 is the northern band) and longitude edges (column 0
// is the eastern band), the boundary rule, and the region whose points it
// grids. Rows and columns are the frame's own, from 0; a dataset's grid
// may span only part of them (kernels.Grid.Row0 and Col0).
type Frame struct {
	Lat, Lon []float64 // descending edges, Rows()+1 and Cols()+1 of them
	Rule     Rule
	// dlat and dlon are the edges' spacing in frames laid by NewFrame
	// (0 otherwise): Locate then starts from the band they give.
	dlat, dlon float64
	// Region is the box whose points the frame keeps. For frames made by
	// NewFrame every point of the region falls in a cell; the presets'
	// edges stop short of the box's maximum, as NumPy's arange does, so
	// some of their points fall outside every cell.
	Region Box
}

// CellSpec says how big a frame's cells are: exactly one of M (square
// cells of M metres on the local projection) and Deg (cells of Deg[0]
// degrees of latitude by Deg[1] of longitude).
type CellSpec struct {
	M   float64
	Deg [2]float64
}

// NewFrame lays cells over region from its north-east corner: rows =
// ceil(height / cell) and cols = ceil(width / cell), at least one each,
// so the cells cover the region and the last row and column may reach
// past its south and west edges. Cells of M metres are measured on the
// local equirectangular projection at the region's centre
// (MetresPerDegree), so every cell spans the same degrees.
func NewFrame(region Box, cell CellSpec) (*Frame, error) {
	if err := region.Validate(); err != nil {
		return nil, err
	}
	dlat, dlon := cell.Deg[0], cell.Deg[1]
	if cell.M != 0 {
		if !(cell.M > 0) || math.IsInf(cell.M, 0) {
			return nil, fmt.Errorf("cell size %v m: want a finite value > 0", cell.M)
		}
		mLat, mLon := MetresPerDegree((region.LatMin + region.LatMax) / 2)
		if !(mLon > 0) {
			return nil, fmt.Errorf("region %v touches a pole: metre cells are undefined there; give cell_deg", region)
		}
		dlat, dlon = cell.M/mLat, cell.M/mLon
	}
	if !(dlat > 0 && dlon > 0) || math.IsInf(dlat, 0) || math.IsInf(dlon, 0) {
		return nil, fmt.Errorf("cell size %v x %v degrees: want finite values > 0", dlat, dlon)
	}
	rows := bands(region.LatMax-region.LatMin, dlat)
	cols := bands(region.LonMax-region.LonMin, dlon)
	if rows*cols > kernels.MaxCells {
		return nil, fmt.Errorf("region %v in cells of %s gives %.0f x %.0f cells, more than the %d a grid may have; give larger cells or a smaller bbox",
			region, cell, rows, cols, kernels.MaxCells)
	}
	f := &Frame{Lat: make([]float64, int(rows)+1), Lon: make([]float64, int(cols)+1), Rule: LowerClosed, Region: region,
		dlat: dlat, dlon: dlon}
	for k := range f.Lat {
		f.Lat[k] = region.LatMax - float64(k)*dlat
	}
	for k := range f.Lon {
		f.Lon[k] = region.LonMax - float64(k)*dlon
	}
	return f, nil
}

// bands is ceil(span/step), at least 1. A quotient within 1e-9 of an
// integer is that integer, so that a region exactly k cells high is not
// given a sliver of a (k+1)-th row by rounding.
func bands(span, step float64) float64 {
	q := span / step
	n := math.Round(q)
	if math.Abs(q-n) > 1e-9*max(1, n) {
		n = math.Ceil(q)
	}
	return max(1, n)
}

// String says what a cell is: "100 m" or "0.001 x 0.002 degrees".
func (c CellSpec) String() string {
	if c.M != 0 {
		return fmt.Sprintf("%g m", c.M)
	}
	return fmt.Sprintf("%g x %g degrees", c.Deg[0], c.Deg[1])
}

// presetFrame is the frame of a preset's discretiser.
func presetFrame(c City) (*Frame, error) {
	d, err := c.Discretizer()
	if err != nil {
		return nil, err
	}
	return &Frame{Lat: d.LatEdges(), Lon: d.LonEdges(), Rule: c.Rule, Region: c.Box}, nil
}

// Rows is the number of latitude bands.
func (f *Frame) Rows() int { return len(f.Lat) - 1 }

// Cols is the number of longitude bands.
func (f *Frame) Cols() int { return len(f.Lon) - 1 }

// Locate returns the cell of (lat, lon): the first matching row and
// column under the frame's rule (for the presets' BothClosed rule a point
// on an interior edge matches two bands; Locate takes the northern or
// eastern one). ok is false for a point outside the region or outside
// every cell.
func (f *Frame) Locate(lat, lon float64) (row, col int, ok bool) {
	if !f.Region.Contains(lat, lon) {
		return 0, 0, false
	}
	if f.dlat > 0 {
		return uniformBand(f.Lat, lat, f.dlat), uniformBand(f.Lon, lon, f.dlon), true
	}
	row, okr := band(f.Lat, lat, f.Rule)
	col, okc := band(f.Lon, lon, f.Rule)
	return row, col, okr && okc
}

// uniformBand is band under the LowerClosed rule for edges e spaced by
// step from e[0], for a value v the caller has checked lies in the
// region: the band the spacing gives, moved to the edges' own verdict
// (at most a step either way, for values within rounding of an edge).
func uniformBand(e []float64, v, step float64) int {
	n := len(e) - 1
	i := min(max(int((e[0]-v)/step), 0), n-1)
	for i > 0 && v >= e[i] {
		i--
	}
	for i < n-1 && v < e[i+1] {
		i++
	}
	return i
}

// band finds v among the descending edges e.
func band(e []float64, v float64, rule Rule) (int, bool) {
	n := len(e) - 1
	if v > e[0] {
		return 0, false
	}
	var k int
	if rule == UpperClosed {
		// e[i+1] < v <= e[i]: the first k >= 1 with e[k] < v.
		k = 1 + sort.Search(n, func(i int) bool { return e[i+1] < v })
	} else {
		// e[i+1] <= v (< e[i], or <= for BothClosed): the first k >= 1
		// with e[k] <= v.
		k = 1 + sort.Search(n, func(i int) bool { return e[i+1] <= v })
	}
	if k <= n {
		return k - 1, true
	}
	if rule == LowerClosed {
		// Below the last edge by rounding: NewFrame's cells cover the
		// region, whose points the caller has checked.
		return n - 1, true
	}
	return 0, false
}

// Centre returns the latitude and longitude of the centre of the cell
// (row, col) of the frame (which may lie outside its rows and columns:
// the edges are extended at the mean spacing).
func (f *Frame) Centre(row, col int) (lat, lon float64) {
	return mid(f.Lat, row), mid(f.Lon, col)
}

func mid(e []float64, i int) float64 {
	n := len(e) - 1
	if i >= 0 && i < n {
		return (e[i] + e[i+1]) / 2
	}
	step := (e[0] - e[n]) / float64(n)
	return e[0] - (float64(i)+0.5)*step
}

// CellSize returns the mean height and width of the frame's cells in
// metres at the centre of its region.
func (f *Frame) CellSize() (heightM, widthM float64) {
	mLat, mLon := MetresPerDegree((f.Region.LatMin + f.Region.LatMax) / 2)
	dlat := (f.Lat[0] - f.Lat[f.Rows()]) / float64(f.Rows())
	dlon := (f.Lon[0] - f.Lon[f.Cols()]) / float64(f.Cols())
	return dlat * mLat, dlon * mLon
}

// CellM is the size of a cell in metres as one number: the side of the
// square of the same area, sqrt(height·width). Distances in cells (the
// ground distance between cell indices) times CellM are metres, exactly
// for square cells and to within the cells' aspect ratio otherwise.
func CellM(heightM, widthM float64) float64 { return math.Sqrt(heightM * widthM) }
