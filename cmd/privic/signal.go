package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"privic/harness"
)

func main() {
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
