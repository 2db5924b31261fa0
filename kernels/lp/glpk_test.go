//go:build glpk && cgo

package lp

// released reports whether free has deleted the GLPK problem.
func (g *glpkModel) released() bool { return g.lp == nil }
