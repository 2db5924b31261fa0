package kernels

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestGridGeometry(t *testing.T) {
	g, err := NewGrid(11, 15)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 165 {
		t.Errorf("Len = %d, want 165", g.Len())
	}
	for i := 0; i < g.Len(); i++ {
		r, c := g.Cell(i)
		if g.Index(r, c) != i || r != i/15 || c != i%15 {
			t.Fatalf("Cell/Index round trip broken at %d: (%d,%d)", i, r, c)
		}
		if ar, ac := g.Abs(i); ar != r || ac != c {
			t.Fatalf("Abs(%d) = (%d,%d) on a grid at the origin", i, ar, ac)
		}
		if g.IndexOf(r, c) != i {
			t.Fatalf("IndexOf(%d,%d) = %d, want %d", r, c, g.IndexOf(r, c), i)
		}
	}
	// Distances: 3-4-5 triangle, symmetry, zero on the diagonal.
	if d := Dist(g, g.Index(0, 0), g, g.Index(3, 4)); d != 5 {
		t.Errorf("Dist((0,0),(3,4)) = %v, want 5", d)
	}
	if d := Dist(g, g.Index(10, 14), g, g.Index(0, 0)); math.Abs(d-math.Sqrt(100+196)) > 1e-15 {
		t.Errorf("diameter = %v, want sqrt(296)", d)
	}
	if d := Dist(g, 7, g, 7); d != 0 {
		t.Errorf("Dist(x,x) = %v", d)
	}
	for _, bad := range []struct {
		rows, cols int
		want       string
	}{
		{0, 3, "grid 0x3: rows and cols must be > 0"},
		{3, 0, "grid 3x0: rows and cols must be > 0"},
		{-1, 2, "grid -1x2: rows and cols must be > 0"},
		{2000, 2000, fmt.Sprintf("grid 2000x2000: more than %d cells", MaxCells)},
	} {
		if _, err := NewGrid(bad.rows, bad.cols); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewGrid(%d,%d): error %v, want one saying %q", bad.rows, bad.cols, err, bad.want)
		}
	}
	// The largest grid allowed is accepted.
	if _, err := NewGrid(1, MaxCells); err != nil {
		t.Errorf("NewGrid(1, %d): %v", MaxCells, err)
	}
}

func TestGridWiden(t *testing.T) {
	g, _ := NewGrid(11, 15)
	w := g.Widen(5)
	if w.Rows != 21 || w.Cols != 25 || w.Row0 != -5 || w.Col0 != -5 {
		t.Fatalf("Widen(5) = %+v, want 21x25 at (-5,-5)", w)
	}
	if !w.Contains(g) || g.Contains(w) || !g.Contains(g) {
		t.Errorf("Contains: widened must contain the base, not the reverse")
	}
	// Base cell (r,c) is widened cell (r+5, c+5), at distance 0.
	for i := 0; i < g.Len(); i++ {
		r, c := g.Abs(i)
		j := w.IndexOf(r, c)
		lr, lc := w.Cell(j)
		if lr != r+5 || lc != c+5 {
			t.Fatalf("base (%d,%d) is widened local (%d,%d), want (%d,%d)", r, c, lr, lc, r+5, c+5)
		}
		if d := Dist(g, i, w, j); d != 0 {
			t.Fatalf("Dist(base %d, widened %d) = %v, want 0", i, j, d)
		}
	}
	// The widened corner (-5,-5) is sqrt(50) from base (0,0).
	if d := Dist(g, 0, w, 0); math.Abs(d-math.Sqrt(50)) > 1e-15 {
		t.Errorf("Dist(base (0,0), widened corner) = %v, want sqrt(50)", d)
	}
	if w.IndexOf(-6, 0) != -1 || w.IndexOf(0, 20) != -1 || g.IndexOf(-1, 0) != -1 {
		t.Errorf("IndexOf outside the grid must be -1")
	}
	if s := w.String(); s != "21x25@(-5,-5)" {
		t.Errorf("String = %q", s)
	}
}
