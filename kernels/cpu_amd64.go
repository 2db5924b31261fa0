//go:build amd64 && !purego

package kernels

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether the CPU and OS support the AVX2 and FMA
// instructions the assembly kernels use (x/sys/cpu checks that the OS
// saves the YMM state). It is set once at start-up and never written
// afterwards.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
