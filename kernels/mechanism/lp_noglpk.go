//go:build !glpk || !cgo

package mechanism

import "errors"

// haveGLPK reports whether the GLPK solver is compiled in (build tag glpk).
const haveGLPK = false

func newGLPKBackend() (*lpBackend, error) {
	return nil, errors.New("glpk: not compiled in (build with -tags glpk; needs Debian package libglpk-dev)")
}

func solveGLPK(*geoLP) ([]float64, []float64, error) {
	return nil, nil, errors.New("glpk: not compiled in (build with -tags glpk)")
}
