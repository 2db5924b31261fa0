package main

import (
	"privic/harness"
	"privic/harness/kinds"
)

// allKinds lists every experiment kind the CLI knows, in report order
// (package harness/kinds). Registration fails loudly on a duplicate name.
func allKinds() []harness.Kind { return kinds.All() }
