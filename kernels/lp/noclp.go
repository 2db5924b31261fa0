//go:build !clp || !cgo

package lp

import "errors"

// haveCLP reports whether the CLP solver is compiled in (build tag clp).
const haveCLP = false

func newCLPModel() (Model, error) {
	return nil, errors.New("clp: not compiled in (build with -tags clp; needs Debian package coinor-libclp-dev)")
}
