// Package lp puts linear-programming solvers behind one API: the sparse
// GLPK (build tag glpk, Debian package libglpk-dev) and COIN-OR CLP (build
// tag clp, Debian package coinor-libclp-dev), both through cgo, and
// gonum's dense simplex. Without their tags (or without cgo) the package
// still builds: Available reports GLPK and CLP missing and their
// constructors fail with an error saying how to build them in.
//
// A Model is a linear program held by a solver between solves,
//
//	minimise cost . v  s.t.  lo <= A v <= up,  lb <= v <= ub,
//
// grown by adding rows and columns and re-solved warm from its last basis:
// the shape column generation and constraint generation need. A Backend
// makes the models of one goroutine (GLPK keeps its environment in
// thread-local storage). A whole Problem, given as triplets, is solved
// in one call by SolveGLPK (GLPK's presolver, simplex or interior point)
// or by SolveGonum (gonum's dense simplex from a given basis: pure Go,
// always available, for small programs).
//
// The package knows nothing of what its programs mean; building them is
// the caller's business. Like the rest of kernels it does no I/O and keeps
// no global mutable state.
package lp
