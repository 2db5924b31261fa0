package scale

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"privic/datasets"
	"privic/kernels"
)

// ProbeCommand is the hidden subcommand of the privic binary that runs one
// probe in a process of its own (see ProbeMain); the kind re-executes the
// binary with it, so that the child's peak resident memory is the
// kernel's alone.
const ProbeCommand = "scale-probe"

// Kernels are the workloads of the scale kind, those of the NumPy/POT
// peer and of kernels' BenchmarkScale:
//
//	BA10       10 BA iterations from uniform at beta = 1 on the city's prior
//	IBU10      10 IBU iterations from uniform on that channel's report
//	           distribution q = prior C (the factorised IBU)
//	EMD        the exact EMD between the prior and the IBU10 estimate
//	EMDUniform    the exact EMD from the uniform distribution to the
//	           prior (PRIVIC's cycle 0)
//	EMDTranspose  the exact EMD from the prior to its reflection on the
//	           diagonal (both kernels.EMDPair: the peer's far pairs,
//	           whose mass travels across the city)
//	Obfuscate  every check-in through the BA channel (one exact
//	           multinomial per occupied cell), then the empirical report
//	           distribution
//	TightEps   the tight epsilon of the BA channel
//
// Everything a workload needs before it (the city, the BA channel, its
// report distribution, the IBU estimate) is set-up, timed apart.
func Kernels() []string {
	return []string{"BA10", "IBU10", "EMD", "EMDUniform", "EMDTranspose", "Obfuscate", "TightEps"}
}

// request is what one probe measures.
type request struct {
	Kernel   string
	Side     int
	Budget   float64 // seconds a run may take
	Repeats  int     // runs at most, while they fit in the budget
	Hotspots string  // a hotspots-<side>.csv file, or "" to draw the city
}

// result is what a probe reports.
type result struct {
	// Status is "ok", "refused: <the kernel's error>" or "over budget:
	// ...".
	Status       string
	Seconds      []float64 // one per run (status ok)
	SetupSeconds float64
}

func (r request) args() []string {
	a := []string{"-kernel", r.Kernel, "-side", fmt.Sprint(r.Side), "-budget", fmt.Sprint(r.Budget), "-repeats", fmt.Sprint(r.Repeats)}
	if r.Hotspots != "" {
		a = append(a, "-hotspots", r.Hotspots)
	}
	return a
}

// ProbeMain is the hidden subcommand ProbeCommand: it runs the workload
// of one kernel on one hotspot city and writes the result as one JSON
// line to stdout. A run that outlasts the budget ends the process at
// once (status "over budget"), whatever the kernel was doing. The exit
// status is 2 for bad arguments, 0 otherwise (the outcome is in the
// JSON).
func ProbeMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(ProbeCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r request
	fs.StringVar(&r.Kernel, "kernel", "", "workload: "+fmt.Sprint(Kernels()))
	fs.IntVar(&r.Side, "side", 0, "the city is side x side cells")
	fs.Float64Var(&r.Budget, "budget", 60, "seconds a run may take")
	fs.IntVar(&r.Repeats, "repeats", 1, "runs at most")
	fs.StringVar(&r.Hotspots, "hotspots", "", "hotspots-<side>.csv to read (default: draw the city)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !slices.Contains(Kernels(), r.Kernel) || r.Side < 1 || !(r.Budget > 0) || r.Repeats < 1 {
		fmt.Fprintf(stderr, "privic %s: want -kernel in %v, -side >= 1, -budget > 0, -repeats >= 1\n", ProbeCommand, Kernels())
		return 2
	}
	enc := json.NewEncoder(stdout)
	over := func() {
		enc.Encode(result{Status: fmt.Sprintf("over budget: a run took more than %s s", fmtSeconds(r.Budget))})
		os.Exit(0)
	}
	res := probe(r, over)
	if err := enc.Encode(res); err != nil {
		fmt.Fprintf(stderr, "privic %s: %v\n", ProbeCommand, err)
		return 1
	}
	return 0
}

