package mechanism

import (
	"fmt"

	"privic/kernels"
)

// Coarsened runs Base on a coarse grid of Factor x Factor blocks and lifts
// the result back to the fine grid: a user in fine cell x reports through
// the row of x's block, and a coarse report Y is output as the fine cell
// at the middle of block Y. Blocks on the south and east edges may be
// partial. The coarse prior is the fine prior summed over blocks.
//
// It makes mechanisms whose cost explodes with the grid (the optimal LP)
// usable on city grids, at the price of block resolution. Geo-
// indistinguishability carries over: for blocks at coarse offset (a, b),
// the closest fine cells are at least sqrt(a^2+b^2) fine cells apart
// (|a| Factor - (Factor-1) >= |a|), and fine cells of one block have equal
// rows, so a coarse channel that is eps-geo-indistinguishable in coarse
// units is eps-geo-indistinguishable in fine units. Adjacent blocks touch,
// so the fine tight epsilon is typically the coarse one: the lift spends
// the whole budget at block borders.
type Coarsened struct {
	Base   Mechanism
	Factor int
}

// Info implements Mechanism.
func (m Coarsened) Info() Info {
	bi := m.Base.Info()
	bi.Name = fmt.Sprintf("%s-coarse%d", bi.Name, m.Factor)
	bi.SameGrid = true
	bi.Reference += fmt.Sprintf("; run on %dx%d blocks and lifted to the grid", m.Factor, m.Factor)
	return bi
}

// Coarse returns the block grid of g.
func (m Coarsened) Coarse(g kernels.Grid) kernels.Grid {
	k := max(m.Factor, 1)
	return kernels.Grid{Rows: (g.Rows + k - 1) / k, Cols: (g.Cols + k - 1) / k}
}

// Claim implements Mechanism: the base claim's upper bound in coarse units
// bounds the fine tight epsilon (see the type's comment); nothing is
// claimed from below.
func (m Coarsened) Claim(in, out kernels.Grid, p float64) Claim {
	c := m.Coarse(in)
	bc := m.Base.Claim(c, c, p)
	return Claim{Lo: 0, Hi: bc.Hi, Tol: bc.Tol, Note: "base claim on the block grid: " + bc.Note}
}

// block returns the block index of fine local cell (r, c).
func (m Coarsened) block(coarse kernels.Grid, r, c int) int {
	return coarse.Index(r/m.Factor, c/m.Factor)
}

// Channel implements Mechanism; out must equal in.
func (m Coarsened) Channel(in, out kernels.Grid, prior []float64, p float64) (*kernels.Channel, error) {
	info := m.Info()
	if m.Base == nil || m.Factor < 1 {
		return nil, fmt.Errorf("%s: needs a base mechanism and Factor >= 1 (got %d)", info.Name, m.Factor)
	}
	if err := checkGrids(info, in, out); err != nil {
		return nil, err
	}
	coarse := m.Coarse(in)
	var cp []float64
	if prior != nil || info.PriorDependent {
		if err := checkPrior(info.Name, in, prior); err != nil {
			return nil, err
		}
		cp = make([]float64, coarse.Len())
		for x, v := range prior {
			r, c := in.Cell(x)
			cp[m.block(coarse, r, c)] += v
		}
	}
	cc, err := m.Base.Channel(coarse, coarse, cp, p)
	if err != nil {
		return nil, fmt.Errorf("%s: on the %v block grid: %w", info.Name, coarse, err)
	}
	// rep[Y] is the fine output cell of coarse report Y.
	rep := make([]int, coarse.Len())
	for y := range rep {
		br, bc := coarse.Cell(y)
		r0, c0 := br*m.Factor, bc*m.Factor
		r1, c1 := min(r0+m.Factor, in.Rows)-1, min(c0+m.Factor, in.Cols)-1
		rep[y] = out.Index((r0+r1)/2, (c0+c1)/2)
	}
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, err
	}
	for x := 0; x < in.Len(); x++ {
		r, c := in.Cell(x)
		row := ch.Row(x)
		for y, v := range cc.Row(m.block(coarse, r, c)) {
			row[rep[y]] += v
		}
	}
	return ch, nil
}
