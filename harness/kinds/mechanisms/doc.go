// Package compare holds the experiment kind "mechanisms": location-privacy
// mechanisms (package privic/kernels/mechanism) compared on equal footing
// on the paper's cities. Each mechanism is calibrated to the same tight
// epsilon, the same average distortion or the same mutual information,
// and measured on statistical utility (EMD of the IBU estimate to the
// prior), distortion, mutual information, tight epsilon, the Bayesian
// adversary's expected error and the identification of the vulnerable
// location A on the island prior. Finish draws the privacy-utility
// frontiers and writes a Markdown section saying which mechanism wins
// where.
package compare
