package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"privic/harness"
)

// env is what a command sees of the world.
type env struct {
	stdout, stderr io.Writer
	kinds          []harness.Kind
}

// command is one subcommand. To add one (e.g. report), write its run
// function and add an entry to commands.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"run", "[-j N] [-q] [--out DIR] [--force] [--shard i/n] [--mem-limit SIZE] [--summary] [--history DIR] [--cpuprofile FILE] [--memprofile FILE] SPEC...",
			"run experiment specs, reusing stored results", cmdRun},
		{"validate", "[--mem-limit SIZE] SPEC...", "check specs (keys, values, plan, memory) without running them", cmdValidate},
		{"list", "[--dir DIR] [--specs-of RESULTS]", "list the experiment kinds and the specs in DIR (default experiments); --specs-of prints the specs behind the experiments under RESULTS", cmdList},
		{"merge", "[--out DIR] [-j N] [-q] SHARD_DIR...", "join the outputs of shard runs into DIR and finish them", cmdMerge},
		{"dataset", "[--counts FILE] [--rows POLICY] SPEC [NAME...]",
			"print the grids of a spec's datasets (cells, cell size, region, check-ins read/kept/dropped, densest cell, places) without running anything; --counts writes one dataset's per-cell counts", cmdDataset},
		{"report", "[--out DIR] [--only NAME...]", "assemble DIR/REPORT.md and DIR/REPORT.html from the experiments' sections, claims and manifests (--only: of the experiments named, into DIR/REPORT-only.md and .html)", cmdReport},
		{"compare", "[--tol REL] COMMITTED FRESH", "compare the tables of every experiment under FRESH with those under COMMITTED, column by column, and warn about committed results made by other code than HEAD's", cmdCompare},
		{"help", "[COMMAND]", "show help", nil},
	}
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// cli runs one command line and returns the exit status. Every error is
// reported as one line on stderr; a panic anywhere becomes such a line.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer, kinds []harness.Kind) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "privic: internal error: %s\n", oneLine(fmt.Sprint(r)))
			status = 1
		}
	}()
	e := &env{stdout: stdout, stderr: stderr, kinds: kinds}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "--help" {
		return help(e, rest)
	}
	i := slices.IndexFunc(commands(), func(c command) bool { return c.name == name })
	if i < 0 {
		fmt.Fprintf(stderr, "privic: unknown command %q (commands: %s)\n", name, commandNames())
		return 2
	}
	c := commands()[i]
	err := c.run(ctx, e, rest)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		commandHelp(stdout, c)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "privic: %s: %s (see privic help %s)\n", c.name, oneLine(ue.msg), c.name)
		return 2
	case errors.Is(err, harness.ErrInterrupted):
		fmt.Fprintf(stderr, "privic: %s\n", oneLine(err.Error()))
		return 130
	default:
		fmt.Fprintf(stderr, "privic: %s\n", oneLine(err.Error()))
		return 1
	}
}

func help(e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			commandHelp(e.stdout, c)
			return 0
		}
	}
	fmt.Fprintf(e.stderr, "privic: help: unknown command %q (commands: %s)\n", args[0], commandNames())
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: privic COMMAND [ARGS]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "privic help COMMAND shows a command's flags. Specs and their keys: experiments/README.md.")
}

func commandHelp(w io.Writer, c command) {
	fmt.Fprintf(w, "usage: privic %s %s\n\n%s\n", c.name, c.args, c.summary)
	fs := flagsFor(c.name, io.Discard)
	if fs == nil {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		arg, text := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if arg != "" {
			name += " " + arg
		}
		if d := f.DefValue; d != "" && d != "false" && !strings.Contains(text, "default") {
			text += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(w, "  %-18s %s\n", name, text)
	})
}

func commandNames() string {
	var n []string
	for _, c := range commands() {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
