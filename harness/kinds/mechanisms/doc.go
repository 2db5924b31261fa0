// Package mechanisms is the experiment kind "mechanisms": the
// location-privacy mechanisms of a mechanism.Registry (those of package
// privic/kernels/mechanism by default) compared on equal footing on the
// paper's cities. Each mechanism is calibrated to the same tight epsilon,
// the same average distortion or the same mutual information, and
// measured on statistical utility (EMD of the IBU estimate to the prior),
// distortion, mutual information, tight epsilon, the Bayesian adversary's
// expected error and the identification of the vulnerable location A on
// the island prior. Finish draws the privacy-utility frontiers and writes
// a section saying which mechanism wins where.
//
// The kind knows no mechanism by name: it takes the list, the
// constructors and what each needs (a widened output grid, coarsening,
// an LP's size) from the registry, so a new mechanism is its file and its
// line in the registry's table.
package mechanisms
