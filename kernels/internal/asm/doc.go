// Package asm holds the vector kernels of package kernels, the way
// gonum's internal/asm does: every routine has one entry point taking
// slices, which checks the slices' extents once and runs the AVX2/FMA
// assembly on amd64 CPUs that have it (chosen once, at start-up, in
// stubs_amd64.go) or the plain Go loop documented as the routine's
// reference (stubs_noasm.go: other architectures and the purego tag, and
// amd64 CPUs without AVX2 or FMA). Callers never test the CPU.
//
// The assembly and the Go loops compute the same sums; the assembly fuses
// multiplies and adds (FMA) and may group a sum's terms otherwise, so the
// last bits of a result may differ between the two, never more. The tests
// check every entry point against its definition, and on amd64 the
// assembly against the Go loop.
package asm
