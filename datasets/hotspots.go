package datasets

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"privic/kernels"
)

// HotspotN is the number of check-ins of a Hotspots city.
const HotspotN = 200_000

// Hotspots draws the synthetic hotspot city of the scale benchmarks on a
// side x side grid: 8 hotspots with centres uniform over [0, side)^2 (cell
// units, cell (r, c) at (r, c)), spreads side/10 * U(0.5, 1.5) and weights
// Exp(1); the density at a cell is 0.95 times the normalised mixture of
// the unnormalised Gaussians exp(-|cell - centre|^2 / (2 s^2)) evaluated at
// the cell, plus 0.05/side^2; HotspotN check-ins are drawn independently
// from it. The random source is a PCG seeded with (20261126 + side, 0),
// so a side always gives the same city. This is the recipe of the
// NumPy-generated hotspot files the benchmarks' peer reads (sides 32 to
// 256); with Go's generator the draws differ, so sides with a file use the
// file and the larger sides (512, 1024) use this function.
func Hotspots(side int) (*Dataset, error) {
	g, err := kernels.NewGrid(side, side)
	if err != nil {
		return nil, fmt.Errorf("hotspots: %w", err)
	}
	rng := rand.New(rand.NewPCG(uint64(20261126+side), 0))
	m := g.Len()
	p := hotspotMixture(side, rng)
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	cdf := make([]float64, m)
	acc := 0.0
	for i, v := range p {
		acc += 0.95*v/sum + 0.05/float64(m)
		cdf[i] = acc
	}
	counts := make([]int, m)
	for range HotspotN {
		u := rng.Float64() * acc
		i := sort.Search(m, func(j int) bool { return cdf[j] > u })
		counts[min(i, m-1)]++
	}
	return &Dataset{
		Name:   fmt.Sprintf("hotspots%d", side),
		Grid:   g,
		Counts: counts,
		N:      HotspotN,
		Source: fmt.Sprintf("synthetic hotspot city %v, n = %d (Go generator, seed %d)", g, HotspotN, 20261126+side),
	}, nil
}

// hotspotMixture draws the eight Gaussian hotspots of a side x side city
// from rng (centre, spread between a twentieth and three twentieths of
// the side, exponential weight) and returns their unnormalised mixture
// density at every cell, row-major.
func hotspotMixture(side int, rng *rand.Rand) []float64 {
	p := make([]float64, side*side)
	for range 8 {
		cr := rng.Float64() * float64(side)
		cc := rng.Float64() * float64(side)
		s := float64(side) / 10 * (0.5 + rng.Float64())
		w := rng.ExpFloat64()
		for i := range p {
			dr, dc := float64(i/side)-cr, float64(i%side)-cc
			p[i] += w * math.Exp(-(dr*dr+dc*dc)/(2*s*s))
		}
	}
	return p
}

// ReadHotspots reads a hotspot city written by the NumPy peer of the scale
// benchmarks (hotspots-<side>.csv): '#' comment lines, the header
// row,col,count, then one line per cell of a side x side grid (cells left
// out count 0). Errors name the file and the line.
func ReadHotspots(path string, side int) (*Dataset, error) {
	g, err := kernels.NewGrid(side, side)
	if err != nil {
		return nil, fmt.Errorf("hotspots %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hotspots: %w", err)
	}
	defer f.Close()
	counts := make([]int, side*side)
	sc := bufio.NewScanner(f)
	line, n := 0, 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "row") {
			continue
		}
		fs := strings.Split(s, ",")
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s:%d: want row,col,count, got %q", path, line, s)
		}
		var v [3]int
		for i, t := range fs {
			if v[i], err = strconv.Atoi(strings.TrimSpace(t)); err != nil {
				return nil, fmt.Errorf("%s:%d: field %d: %q is not an integer", path, line, i+1, t)
			}
		}
		if v[0] < 0 || v[0] >= side || v[1] < 0 || v[1] >= side || v[2] < 0 {
			return nil, fmt.Errorf("%s:%d: cell (%d,%d) count %d outside the %dx%d grid or negative", path, line, v[0], v[1], v[2], side, side)
		}
		counts[v[0]*side+v[1]] += v[2]
		n += v[2]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no check-ins", path)
	}
	return &Dataset{
		Name:   fmt.Sprintf("hotspots%d", side),
		Grid:   g,
		Counts: counts,
		N:      n,
		Source: fmt.Sprintf("synthetic hotspot city %v, n = %d (%s)", g, n, path),
	}, nil
}
