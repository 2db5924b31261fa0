package main

import (
	"privic/harness"
	"privic/harness/compare"
	"privic/harness/incremental"
	"privic/harness/paper"
	"privic/harness/smoke"
)

// allKinds lists every experiment kind the CLI knows. Each kind package
// exports Kinds(); a new package is added here. Registration fails
// loudly on a duplicate name.
func allKinds() []harness.Kind {
	var kinds []harness.Kind
	kinds = append(kinds, smoke.Kinds()...)
	kinds = append(kinds, paper.Kinds()...)
	kinds = append(kinds, incremental.Kinds()...)
	kinds = append(kinds, compare.Kinds()...)
	return kinds
}
