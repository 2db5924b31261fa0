//go:build amd64 && !purego

package emd

import "golang.org/x/sys/cpu"

// belowChunk (price_amd64.s) scans row[k:n] - d[k:n] four entries at a time (k and n
// multiples of 4) and returns the start of the first group of four that
// holds an entry below thr, or n if none does. It needs AVX.
//
//go:noescape
func belowChunk(row, d *float64, k, n int, thr float64) int

// hasAVX reports whether the CPU and OS support the 256-bit AVX
// instructions belowChunk uses (x/sys/cpu checks that the OS saves the YMM
// state); set once at start-up, never written afterwards.
var hasAVX = cpu.X86.HasAVX

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
