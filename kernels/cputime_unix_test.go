//go:build unix

package kernels

import (
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports, besides the wall-clock ns/op, the process CPU time per
// operation ("cpu-ns/op"). On a shared machine the wall clock includes the
// time other processes held the cores; the CPU time does not, so it is the
// steadier number to compare runs by (a single-threaded benchmark has
// cpu-ns/op ~ ns/op on an idle machine).
type cpuTimer struct {
	start time.Duration
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuTimer { return cpuTimer{start: cpuNow()} }

func (c cpuTimer) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuNow()-c.start)/float64(b.N), "cpu-ns/op")
	}
}
