// Command privic runs the experiments of the privic project: it loads
// TOML specs (experiments/*.toml), runs their jobs in parallel, stores
// the results under results/<name>/ and joins shard runs.
//
//	privic run [-j N] [-q] [--out DIR] [--force] [--shard i/n] [--mem-limit SIZE]
//	           [--cpuprofile FILE] [--memprofile FILE] SPEC...
//	privic validate [--mem-limit SIZE] SPEC...
//	privic list [--dir DIR]
//	privic merge [--out DIR] [-j N] [-q] SHARD_DIR...
//	privic help [COMMAND]
//
// Errors are one line starting with "privic: "; the exit status is 0 on
// success, 1 on error, 2 on a usage error and 130 when interrupted.
// ./run.sh at the repository root builds it into bin/ and drives it.
package main
