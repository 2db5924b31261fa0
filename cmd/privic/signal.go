package main

import (
	"context"
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
// cluster schedulers) cancels the run, which stores what is finished
// and exits with status 130; a second Ctrl-C kills at once.
func realMain(args []string, kinds []harness.Kind) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return cli(ctx, args, os.Stdout, os.Stderr, kinds)
}
