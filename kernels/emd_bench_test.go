package kernels

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkEMD: the NumPy/POT peer's "emd" step,
// one exact EMD between the empirical prior and the IBU estimate (BA at
// beta = 1, 10 iterations from uniform; q = prior C; IBU 10 iterations from
// uniform), on the Paris and SF grids. Compare with POT's ot.emd2 on the
// same inputs, run in the same session.
func BenchmarkEMD(b *testing.B) {
	for _, city := range benchCities {
		b.Run(city, func(b *testing.B) {
			c := loadBenchCity(b, city)
			est, _, err := IBU(c.ch, c.q, nil, IBUConfig{Iterations: 10})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EMD(c.g, c.prior, c.g, est); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEMDHotspots: the same step on the synthetic hotspot grids
// (../shared/datasets/synthetic/hotspots-<side>.csv) that the peer reads
// with --sides, all of them on the sparse solver. q = prior C is formed
// from the materialised channel, so the sides stop at 128 (16,384 cells,
// 2 GB for the channel, freed before timing); larger grids need a
// structured channel.
func BenchmarkEMDHotspots(b *testing.B) {
	for _, side := range []int{32, 64, 100, 128} {
		b.Run(strconv.Itoa(side), func(b *testing.B) {
			g, prior, est := hotspotWorkload(b, side)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EMD(g, prior, g, est); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// hotspotWorkload is the peer's EMD step on the side x side hotspot grid
// g: the empirical prior and the IBU estimate (10 iterations from uniform)
// from q = prior C, C the BA channel at beta = 1 (10 iterations).
func hotspotWorkload(tb testing.TB, side int) (g Grid, prior, est []float64) {
	tb.Helper()
	g, prior = loadHotspots(tb, side)
	ba, err := BA(g, prior, BAConfig{Beta: 1, Iterations: 10})
	if err != nil {
		tb.Fatal(err)
	}
	q, err := Marginal(prior, ba.Channel())
	if err != nil {
		tb.Fatal(err)
	}
	est, _, err = IBU(ba.Factorised(), q, nil, IBUConfig{Iterations: 10})
	if err != nil {
		tb.Fatal(err)
	}
	return g, prior, est
}

// loadHotspots reads ../shared/datasets/synthetic/hotspots-<side>.csv (see
// loadHotspotCounts) into the side x side grid and its empirical
// distribution.
func loadHotspots(tb testing.TB, side int) (Grid, []float64) {
	tb.Helper()
	g, counts := loadHotspotCounts(tb, side)
	p := make([]float64, len(counts))
	total := 0.0
	for i, c := range counts {
		p[i] = float64(c)
		total += float64(c)
	}
	for i := range p {
		p[i] /= total
	}
	return g, p
}

// loadHotspotCounts reads ../shared/datasets/synthetic/hotspots-<side>.csv
// (a comment line, a "row,col,count" header, then one line per cell) into
// the side x side grid and its per-cell counts. It skips loudly when the
// file is absent.
func loadHotspotCounts(tb testing.TB, side int) (Grid, []int) {
	tb.Helper()
	dir, why := sharedDir()
	if dir == "" {
		tb.Skipf("SKIPPING: the hotspot grids need ../shared next to the module root: %s", why)
	}
	path := filepath.Join(dir, "datasets", "synthetic", "hotspots-"+strconv.Itoa(side)+".csv")
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("SKIPPING: hotspot grid unavailable: %v", err)
	}
	defer f.Close()
	g := Grid{Rows: side, Cols: side}
	counts := make([]int, g.Len())
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if line <= 2 || s == "" {
			continue // comment and header
		}
		fs := strings.Split(s, ",")
		if len(fs) != 3 {
			tb.Fatalf("%s:%d: want row,col,count, got %q", path, line, s)
		}
		var v [3]int
		for k := range v {
			if v[k], err = strconv.Atoi(fs[k]); err != nil {
				tb.Fatalf("%s:%d: %v", path, line, err)
			}
		}
		i := g.IndexOf(v[0], v[1])
		if i < 0 || v[2] < 0 {
			tb.Fatalf("%s:%d: cell (%d, %d) count %d outside the %dx%d grid", path, line, v[0], v[1], v[2], side, side)
		}
		counts[i] += v[2]
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return g, counts
}