// probe sets up and times r's workload. over, when not nil, is called
// (from another goroutine) if the first run outlasts the budget; without
// it a run over budget finishes and is reported so.
func probe(r request, over func()) result {
	t0 := time.Now()
	w, err := setup(r)
	if err != nil {
		return result{Status: "refused: " + oneLine(err.Error())}
	}
	res := result{Status: "ok", SetupSeconds: time.Since(t0).Seconds()}
	budget := time.Duration(r.Budget * float64(time.Second))
	total := time.Duration(0)
	for i := 0; i < r.Repeats; i++ {
		var timer *time.Timer
		if i == 0 && over != nil {
			timer = time.AfterFunc(budget, over)
		}
		t := time.Now()
		err := w()
		d := time.Since(t)
		if timer != nil {
			timer.Stop()
		}
		if err != nil {
			return result{Status: "refused: " + oneLine(err.Error()), SetupSeconds: res.SetupSeconds}
		}
		if d > budget {
			return result{Status: fmt.Sprintf("over budget: a run took %s s, more than %s s", fmtSeconds(d.Seconds()), fmtSeconds(r.Budget)),
				SetupSeconds: res.SetupSeconds}
		}
		res.Seconds = append(res.Seconds, d.Seconds())
		total += d
		if total+d > budget {
			break // another run would not fit
		}
	}
	return res
}

// city returns the hotspot city of r: the file when given, else
// datasets.Hotspots.
func city(r request) (*datasets.Dataset, error) {
	if r.Hotspots != "" {
		return datasets.ReadHotspots(r.Hotspots, r.Side)
	}
	return datasets.Hotspots(r.Side)
}

// hotspotsFile is dir/hotspots-<side>.csv when dir is set and the file
// exists, else "" (the city is drawn).
func hotspotsFile(dir string, side int) string {
	if dir == "" {
		return ""
	}
	p := filepath.Join(os.ExpandEnv(dir), fmt.Sprintf("hotspots-%d.csv", side))
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// setup prepares r's workload and returns one run of it.
func setup(r request) (func() error, error) {
	ds, err := city(r)
	if err != nil {
		return nil, err
	}
	g, counts, prior := ds.Grid, ds.Counts, ds.Prior()
	if pair, ok := strings.CutPrefix(r.Kernel, "EMD"); ok && pair != "" {
		p, q, err := kernels.EMDPair(g, counts, strings.ToLower(pair))
		if err != nil {
			return nil, err
		}
		return func() error {
			_, err := kernels.EMD(g, p, g, q)
			return err
		}, nil
	}
	ba10 := kernels.BAConfig{Beta: 1, Iterations: 10}
	if r.Kernel == "BA10" {
		return func() error {
			_, err := kernels.BA(g, prior, ba10)
			return err
		}, nil
	}
	ba, err := kernels.BA(g, prior, ba10)
	if err != nil {
		return nil, err
	}
	switch r.Kernel {
	case "IBU10", "EMD":
		q, err := kernels.Marginal(prior, ba)
		if err != nil {
			return nil, err
		}
		var ws kernels.IBUWorkspace
		dst := make([]float64, g.Len())
		fac := ba.Factorised() // the factorised form at every side
		ibu := func() error {
			_, _, err := ws.IBU(dst, fac, q, nil, kernels.IBUConfig{Iterations: 10})
			return err
		}
		if r.Kernel == "IBU10" {
			return ibu, nil
		}
		if err := ibu(); err != nil {
			return nil, err
		}
		return func() error {
			_, err := kernels.EMD(g, prior, g, dst)
			return err
		}, nil
	case "Obfuscate":
		rng := rand.New(rand.NewPCG(1, 2))
		q := make([]float64, g.Len())
		return func() error {
			rep, err := kernels.Obfuscate(rng, counts, ba)
			if err != nil {
				return err
			}
			n := 0
			for _, v := range rep {
				n += v
			}
			for y, v := range rep {
				q[y] = float64(v) / float64(n)
			}
			return nil
		}, nil
	case "TightEps":
		return func() error {
			_, err := ba.TightEpsilon()
			return err
		}, nil
	}
	return nil, fmt.Errorf("unknown kernel %q", r.Kernel)
}
