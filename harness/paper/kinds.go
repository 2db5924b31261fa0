package paper

import "privic/harness"

// kindVersion is mixed into the spec hash of every kind here (through
// harness.Versioned): bump it when a change alters stored job results, so
// that the next run recomputes them instead of reusing stale ones.
const kindVersion = "2"

// Kinds returns the experiment kinds of this package, for the CLI's
// registry.
func Kinds() []harness.Kind {
	return []harness.Kind{datasetsKind{}, elasticKind{}, baVsLapKind{}, adversarialKind{}, runtimeKind{}}
}

func (datasetsKind) Version() string    { return kindVersion }
func (elasticKind) Version() string     { return kindVersion }
func (baVsLapKind) Version() string     { return kindVersion }
func (adversarialKind) Version() string { return kindVersion }
func (runtimeKind) Version() string     { return kindVersion }
