// Package atomicfile replaces files atomically: whatever happens, a
// path holds either its old content or the complete new one, and a
// failed write leaves no temporary file behind.
//
// The data goes to a temporary file in the same directory as the target
// (the same file system, so the rename is atomic) whose name starts with
// TempPrefix, is flushed to disk, then renamed over the target; the
// directory is synced so that the rename itself survives a power cut.
// WriteFileNoSync leaves out the two fsyncs for files that are cheap to
// remake.
//
// WriteFile serves a file written in one go. Create and Commit serve
// writers that decide at the end whether the file should replace the
// target at all: a download whose digest turns out wrong, or files cut
// in one pass over a large input that must all be replaced or none.
//
// Every writer of privic that replaces a file (the harness's results and
// job records, the datasets' downloads and subsets, the generator of
// committed counts, the mutation summary) goes through this package, so
// that they share one tested clean-up.
package atomicfile
