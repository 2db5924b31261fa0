package asm

import "fmt"

// StencilFold computes a 4-row by width-column block (width 8 or 12) of a
// product with a stencil table from row-folded inputs (see kernels'
// stencil.prodFold): for i < 4 and j < width,
//
//	out[i*outStride+j] = sum over d < nd, then cy < c, of
//	    u[i*ustride + d*(c+upad) + cy] * t[c-1-cy + d*ts + j]
//
// summed in that order (d outer, cy inner). nd and c are at least 1.
func StencilFold(width int, out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int) {
	if (width != 8 && width != 12) || nd < 1 || c < 1 || outStride < width || ustride < 0 || ts < 0 || upad < 0 ||
		len(out) < 3*outStride+width || len(u) < 3*ustride+(nd-1)*(c+upad)+c || len(t) < c+(nd-1)*ts+width {
		panic(fmt.Sprintf("asm: StencilFold width %d, nd %d, c %d, out %d (stride %d), u %d (stride %d, pad %d), t %d (stride %d)",
			width, nd, c, len(out), outStride, len(u), ustride, upad, len(t), ts))
	}
	stencilFold(width, out, outStride, u, ustride, nd, c, t, ts, upad)
}

// stencilFoldGo is StencilFold's reference loop: the accumulators of the
// block are updated once per (d, cy), as the assembly does with vectors.
func stencilFoldGo(width int, out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int) {
	var acc [4][12]float64
	for d := range nd {
		for cy := range c {
			trow := t[c-1-cy+d*ts : c-1-cy+d*ts+width]
			for i := range acc {
				a := u[i*ustride+d*(c+upad)+cy]
				row := acc[i][:width]
				for j, tv := range trow {
					row[j] += a * tv
				}
			}
		}
	}
	for i := range acc {
		copy(out[i*outStride:i*outStride+width], acc[i][:width])
	}
}

// FoldRow writes the row folds of one output row on rows of cq entries
// (cq a positive multiple of 4): v holds 2nd-1 rows, the centre row being
// v[(nd-1)*cq:nd*cq], and u receives nd rows, u[0:cq] the centre row and,
// for 1 <= d < nd, u[d*cq:(d+1)*cq] the sum of the rows d above and d
// below it.
func FoldRow(u, v []float64, cq, nd int) {
	if cq < 4 || cq%4 != 0 || nd < 1 || len(u) < nd*cq || len(v) < (2*nd-1)*cq {
		panic(fmt.Sprintf("asm: FoldRow with cq %d, nd %d, u %d, v %d", cq, nd, len(u), len(v)))
	}
	foldRow(u, v, cq, nd)
}

// foldRowGo is FoldRow's reference loop.
func foldRowGo(u, v []float64, cq, nd int) {
	mid := (nd - 1) * cq
	copy(u[:cq], v[mid:mid+cq])
	for d := 1; d < nd; d++ {
		dst := u[d*cq : (d+1)*cq]
		lo, hi := v[mid-d*cq:mid-d*cq+cq], v[mid+d*cq:mid+d*cq+cq]
		for k := range dst {
			dst[k] = lo[k] + hi[k]
		}
	}
}
