// Command gencounts writes the embedded per-cell counts of the paper's
// cities (datasets/counts/<city>.csv) from the curated Gowalla subsets in
// the shared directory. `./run.sh datasets` runs it.
//
// Usage:
//
//	go run ./datasets/internal/gencounts [-shared DIR] [-out DIR] [-check]
//
// -shared is the shared tree (default: ../shared next to the module root);
// the subsets are read from DIR/datasets/gowalla. -out is where the counts
// files go (default: datasets/counts under the module root). With -check
// nothing is written: the program fails if a regenerated file differs from
// the one in -out.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"privic/datasets"
	"privic/internal/atomicfile"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "gencounts:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gencounts", flag.ContinueOnError)
	shared := fs.String("shared", "", "shared directory holding datasets/gowalla (default: ../shared next to the module root)")
	out := fs.String("out", "", "output directory (default: datasets/counts under the module root)")
	check := fs.Bool("check", false, "compare regenerated files with those in -out instead of writing")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *shared == "" || *out == "" {
		root, err := datasets.ModuleRoot(".")
		if err != nil {
			return fmt.Errorf("%w (give -shared and -out)", err)
		}
		if *shared == "" {
			*shared = datasets.SharedDir(root)
		}
		if *out == "" {
			*out = filepath.Join(root, "datasets", "counts")
		}
	}
	src := filepath.Join(*shared, "datasets", "gowalla")
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("curated subsets: %w", err)
	}
	for _, c := range datasets.Cities() {
		var buf bytes.Buffer
		if err := datasets.WriteCounts(&buf, c, src); err != nil {
			return err
		}
		dst := filepath.Join(*out, c.Name+".csv")
		if *check {
			old, err := os.ReadFile(dst)
			if err != nil {
				return err
			}
			if !bytes.Equal(old, buf.Bytes()) {
				return fmt.Errorf("%s differs from the counts regenerated from %s", dst, src)
			}
			fmt.Fprintf(stderr, "%s: up to date\n", dst)
			continue
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(dst, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", dst)
	}
	return nil
}
