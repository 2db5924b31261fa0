package compare

import (
	"privic/harness"
	"privic/kernels/mechanism"
)

// kindVersion is mixed into the spec hash (harness.Versioned): bump it
// when a change alters stored job results.
const kindVersion = "1"

// Kinds returns the experiment kinds of this package, for the CLI's
// registry.
func Kinds() []harness.Kind { return []harness.Kind{mechanismsKind{}} }

// Version implements harness.Versioned. With lp.solver = "auto" the LP
// rows depend on whether GLPK is compiled in, so the build is part of the
// version: stored results of one build are not reused by the other.
func (mechanismsKind) Version() string {
	if mechanism.SolverAvailable(mechanism.SolverGLPK) {
		return kindVersion + "+glpk"
	}
	return kindVersion
}
