// Package enum spells the values 0, 1, 2, ... of an integer enumeration
// by name. One table of names serves String, the parser of spec files and
// the text (un)marshalling that lets specs and manifests use the names, so
// that these cannot drift apart.
//
// # Why here
//
// Both the numerics (the calibration targets and methods and the point
// models of kernels/mechanism) and the data layer (the row policies,
// island modes and band rules of datasets) have such enumerations. The
// kernels may import nothing of privic outside kernels/, so the helper
// lives under kernels/; it is not internal because datasets, outside
// kernels/, uses it too. It imports only the standard library, so every
// package may import it without changing the layering: the harness still
// reaches the numerics only through its kinds.
package enum
