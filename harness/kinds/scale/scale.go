// Package scale is the experiment kind "scale": the time and the peak
// memory of each kernel (BA10, IBU10, EMD, EMDUniform, EMDTranspose,
// Obfuscate, TightEps, the workloads of the NumPy/POT peers) against the
// number of cells, on
// synthetic hotspot cities of side x side cells, with the slope of a
// log-log fit per kernel and the largest grid each kernel reaches within
// a time budget.
//
// Each job measures one kernel at one side in a process of its own: it
// re-executes the running privic binary with the hidden subcommand
// ProbeCommand and reads the child's peak resident memory from its
// resource usage, so that no other job or earlier allocation inflates
// it. A run that outlasts the budget is stopped and recorded as over
// budget; a kernel that declines a size (an error, such as a memory
// guard) is recorded as refused, with its reason. Test
// binaries, which cannot serve the subcommand, run the probe in their
// own process instead and record no memory.
package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"privic/harness"
	"privic/kernels"
	"privic/kernels/emd"
)

// Kind returns the scale kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

type params struct {
	// Kernels are the workloads measured (see Kernels).
	Kernels []string `toml:"kernels"`
	// Sides are the cities' sides: side x side cells each.
	Sides harness.Sweep `toml:"sides"`
	// BudgetSeconds is how long one run of a kernel may take; the largest
	// side whose run fits is what the kernel "reaches".
	BudgetSeconds float64 `toml:"budget_seconds"`
	// Repeats is the number of timed runs at most (the median is
	// reported), while another run still fits in the budget.
	Repeats int `toml:"repeats"`
	// FitMinCells is the smallest grid of the log-log fits: below it the
	// kernels take their direct paths and fixed costs dominate.
	FitMinCells int `toml:"fit_min_cells"`
	// HotspotsDir, when set, is a directory of hotspots-<side>.csv files
	// (the peer's cities, read with datasets.ReadHotspots) for the sides
	// that have one; the other sides, and every side when it is empty,
	// are drawn by datasets.Hotspots.
	HotspotsDir string `toml:"hotspots_dir"`
}

func (p *params) Validate() error {
	if len(p.Kernels) == 0 {
		return errors.New("params.kernels: give at least one of " + harness.QuoteJoin(Kernels()))
	}
	for i, k := range p.Kernels {
		if !slices.Contains(Kernels(), k) {
			return fmt.Errorf("params.kernels[%d] = %q: allowed values are %s", i, k, harness.QuoteJoin(Kernels()))
		}
		if slices.Index(p.Kernels, k) != i {
			return fmt.Errorf("params.kernels: %q given twice", k)
		}
	}
	if err := p.Sides.CheckCounts("params.sides", "side", 2, 1024, "sides must be integers in [2, 1024] (at most kernels.MaxCells cells)"); err != nil {
		return err
	}
	if err := harness.PositiveFinite("budget_seconds", p.BudgetSeconds); err != nil {
		return err
	}
	if p.BudgetSeconds > 3600 {
		return fmt.Errorf("params.budget_seconds = %v: at most 3600", p.BudgetSeconds)
	}
	if err := harness.IntIn("repeats", p.Repeats, 1, 100); err != nil {
		return err
	}
	return harness.IntIn("fit_min_cells", p.FitMinCells, 1, kernels.MaxCells)
}

type def struct{}

// job is one kernel at one side.
type job struct {
	p      *params
	kernel string
	side   int
}

func (def) About() harness.About {
	return harness.About{
		Name:     "scale",
		Describe: "time and peak memory of each kernel (BA10, IBU10, EMD, EMDUniform, EMDTranspose, Obfuscate, TightEps) against the number of cells, on synthetic hotspot cities, with log-log slopes and the largest grid each reaches in the time budget",
		Tables:   []string{"scale", "slopes"},
		Figures:  []string{"scale"},
		Skips:    true,
		Version:  "1",
		// One probe at a time: each owns the machine's cores, so that
		// its time and memory are its own.
		Exclusive: true,
		Volatile: func(...harness.TableSet) []harness.Exclusion {
			return []harness.Exclusion{{Table: "*", Why: "measurements of this machine: times, memory, load, and the grids reached within the time budget"}}
		},
	}
}

func (def) NewParams() *params {
	return &params{
		Kernels:       Kernels(),
		Sides:         harness.SweepOf(32, 64, 100, 128, 256, 512, 1024),
		BudgetSeconds: 60,
		Repeats:       3,
		FitMinCells:   4096,
	}
}

func (def) Plan(p *params) ([]harness.Work[job], error) {
	var jobs []harness.Work[job]
	for _, k := range p.Kernels {
		for _, s := range p.Sides.Values() {
			side := int(s)
			jobs = append(jobs, harness.Work[job]{Key: fmt.Sprintf("kernel=%s/side=%d", k, side), Job: job{p: p, kernel: k, side: side}})
		}
	}
	return jobs, nil
}

