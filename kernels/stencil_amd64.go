//go:build amd64 && !purego

package kernels

// stencilFold4x8 computes a 4-row by 8-column block of a stencil product
// from row-folded inputs: for i < 4 and j < 8,
//
//	out[i*outStride+j] = sum over d < nd, cy < C of u[i*ustride + d*(C+upad) + cy] * t[d*ts - cy + j]
//
// where t points at the table entry of (row R-1, column C-1+j0). See
// stencil.prodFold. Implemented in stencil_amd64.s with AVX2 and FMA;
// callers must check hasAVX2FMA.
//
//go:noescape
func stencilFold4x8(out *float64, outStride int, u *float64, ustride int, nd int, C int, t *float64, ts int, upad int)

// foldRow writes the row folds of one output row (see stencil.prodFold) on
// rows of cq entries, cq a multiple of 4: u[0:cq] = center[0:cq] and
// u[d*cq:(d+1)*cq] = center[-d*cq:] + center[d*cq:] for 1 <= d < nd, where
// center points into a zero-padded copy of v. Implemented in
// stencil_amd64.s with AVX; callers must check hasAVX2FMA.
//
//go:noescape
func foldRow(u, center *float64, cq, nd int)

// stencilFold4x12 is stencilFold4x8 for a block of 12 columns.
//
//go:noescape
func stencilFold4x12(out *float64, outStride int, u *float64, ustride int, nd int, C int, t *float64, ts int, upad int)
