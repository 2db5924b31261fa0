package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain serves ProbeCommand when execProbe re-executes this test
// binary, as the privic binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ProbeCommand {
		os.Exit(ProbeMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// A probe in a process of its own reports its runs and the child's peak
// memory, which holds at least the city's prior and the BA channel.
func TestExecProbe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("SKIPPING: no executable path: %v", err)
	}
	res, rss, err := execProbe(context.Background(), exe, request{Kernel: "IBU10", Side: 40, Budget: 60, Repeats: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "ok" || len(res.Seconds) < 1 || !(res.Seconds[0] > 0) {
		t.Fatalf("result %+v", res)
	}
	if maxRSS(nil) == 0 && rss == 0 {
		t.Skip("SKIPPING the memory check: no resource usage on this system")
	}
	if rss < 1<<20 {
		t.Errorf("peak RSS %d bytes", rss)
	}
}

// The probe's outcomes: refused with the reason (here a city file that
// does not parse), over budget, and bad arguments.
func TestProbeOutcomes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "hotspots-8.csv")
	if err := os.WriteFile(bad, []byte("row,col,count\n0,0,many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := probe(request{Kernel: "EMD", Side: 8, Budget: 60, Repeats: 1, Hotspots: bad}, nil)
	if !strings.HasPrefix(r.Status, "refused: ") || !strings.Contains(r.Status, "hotspots-8.csv") || len(r.Seconds) != 0 {
		t.Errorf("EMD on a bad city file: %+v", r)
	}
	r = probe(request{Kernel: "BA10", Side: 64, Budget: 1e-9, Repeats: 3}, nil)
	if !strings.HasPrefix(r.Status, "over budget: ") || len(r.Seconds) != 0 {
		t.Errorf("BA10 with no budget: %+v", r)
	}
	for _, k := range []string{"EMDUniform", "EMDTranspose"} {
		if r = probe(request{Kernel: k, Side: 12, Budget: 60, Repeats: 2}, nil); r.Status != "ok" || len(r.Seconds) != 2 {
			t.Errorf("%s at 12: %+v", k, r)
		}
	}
	r = probe(request{Kernel: "Obfuscate", Side: 20, Budget: 60, Repeats: 3}, nil)
	if r.Status != "ok" || len(r.Seconds) != 3 {
		t.Errorf("Obfuscate at 20: %+v", r)
	}
	var out, errb bytes.Buffer
	if st := ProbeMain([]string{"-kernel", "BA11", "-side", "8"}, &out, &errb); st != 2 || !strings.Contains(errb.String(), "BA10") {
		t.Errorf("bad kernel: status %d, %q", st, errb.String())
	}
	out.Reset()
	if st := ProbeMain([]string{"-kernel", "TightEps", "-side", "12", "-repeats", "2"}, &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	var res result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Status != "ok" || len(res.Seconds) != 2 {
		t.Errorf("%q: %+v %v", out.String(), res, err)
	}
}

// The fits: slopes of exact power laws, the largest side reached and the
// first side beyond it that was not.
func TestFitAll(t *testing.T) {
	p := &params{Kernels: []string{"A", "B"}, FitMinCells: 100}
	var pts []point
	for _, side := range []int{8, 16, 32, 64} {
		c := float64(side * side)
		pts = append(pts, point{kernel: "A", side: side, cells: side * side, status: "ok", seconds: 1e-6 * c * c, rss: 1e6 + 0*c})
		st, sec := "ok", 3e-5*math.Pow(c, 1.5)
		if side == 64 {
			st, sec = "over budget: a run took more than 60 s", math.NaN()
		}
		pts = append(pts, point{kernel: "B", side: side, cells: side * side, status: st, seconds: sec, rss: 40 * c})
	}
	fits := fitAll(p, pts)
	if f := fits[0]; math.Abs(f.timeSlope-2) > 1e-12 || math.Abs(f.memSlope) > 1e-12 || f.n != 3 || f.largestSide != 64 || f.beyondSide != 0 {
		t.Errorf("A: %+v", f)
	}
	if f := fits[1]; math.Abs(f.timeSlope-1.5) > 1e-12 || math.Abs(f.memSlope-1) > 1e-12 || f.n != 2 || f.largestSide != 32 ||
		f.beyondSide != 64 || !strings.HasPrefix(f.beyondStatus, "over budget") {
		t.Errorf("B: %+v", f)
	}
	if !math.IsNaN(slope([]float64{1}, []float64{2})) {
		t.Error("slope of one point")
	}
}
