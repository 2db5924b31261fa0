// Package verdict holds what the kinds share to turn measurements into a
// claim's verdict: the comparison of two means over simulations (Welch's
// t-test, with Holm's correction across a family of comparisons), the
// interval of a mean, the distances in metres that make a rule mean the
// same at any resolution, and the words that state each rule.
//
// The rules themselves live with the kinds that check the claims; this
// package gives them one vocabulary, so that "significant", "one paper
// cell" or "too few check-ins per cell" mean the same in every claim.
package verdict
