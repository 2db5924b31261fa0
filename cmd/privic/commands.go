package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"

	"privic/harness"
	"privic/harness/kinds"
	"privic/harness/report"
)

// flagsFor returns the flag set of a command with fresh storage (for
// help output); nil if the command takes no flags.
func flagsFor(name string, out io.Writer) *flag.FlagSet {
	var fs *flag.FlagSet
	switch name {
	case "run":
		fs = (&runFlags{}).set()
	case "validate":
		fs = (&validateFlags{}).set()
	case "list":
		fs = (&listFlags{}).set()
	case "merge":
		fs = (&mergeFlags{}).set()
	case "dataset":
		fs = (&datasetFlags{}).set()
	case "compare":
		fs = newFlagSet("compare")
		fs.Float64("tol", harness.DefaultTolerance, "largest relative difference `REL` of two numbers taken as equal")
	default:
		return nil
	}
	fs.SetOutput(out)
	return fs
}

type runFlags struct {
	jobs       int
	quiet      bool
	out        string
	force      bool
	shard      string
	memLimit   string
	cpuprofile string
	memprofile string
	summary    bool
	history    string
}

func (f *runFlags) set() *flag.FlagSet {
	fs := newFlagSet("run")
	fs.IntVar(&f.jobs, "j", runtime.NumCPU(), "run `N` jobs at once (default: the number of CPUs)")
	fs.BoolVar(&f.quiet, "q", false, "quiet: no progress bar or info lines")
	fs.StringVar(&f.out, "out", "results", "write results/<name>/ under `DIR`")
	fs.BoolVar(&f.force, "force", false, "recompute jobs whose stored results are current")
	fs.StringVar(&f.shard, "shard", "", "run only shard `i/n` (0 <= i < n) of every spec; join shards with privic merge")
	fs.StringVar(&f.memLimit, "mem-limit", "", "refuse jobs estimated above `SIZE` (e.g. 8GiB; off: no limit; default: half the machine's memory)")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile to `FILE` (open with go tool pprof)")
	fs.StringVar(&f.memprofile, "memprofile", "", "write an allocation profile to `FILE` at the end")
	fs.BoolVar(&f.summary, "summary", false, "end with a table of every spec: wall time, jobs, peak resident memory")
	fs.StringVar(&f.history, "history", "", "order jobs longest first by the job times recorded under `DIR` (default: --out)")
	return fs
}

type validateFlags struct{ memLimit string }

func (f *validateFlags) set() *flag.FlagSet {
	fs := newFlagSet("validate")
	fs.StringVar(&f.memLimit, "mem-limit", "", "memory limit to check estimates against (as for run)")
	return fs
}

type listFlags struct{ dir, specsOf string }

func (f *listFlags) set() *flag.FlagSet {
	fs := newFlagSet("list")
	fs.StringVar(&f.dir, "dir", "experiments", "list the specs in `DIR`")
	fs.StringVar(&f.specsOf, "specs-of", "", "print only the spec file of every experiment under `RESULTS` (from its manifest), one per line")
	return fs
}

type mergeFlags struct {
	out   string
	jobs  int
	quiet bool
}

