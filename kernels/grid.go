package kernels

import (
	"fmt"
	"math"
)

// Grid is a rectangular block of Rows x Cols cells placed at (Row0, Col0)
// in a shared integer cell coordinate system. Cells are indexed row-major:
// local cell (r, c) has index r*Cols + c and absolute position
// (Row0+r, Col0+c). Distances between cells of different grids are taken
// between absolute positions, so an output grid widened by w cells on every
// side is simply Widen(w): its Row0 and Col0 are w less than the base grid's.
type Grid struct {
	Rows, Cols int
	Row0, Col0 int
}

// MaxCells bounds the number of cells of a grid (1024 x 1024). Structured
// channels (BAChannel, LaplaceOp, RROp) work up to it; a dense Channel is
// further limited to MaxDenseCells cells per side of its matrix.
const MaxCells = 1 << 20

// NewGrid returns the rows x cols grid at the origin.
func NewGrid(rows, cols int) (Grid, error) {
	g := Grid{Rows: rows, Cols: cols}
	return g, g.Validate()
}

// Validate reports whether g has a positive, bounded number of cells.
func (g Grid) Validate() error {
	if g.Rows <= 0 || g.Cols <= 0 {
		return fmt.Errorf("grid %dx%d: rows and cols must be > 0", g.Rows, g.Cols)
	}
	if int64(g.Rows)*int64(g.Cols) > MaxCells {
		return fmt.Errorf("grid %dx%d: more than %d cells", g.Rows, g.Cols, MaxCells)
	}
	return nil
}

// Len is the number of cells.
func (g Grid) Len() int { return g.Rows * g.Cols }

// Index returns the row-major index of local cell (r, c).
func (g Grid) Index(r, c int) int { return r*g.Cols + c }

// Cell returns the local (row, col) of index i.
func (g Grid) Cell(i int) (r, c int) { return i / g.Cols, i % g.Cols }

// Abs returns the absolute (row, col) of index i.
func (g Grid) Abs(i int) (r, c int) { return g.Row0 + i/g.Cols, g.Col0 + i%g.Cols }

// Widen returns the grid that extends g by w cells on every side.
func (g Grid) Widen(w int) Grid {
	return Grid{Rows: g.Rows + 2*w, Cols: g.Cols + 2*w, Row0: g.Row0 - w, Col0: g.Col0 - w}
}

// Contains reports whether every cell of o is a cell of g.
func (g Grid) Contains(o Grid) bool {
	return o.Row0 >= g.Row0 && o.Col0 >= g.Col0 &&
		o.Row0+o.Rows <= g.Row0+g.Rows && o.Col0+o.Cols <= g.Col0+g.Cols
}

// IndexOf returns the index in g of the absolute cell (r, c), or -1.
func (g Grid) IndexOf(r, c int) int {
	lr, lc := r-g.Row0, c-g.Col0
	if lr < 0 || lc < 0 || lr >= g.Rows || lc >= g.Cols {
		return -1
	}
	return lr*g.Cols + lc
}

// Dist is the Euclidean distance, in cell units, between cell i of a and
// cell j of b.
func Dist(a Grid, i int, b Grid, j int) float64 {
	ar, ac := a.Abs(i)
	br, bc := b.Abs(j)
	return math.Hypot(float64(ar-br), float64(ac-bc))
}

// String formats g as "RxC" or "RxC@(r0,c0)".
func (g Grid) String() string {
	if g.Row0 == 0 && g.Col0 == 0 {
		return fmt.Sprintf("%dx%d", g.Rows, g.Cols)
	}
	return fmt.Sprintf("%dx%d@(%d,%d)", g.Rows, g.Cols, g.Row0, g.Col0)
}
