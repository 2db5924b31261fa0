package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"privic/harness"
	"privic/harness/kinds/scale"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == scale.ProbeCommand {
		// The hidden subcommand of the scale kind: one kernel measured in
		// this process, which the kind started.
		os.Exit(scale.ProbeMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(realMain(os.Args[1:], allKinds()))
}

// realMain wires the process to cli: Ctrl-C (or SIGTERM, as sent by
// cluster schedulers) cancels the run, which says which jobs it waits
// for, stores what is finished and exits with status 130; a second signal
// aborts at once (every stored file is complete: files are written to a
// temporary name and renamed).
func realMain(args []string, kinds []harness.Kind) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go onSignals(sigs, cancel, os.Stderr, func() { os.Exit(130) })
	return cli(ctx, args, os.Stdout, os.Stderr, kinds)
}

// onSignals cancels the run at the first signal and calls abort at the
// second.
func onSignals(sigs <-chan os.Signal, cancel func(), stderr io.Writer, abort func()) {
	s, ok := <-sigs
	if !ok {
		return
	}
	fmt.Fprintf(stderr, "privic: %v: stopping after the running jobs return (finished jobs stay stored; a second signal aborts at once)\n", s)
	cancel()
	if s, ok = <-sigs; !ok {
		return
	}
	fmt.Fprintf(stderr, "privic: %v again: aborting now; rerun the same command to resume from the stored jobs\n", s)
	abort()
}
