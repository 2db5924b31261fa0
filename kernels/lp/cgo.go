//go:build (clp || glpk) && cgo

package lp

// #include <stddef.h>
import "C"

import "unsafe"

// dptr and iptr pass a slice to C: nil when empty, else its first element
// (the C side reads only the length it is told).
func dptr(s []float64) *C.double {
	if len(s) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

func iptr(s []int32) *C.int {
	if len(s) == 0 {
		return nil
	}
	return (*C.int)(unsafe.Pointer(&s[0]))
}
