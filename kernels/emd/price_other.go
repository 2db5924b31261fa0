//go:build !amd64 || purego

package emd

func scanBelow(row, d []float64, k, n4 int, thr float64) int {
	return scanBelowGo(row, d, k, n4, thr)
}
