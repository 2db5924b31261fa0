//go:build !glpk || !cgo

package lp

import (
	"errors"
	"time"
)

// haveGLPK reports whether the GLPK solver is compiled in (build tag glpk).
const haveGLPK = false

func newGLPKBackend() (*Backend, error) {
	return nil, errors.New("glpk: not compiled in (build with -tags glpk; needs Debian package libglpk-dev)")
}

// SolveGLPK fails: GLPK is not compiled in.
func SolveGLPK(*Problem, Method, time.Duration) ([]float64, []float64, error) {
	return nil, nil, errors.New("glpk: not compiled in (build with -tags glpk)")
}
