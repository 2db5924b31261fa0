package kernels

import "testing"

// SharedDir exposes sharedDir to the external test package (the scale
// benchmarks, which need package datasets and so cannot live in package
// kernels).
var SharedDir = sharedDir

// CPUTimer exposes cpuTimer (cpu-ns/op) to the external test package.
type CPUTimer struct{ t cpuTimer }

// StartCPU starts a CPUTimer.
func StartCPU() CPUTimer { return CPUTimer{startCPU()} }

// Report adds the cpu-ns/op metric to b.
func (c CPUTimer) Report(b *testing.B) { c.t.report(b) }

// Empirical and EmpiricalInto expose cityPrior and empiricalInto (the
// empirical distribution of counts) to the external test package.
var (
	Empirical     = cityPrior
	EmpiricalInto = empiricalInto
)

// TightEpsScans is TightEps, also returning how many columns it scanned
// pair by pair (the O(|X|^2) step).
func TightEpsScans(ch *Channel) (eps float64, scans int, err error) {
	eps, err = tightEps(ch, func(g Grid, inv, l []float64) float64 {
		scans++
		return maxLogRatio(g, inv, l)
	})
	return eps, scans, err
}
