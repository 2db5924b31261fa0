package kernels

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedDir returns the project's shared data directory (../shared relative
// to the module root, found by walking up from the working directory to the
// directory holding go.mod), or "" with the reason when it is absent.
func sharedDir() (string, string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "cannot get working directory: " + err.Error()
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(dir, "..", "shared")
			if st, err := os.Stat(shared); err != nil || !st.IsDir() {
				return "", "shared data directory " + shared + " not found"
			}
			return shared, ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "no go.mod above " + wd
		}
		dir = parent
	}
}

// loadSharedCity reads ../shared/datasets/gowalla/<city>_grid_cells.csv the
// way the paper's reference code does: the first line is dropped (the
// reference treats it as a header although it is a data row), the domain is
// the full rectangle spanned by the occurring rows and columns (Paris 11x15,
// SF 16x24), and the result is the per-cell check-in count, row-major, on a
// grid at the origin (local row = row - min row, local col = col - min col).
// It skips the test or benchmark loudly when the shared data is absent.
func loadSharedCity(tb testing.TB, city string) (Grid, []int) {
	tb.Helper()
	dir, why := sharedDir()
	if dir == "" {
		tb.Skipf("SKIPPING: %s data needs ../shared next to the module root: %s", city, why)
	}
	path := filepath.Join(dir, "datasets", "gowalla", city+"_grid_cells.csv")
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("SKIPPING: %s data unavailable: %v", city, err)
	}
	defer f.Close()
	type cell struct{ r, c int }
	var cells []cell
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue // the reference implementation's header quirk
		}
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		a, b, ok := strings.Cut(s, ",")
		if !ok {
			tb.Fatalf("%s:%d: want \"row,col\", got %q", path, line, s)
		}
		r, err1 := strconv.Atoi(strings.TrimSpace(a))
		c, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil {
			tb.Fatalf("%s:%d: bad cell %q", path, line, s)
		}
		cells = append(cells, cell{r, c})
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(cells) == 0 {
		tb.Fatalf("%s: no cells", path)
	}
	r0, r1, c0, c1 := cells[0].r, cells[0].r, cells[0].c, cells[0].c
	for _, p := range cells {
		r0, r1 = min(r0, p.r), max(r1, p.r)
		c0, c1 = min(c0, p.c), max(c1, p.c)
	}
	g, err := NewGrid(r1-r0+1, c1-c0+1)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	counts := make([]int, g.Len())
	for _, p := range cells {
		counts[g.Index(p.r-r0, p.c-c0)]++
	}
	return g, counts
}

// sharedPrior converts counts to the empirical distribution.
func sharedPrior(counts []int) []float64 {
	n := 0
	for _, v := range counts {
		n += v
	}
	p := make([]float64, len(counts))
	for i, v := range counts {
		p[i] = float64(v) / float64(n)
	}
	return p
}

func TestLoadSharedCity(t *testing.T) {
	for _, tc := range []struct {
		city       string
		rows, cols int
		n          int
	}{
		{"paris", 11, 15, 10078},
		{"sf", 16, 24, 123025},
	} {
		g, counts := loadSharedCity(t, tc.city)
		n := 0
		for _, v := range counts {
			n += v
		}
		if g.Rows != tc.rows || g.Cols != tc.cols || n != tc.n {
			t.Errorf("%s: got %v with %d check-ins, want %dx%d with %d", tc.city, g, n, tc.rows, tc.cols, tc.n)
		}
	}
}
