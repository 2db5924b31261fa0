//go:build !unix

package kernels

import "testing"

// cpuTimer is a no-op where getrusage is not available; see
// cputime_unix_test.go.
type cpuTimer struct{}

func startCPU() cpuTimer           { return cpuTimer{} }
func (cpuTimer) report(*testing.B) {}