func (f *mergeFlags) set() *flag.FlagSet {
	fs := newFlagSet("merge")
	fs.StringVar(&f.out, "out", "results", "write the merged results/<name>/ under `DIR`")
	fs.IntVar(&f.jobs, "j", runtime.NumCPU(), "parallelism recorded in the manifest (`N`)")
	fs.BoolVar(&f.quiet, "q", false, "quiet: no info lines")
	return fs
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses flags wherever they appear among the arguments
// (`privic run spec.toml -j 2` works); arguments after "--" are never
// flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// operands parses args with fs and returns the operands, at least one
// (what names them in the usage error).
func operands(fs *flag.FlagSet, args []string, what string) ([]string, error) {
	ops, err := parseArgs(fs, args)
	if err == nil && len(ops) == 0 {
		err = usagef("no %s given", what)
	}
	return ops, err
}

// jobOperands is operands for the commands that take -j, which it checks
// (after parsing fills jobs).
func jobOperands(fs *flag.FlagSet, args []string, what string, jobs *int) ([]string, error) {
	ops, err := operands(fs, args, what)
	if err == nil && *jobs < 1 {
		err = usagef("-j %d: want at least 1", *jobs)
	}
	return ops, err
}

func memLimit(s string) (int64, error) {
	if s == "" {
		return 0, nil // harness default: half the machine's memory
	}
	b, err := harness.ParseBytes(s)
	if err != nil {
		return 0, usagef("--mem-limit: %v", err)
	}
	if b == 0 {
		return -1, nil
	}
	return b, nil
}

func logWriter(e *env, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return e.stderr
}

func loadSpecs(reg *harness.Registry, paths []string) ([]*harness.Spec, error) {
	var specs []*harness.Spec
	for _, p := range paths {
		s, err := reg.Load(p)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

func cmdRun(ctx context.Context, e *env, args []string) error {
	var f runFlags
	paths, err := jobOperands(f.set(), args, "spec", &f.jobs)
	if err != nil {
		return err
	}
	opt := harness.RunOptions{Out: f.out, Jobs: f.jobs, Force: f.force, Log: logWriter(e, f.quiet), Stopping: e.stderr, Summary: f.summary, History: f.history}
	if f.shard != "" {
		if opt.Shard, err = harness.ParseShard(f.shard); err != nil {
			return usagef("--shard: %v", err)
		}
	}
	if opt.MemLimit, err = memLimit(f.memLimit); err != nil {
		return err
	}
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return err
	}
	specs, err := loadSpecs(reg, paths)
	if err != nil {
		return err
	}
	if _, err := harness.Check(specs, opt); err != nil {
		return err
	}
	stop, err := startProfiles(f.cpuprofile, f.memprofile)
	if err != nil {
		return err
	}
	_, runErr := harness.Run(ctx, specs, opt)
	if err := stop(); err != nil && runErr == nil {
		return err
	}
	if runErr == nil && opt.Log != nil {
		for _, p := range []string{f.cpuprofile, f.memprofile} {
			if p != "" {
				fmt.Fprintf(opt.Log, "profile written: %s (go tool pprof -http=localhost:8080 %s)\n", p, p)
			}
		}
	}
	return runErr
}

// startProfiles starts the CPU profile and returns a function that stops
// it and writes the allocation profile.
func startProfiles(cpu, mem string) (stop func() error, err error) {
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		var first error
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				first = fmt.Errorf("--cpuprofile: %w", err)
			}
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err != nil {
				return fmt.Errorf("--memprofile: %w", err)
			}
			runtime.GC()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil && first == nil {
				first = fmt.Errorf("--memprofile: %w", err)
			}
			if err := f.Close(); err != nil && first == nil {
				first = fmt.Errorf("--memprofile: %w", err)
			}
		}
		return first
	}, nil
}

func cmdValidate(ctx context.Context, e *env, args []string) error {
	var f validateFlags
	paths, err := operands(f.set(), args, "spec")
	if err != nil {
		return err
	}
	limit, err := memLimit(f.memLimit)
	if err != nil {
		return err
	}
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return err
	}
	// Check every spec and report each bad one, so one call finds all
	// problems; the last error is returned for the exit status.
	var last error
	for _, p := range paths {
		s, err := reg.Load(p)
		var checked []harness.Checked
		if err == nil {
			checked, err = harness.Check([]*harness.Spec{s}, harness.RunOptions{MemLimit: limit})
		}
		if err != nil {
			if last != nil {
				fmt.Fprintf(e.stderr, "privic: %s\n", oneLine(last.Error()))
			}
			last = err
			continue
		}
		c := checked[0]
		mem := ""
		if c.MaxBytes > 0 {
			mem = ", largest job about " + harness.FormatBytes(c.MaxBytes)
		}
		fmt.Fprintf(e.stdout, "%s: ok: kind %s, %d jobs%s -> results/%s/ (spec hash %.12s)\n", p, s.Kind.Name(), c.Jobs, mem, s.Name, s.Hash)
		for _, l := range c.Limits {
			fmt.Fprintf(e.stdout, "  by size: %s\n", l)
		}
	}
	return last
}

