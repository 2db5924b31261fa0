// Package paper holds the experiment kinds that regenerate the figures and
// tables of the PRIVIC paper outside the PRIVIC loop itself:
//
//   - "datasets": Fig. 1 (the Paris island prior with A and B), Fig. 6a
//     (check-in points), Fig. 6b (density heat maps) and a table of grids;
//   - "elastic": Sec. III-A, Fig. 2a/2b (report distributions of A and B
//     under BA and LAP) and the elasticity, 2·beta-geo-ind and
//     invertibility claims;
//   - "ba-vs-lap": Sec. III-B, Fig. 3a/3b (statistical utility, true EMD,
//     beside the reference code's defective LAP pairing);
//   - "adversarial": Sec. VI, Fig. 11a/11b (report distribution of an
//     honest user at A when a fraction of users falsely report A);
//   - "runtime": Table II (one BA and one IBU as in a PRIVIC cycle).
//
// It also exports Report, which assembles results/REPORT.md from the
// section.md, claims.csv and skipped.csv files every kind writes and from
// the per-experiment manifests.
//
// The protocol follows ../shared/PROTOCOL.md. Wherever the paper and its
// reference code differ, the choice is a parameter and the spec names the
// default. Grid cells are always written in the grid's own indexing: row 0
// is the northern edge and column 0 the EASTERN edge; cells of a widened
// LAP output grid keep the base grid's coordinates (negative or beyond the
// base grid's last row/column).
package paper
