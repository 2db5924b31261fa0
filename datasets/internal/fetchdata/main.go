// Command fetchdata downloads the SNAP Gowalla check-in file and cuts the
// Paris and San Francisco subsets into datasets/cache/ (git-ignored),
// where datasets.Points finds them for the check-in scatter (Fig. 6a).
// `./run.sh fetch-data` runs it; it needs internet access unless -from
// names a local copy.
//
// Usage:
//
//	go run ./datasets/internal/fetchdata [-sha256 HEX] [-from FILE] [-out DIR] [-url URL] [-force]
//
// The SHA-256 of the SNAP file is not known to this project (it was never
// downloaded on the machine the code was written on), so there is no
// built-in expected digest: without -sha256 the file is NOT verified and
// the program prints the digest it computed so that it can be checked
// against another copy and pinned with -sha256 from then on. With -sha256
// a mismatch is an error and nothing is written.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"privic/datasets"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "fetch-data:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fetch-data", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", datasets.SNAPURL, "URL of the SNAP check-in file")
	sum := fs.String("sha256", "", "expected SHA-256 of the SNAP file (hex); empty: not verified, the computed digest is printed")
	from := fs.String("from", "", "use this local copy of the SNAP file instead of downloading")
	out := fs.String("out", "", "output directory (default: datasets/cache under the module root)")
	force := fs.Bool("force", false, "download again even if the output directory already holds the file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		root, err := datasets.ModuleRoot(".")
		if err != nil {
			return fmt.Errorf("%w (give -out)", err)
		}
		*out = datasets.CacheDir(root)
	}
	res, err := datasets.Fetch(ctx, datasets.FetchOptions{
		URL: *url, SHA256: *sum, From: *from, Dir: *out, Force: *force, Progress: stderr,
	})
	if err != nil {
		return err
	}
	if res.Verified {
		fmt.Fprintf(stderr, "%s: SHA-256 %s verified\n", res.Archive, res.SHA256)
	} else {
		fmt.Fprintf(stderr, "%s: SHA-256 %s NOT verified (no -sha256 given); check it against another copy and pass it with -sha256 next time\n", res.Archive, res.SHA256)
	}
	if res.Stats.Lines != datasets.SNAPLines {
		fmt.Fprintf(stderr, "warning: %d lines read, the SNAP file is documented to have %d\n", res.Stats.Lines, datasets.SNAPLines)
	}
	for _, s := range res.Subsets {
		fmt.Fprintf(stderr, "%s: %d check-ins -> %s\n", s.City, s.Points, s.Path)
	}
	return nil
}
