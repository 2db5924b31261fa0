package kernels

// Memory estimates for guards that refuse jobs before they run. They count
// the float64 arrays the kernels allocate, as live bytes at the largest
// point of a call, and double them for the peak resident memory: Go's
// collector lets the heap grow to about twice the live data (GOGC = 100)
// before it collects.

// DenseChannelMemory is the size of a materialised |in| x |out| channel.
func DenseChannelMemory(in, out Grid) int64 {
	return 8 * int64(in.Len()) * int64(out.Len())
}

// fftPlanBytes is what newFFTConv keeps (the kernel's transform) and what
// it needs while it works (the periodic kernel and the scratch of a
// transform of it), for an R x C grid.
func fftPlanBytes(R, C int) (kept, building int64) {
	n0, n1 := int64(fftSize(2*R-1)), int64(max(4, fftSize(2*C-1)))
	m := n1 / 2
	w := int64(roundUp(int(m)+1, 4))
	kept = 8 * n0 * w
	building = 8 * (n0*n1 + 2*(m+1)*int64(roundUp(int(n0), 4)) + 2*n0*w)
	return kept, building
}

// fftScratchBytes is the scratch of one FFT product on an R x C grid.
func fftScratchBytes(R, C int) int64 {
	n0, n1 := int64(fftSize(2*R-1)), int64(max(4, fftSize(2*C-1)))
	m := n1 / 2
	w := int64(roundUp(int(m)+1, 4))
	return 8 * (2*(m+1)*int64(roundUp(R, 4)) + 2*n0*w)
}

// KernelMemory estimates the live bytes of the kernel products on grid g
// (one kprod: the stencil table, with its log table when withLog, the FFT
// plans it caches, the far norms) plus one product's work space.
func KernelMemory(g Grid, withLog bool) int64 {
	R, C := g.Rows, g.Cols
	m := int64(R * C)
	blocks := columnBlocks(C)
	cp := 0
	for _, b := range blocks {
		cp += b
	}
	ts := int64(roundUp(C+cp-1, 4))
	table := 8 * int64(2*R+2) * ts
	if withLog {
		table *= 2
	}
	// near and far vectors; the direct product's scratch and the padded
	// vectors of the factorised IBU on small grids.
	work := 8 * (3*m + 4*int64(cp) + 11*int64(roundUp(C, 4))*int64(R))
	const fixed = 64 << 10 // structures, maps, slice headers
	if m < fftMinCells {
		return fixed + table + work
	}
	kept, building := fftPlanBytes(R, C)
	plans := kept * int64(1+maxFarPlansFor(R, C))
	norms := 16 * int64(max(R, C)+1)
	return fixed + table + plans + building + norms + work + fftScratchBytes(R, C)
}

// maxFarPlansFor is maxFarPlans for an R x C grid.
func maxFarPlansFor(R, C int) int {
	kept, _ := fftPlanBytes(R, C)
	return max(4, min(16, int((farPlanBudget)/kept)))
}

// BAMemory estimates the peak resident bytes of BA on g (its workspace,
// the kernel products, the channel it returns) and of the operator
// methods and the factorised IBU afterwards (which reuse the channel's
// kernel products and need a few vectors of m entries each, plus the
// sampler's alias tables).
func BAMemory(g Grid) int64 {
	m := int64(g.Len())
	live := KernelMemory(g, false) + 8*(8*m+int64(g.Cols)) + 8*2*m // workspace, marginal and Z
	live += 8*6*m + 12*2*m                                         // IBU or operator vectors, alias tables
	return 2 * live
}

// LaplaceOpMemory estimates the peak resident bytes of NewLaplaceOp(in,
// out, eps) and of its methods.
func LaplaceOpMemory(in, out Grid) int64 {
	n := int64(out.Len())
	live := KernelMemory(out, false) + 8*(2*n+int64(in.Len())) + 8*6*n + 12*n
	return 2 * live
}
