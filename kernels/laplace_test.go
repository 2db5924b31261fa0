package kernels

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestLaplace(t *testing.T) {
	base, _ := NewGrid(4, 6)
	shifted := Grid{Rows: 3, Cols: 3, Row0: 10, Col0: -7} // far away, disjoint
	for _, tc := range []struct {
		name    string
		in, out Grid
		eps     float64
	}{
		{"base", base, base, 0.7},
		{"widened", base, base.Widen(5), 1.3},
		{"disjoint output", base, shifted, 0.9},
		{"huge eps, disjoint", base, shifted, 1000},
		{"huge eps, widened", base, base.Widen(2), 800},
	} {
		ch, err := Laplace(tc.in, tc.out, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		checkStochastic(t, tc.name, ch, 1e-12)
		// Closed form: within a row, C[x,y]/C[x,y'] = exp(-eps (d(x,y) - d(x,y'))),
		// and the row is exp(-eps d) over its sum.
		for x := 0; x < tc.in.Len(); x++ {
			row := ch.Row(x)
			dmin := math.Inf(1)
			for y := range row {
				dmin = min(dmin, Dist(tc.in, x, tc.out, y))
			}
			s := 0.0
			for y := range row {
				s += math.Exp(-tc.eps * (Dist(tc.in, x, tc.out, y) - dmin))
			}
			for y, v := range row {
				want := math.Exp(-tc.eps*(Dist(tc.in, x, tc.out, y)-dmin)) / s
				if want < 0x1p-1022 {
					want = 0 // subnormal entries are flushed
				}
				if math.Abs(v-want) > 1e-13*want {
					t.Fatalf("%s: C[%d,%d] = %v, want %v", tc.name, x, y, v, want)
				}
			}
		}
	}
	// The paper's widened Paris output is 21 x 25 cells.
	paris, _ := NewGrid(11, 15)
	ch, _ := Laplace(paris, paris.Widen(5), 1)
	if ch.Out.Len() != 525 || ch.Out.Row0 != -5 {
		t.Errorf("widened Paris output %v", ch.Out)
	}
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		want := fmt.Sprintf("laplace: eps = %v: must be finite and > 0", eps)
		if _, err := Laplace(base, base, eps); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("eps = %v: error %v, want one saying %q", eps, err, want)
		}
	}
	if _, err := Laplace(Grid{}, base, 1); err == nil || !strings.Contains(err.Error(), "laplace: input grid 0x0: rows and cols must be > 0") {
		t.Errorf("empty input grid: error %v", err)
	}
	if _, err := Laplace(base, Grid{Rows: 2}, 1); err == nil || !strings.Contains(err.Error(), "laplace: output grid 2x0: rows and cols must be > 0") {
		t.Errorf("empty output grid: error %v", err)
	}
}