// EstimateBytes bounds the probe's memory (in its own process, but on
// this machine): the BA channel and its work space (kernels.BAMemory;
// not for the far EMD pairs), a few vectors of the grid, and for the
// EMDs the network simplex's costs
// between the surpluses and the deficits, which the solver caps at
// emd.MaxArcs arcs (it refuses larger problems before allocating them).
// Problems above emd.DenseArcs arcs go to the sparse solver, whose arcs
// grow as O(m k) for about k = 15 arcs per cell: emdSparseBytes per cell
// bounds what it held on the hotspot cities (peak resident memory less
// the 23 MiB a probe holds before its city: the near EMD 1.2 KiB per cell
// at 256 x 256, the far pairs 2.4 KiB). Measured (results/scale): BA10 at
// 1024 x 1024 555 MiB, this says 1.2 GiB.
func (def) EstimateBytes(j job) int64 {
	g := kernels.Grid{Rows: j.side, Cols: j.side}
	m := int64(g.Len())
	b := 8 * 8 * m
	if j.kernel != "EMDUniform" && j.kernel != "EMDTranspose" {
		b += kernels.BAMemory(g) // the far EMD pairs need no channel
	}
	if strings.HasPrefix(j.kernel, "EMD") {
		if arcs := (m / 2) * ((m + 1) / 2); arcs <= emd.DenseArcs {
			b += 2 * 8 * arcs
		} else {
			b += emdSparseBytes * m
		}
	}
	return b
}

// emdSparseBytes is the sparse EMD solver's allowance per cell.
const emdSparseBytes = 4096

// EstimateCost implements harness.CostEstimator (scheduling only): the
// larger grids first.
func (def) EstimateCost(j job) float64 { return float64(j.side) * float64(j.side) }

func (def) Run(ctx context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	p := j.p
	r := request{Kernel: j.kernel, Side: j.side, Budget: p.BudgetSeconds, Repeats: p.Repeats, Hotspots: hotspotsFile(p.HotspotsDir, j.side)}
	load := loadAverage()
	res, rss, how, err := runProbe(ctx, r)
	if err != nil {
		return nil, err
	}
	t := harness.NewTable("scale", "kernel", "side", "cells", "status", "runs", "median_seconds", "min_seconds",
		"setup_seconds", "peak_rss_bytes", "probe", "city", "load_average")
	med, fastest := "", ""
	if len(res.Seconds) > 0 {
		s := slices.Clone(res.Seconds)
		slices.Sort(s)
		med, fastest = harness.FormatFloat(median(s)), harness.FormatFloat(s[0])
	}
	rssCell := ""
	if rss > 0 {
		rssCell = fmt.Sprint(rss)
	}
	src := "drawn"
	if r.Hotspots != "" {
		src = "file"
	}
	t.Add(harness.Row{"kernel": j.kernel, "side": j.side, "cells": j.side * j.side, "status": res.Status, "runs": len(res.Seconds),
		"median_seconds": med, "min_seconds": fastest, "setup_seconds": res.SetupSeconds, "peak_rss_bytes": rssCell, "probe": how,
		"city": src, "load_average": load})
	return []harness.Table{*t}, nil
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// runProbe measures r in a child process (the running binary with
// ProbeCommand), or in this process when the binary is a test binary;
// how says which. rss is the child's peak resident memory in bytes (0
// when unknown).
func runProbe(ctx context.Context, r request) (res result, rss int64, how string, err error) {
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(exe, ".test") {
		return probe(r, nil), 0, "in-process", nil
	}
	res, rss, err = execProbe(ctx, exe, r)
	return res, rss, "process", err
}

// execProbe runs r in a child process of exe, which must serve
// ProbeCommand as its first argument. The child is killed when ctx ends
// or, as a last resort, well after its own budget (set-up included).
func execProbe(ctx context.Context, exe string, r request) (result, int64, error) {
	limit := time.Duration((3*r.Budget + 600) * float64(time.Second))
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe, append([]string{ProbeCommand}, r.args()...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return result{}, 0, err
	}
	rss := maxRSS(cmd.ProcessState)
	var res result
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &res); err != nil || res.Status == "" {
		// No result: the child died (out of memory, killed at the limit).
		why := oneLine(strings.TrimSpace(stderr.String()))
		if cctx.Err() != nil {
			why = fmt.Sprintf("no result within %s s", fmtSeconds(limit.Seconds()))
		} else if runErr != nil {
			why = strings.TrimSpace(runErr.Error() + ": " + why)
		}
		return result{Status: "failed: " + why}, rss, nil
	}
	return res, rss, nil
}

// loadAverage is the machine's load average over the last minute when
// the probe starts ("" where /proc/loadavg does not exist): other
// processes competing for the cores slow the kernels down.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fmtSeconds prints seconds with up to 3 significant digits.
func fmtSeconds(s float64) string { return harness.FormatSig(s, 3) }