func cmdList(ctx context.Context, e *env, args []string) error {
	var f listFlags
	rest, err := parseArgs(f.set(), args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if f.specsOf != "" {
		return specsOf(e, f.specsOf)
	}
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "Experiment kinds (their keys: experiments/README.md):")
	for _, k := range reg.Kinds() {
		fmt.Fprintf(tw, "  %s\t%s\n", k.Name(), k.Describe())
		if out := k.Outputs(); len(out) > 0 {
			fmt.Fprintf(tw, "  \twrites %s\n", strings.Join(out, ", "))
		}
	}
	tw.Flush()
	paths, _ := filepath.Glob(filepath.Join(f.dir, "*.toml"))
	if len(paths) == 0 {
		fmt.Fprintf(e.stdout, "\nNo specs in %s/.\n", f.dir)
		return nil
	}
	fmt.Fprintf(e.stdout, "\nSpecs in %s/ (privic run SPEC writes results/<name>/):\n", f.dir)
	tw = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, p := range paths {
		s, err := reg.Load(p)
		var checked []harness.Checked
		if err == nil {
			checked, err = harness.Check([]*harness.Spec{s}, harness.RunOptions{MemLimit: -1})
		}
		if err != nil {
			fmt.Fprintf(tw, "  %s\tINVALID: %s\n", p, oneLine(strings.TrimPrefix(err.Error(), p+": ")))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s -> results/%s/\t%d jobs\t%s\n", p, s.Kind.Name(), s.Name, checked[0].Jobs, s.Description)
	}
	return tw.Flush()
}

func cmdMerge(ctx context.Context, e *env, args []string) error {
	var f mergeFlags
	dirs, err := jobOperands(f.set(), args, "shard directory", &f.jobs)
	if err != nil {
		return err
	}
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return err
	}
	_, err = harness.Merge(ctx, reg, dirs, harness.RunOptions{Out: f.out, Jobs: f.jobs, Log: logWriter(e, f.quiet)})
	return err
}

// cmdReport assembles DIR/REPORT.md and DIR/REPORT.html from the
// sections, claims and manifests that the experiments wrote under DIR, in
// the order of the registered kinds; with --only, the report of the
// experiments named as arguments, as DIR/REPORT-only.md and .html.
func cmdReport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("report")
	out := fs.String("out", "results", "assemble the report of the experiments under `DIR`")
	chosen := fs.Bool("only", false, "report only the experiments named as arguments (privic report --only NAME...), in "+
		onlyMarkdown+" and "+onlyHTML+" beside the full report")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	opt := report.Options{Kinds: kinds.Names(e.kinds)}
	switch {
	case *chosen && len(rest) == 0:
		return usagef("report --only: name the experiments to report (directories under %s)", *out)
	case *chosen:
		opt.Only, opt.Markdown, opt.HTML = rest, onlyMarkdown, onlyHTML
	case len(rest) > 0:
		return usagef("report takes no arguments, got %q (to report some experiments: report --only NAME...)", rest)
	}
	if err := report.WriteWith(*out, opt); err != nil {
		return err
	}
	md, page := cmp.Or(opt.Markdown, report.MarkdownFile), cmp.Or(opt.HTML, report.HTMLFile)
	fmt.Fprintf(e.stdout, "report: %s and %s\n", filepath.Join(*out, md), filepath.Join(*out, page))
	warnStale(ctx, e, *out, opt.Only)
	return nil
}

// The files of a report of chosen experiments (report --only), which
// leave the full report alone.
const (
	onlyMarkdown = "REPORT-only.md"
	onlyHTML     = "REPORT-only.html"
)

// warnStale prints, on stderr, a warning for every experiment under root
// (of those named in only, when not empty) whose result was made by code
// other than HEAD's.
func warnStale(ctx context.Context, e *env, root string, only []string) {
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return
	}
	names, err := experimentDirs(root)
	if err != nil {
		return
	}
	prov := provenance(ctx)
	if prov == nil {
		fmt.Fprintf(e.stderr, "privic: report: cannot tell whether the results come from the code at HEAD: not in a git checkout\n")
		return
	}
	n := 0
	for _, name := range names {
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		for _, w := range staleness(ctx, prov, reg, filepath.Join(root, name)) {
			fmt.Fprintf(e.stderr, "privic: warning: %s: %s\n", filepath.Join(root, name), w)
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(e.stderr, "privic: %d warnings: regenerate with ./run.sh all (and compare with ./run.sh all --check)\n", n)
	}
}
