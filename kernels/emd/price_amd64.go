//go:build amd64 && !purego

package emd

// cpuid, xgetbv and belowChunk are implemented in price_amd64.s.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// belowChunk scans row[k:n] - d[k:n] four entries at a time (k and n
// multiples of 4) and returns the start of the first group of four that
// holds an entry below thr, or n if none does. It needs AVX.
//
//go:noescape
func belowChunk(row, d *float64, k, n int, thr float64) int

// hasAVX reports whether the CPU and OS support the 256-bit AVX
// instructions belowChunk uses; computed once at start-up, never written
// afterwards.
var hasAVX = detectAVX()

func detectAVX() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 1 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(osxsave|avx) != osxsave|avx {
		return false
	}
	// The OS must save the YMM state (XCR0 bits 1 and 2).
	xcr0, _ := xgetbv()
	return xcr0&6 == 6
}

// scanBelow is the vector pre-scan of argminBelow: it returns the start of
// the first group of four entries at or after k (a multiple of 4) with
// row - d below thr, or n4 (len(row) rounded down to 4) if there is none.
func scanBelow(row, d []float64, k, n4 int, thr float64) int {
	if !hasAVX {
		return scanBelowGo(row, d, k, n4, thr)
	}
	if k >= n4 {
		return n4
	}
	return belowChunk(&row[0], &d[0], k, n4, thr)
}
