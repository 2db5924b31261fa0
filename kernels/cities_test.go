package kernels

import "testing"

// The tests and benchmarks on the paper's cities read the per-cell counts
// that package datasets embeds. Package datasets imports kernels, so only
// the external test package can import it: it installs the loader with
// SetCityCounts when the test binary starts (see cities_hook_test.go).
var cityCounts func(city string) (Grid, []int, error)

// SetCityCounts installs the loader of a paper city's grid and per-cell
// check-in counts (the paper's row policy: the reference code's header
// quirk drops the first line of the grid-cell file).
func SetCityCounts(load func(city string) (Grid, []int, error)) { cityCounts = load }

// loadCity returns a paper city ("paris", "sf") on a grid at the origin
// with its per-cell counts, row-major.
func loadCity(tb testing.TB, city string) (Grid, []int) {
	tb.Helper()
	if cityCounts == nil {
		tb.Fatal("no city loader installed (cities_hook_test.go sets it)")
	}
	g, counts, err := cityCounts(city)
	if err != nil {
		tb.Fatalf("%s: %v", city, err)
	}
	return g, counts
}

// cityPrior converts counts to the empirical distribution.
func cityPrior(counts []int) []float64 {
	p := make([]float64, len(counts))
	empiricalInto(p, counts)
	return p
}

// empiricalInto writes into dst (of len(counts) entries) the empirical
// distribution of counts.
func empiricalInto(dst []float64, counts []int) {
	n := 0
	for _, v := range counts {
		n += v
	}
	for i, v := range counts {
		dst[i] = float64(v) / float64(n)
	}
}

// TestLoadCity: the cities' domains and check-in totals are the paper's
// (Paris 11x15 with 10,078 check-ins, SF 16x24 with 123,025, under the
// header quirk).
func TestLoadCity(t *testing.T) {
	for _, tc := range []struct {
		city       string
		rows, cols int
		n          int
	}{
		{"paris", 11, 15, 10078},
		{"sf", 16, 24, 123025},
	} {
		g, counts := loadCity(t, tc.city)
		n := 0
		for _, v := range counts {
			n += v
		}
		if g.Rows != tc.rows || g.Cols != tc.cols || g.Row0 != 0 || g.Col0 != 0 || len(counts) != g.Len() || n != tc.n {
			t.Errorf("%s: got %v at (%d,%d) with %d counts, %d check-ins; want %dx%d at the origin with %d",
				tc.city, g, g.Row0, g.Col0, len(counts), n, tc.rows, tc.cols, tc.n)
		}
	}
}
