// Package resolution provides the "resolution" experiment kind: the
// paper's claims checked on its own coarse grids set beside the same
// claims checked on much finer grids of the same regions, with the
// numbers that differ between the two put in metres so that grids of
// different cell sizes compare.
//
// The kind computes nothing itself. Its spec names, for every claim,
// the experiment (results directory) and the claim's text with which the
// paper's grid was checked and the one with which a fine grid was, and
// for the measurements it converts to metres the experiment pairs to
// read. Its Finish reads those experiments' claims.csv and tables from
// the same output directory; the kind finishes last (harness.FinishesLast),
// so a run of the fine specs together with this one reads their final
// results. An experiment that is not there is reported as not run, never
// guessed.
package resolution
