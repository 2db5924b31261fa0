package mechanisms

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"privic/harness/kinds/internal/param"
	"strings"
	"testing"

	"privic/harness"
	"privic/kernels"
	"privic/kernels/mechanism"
)

// mixture is a mechanism that exists only in this test: it reports the
// true cell with probability 1 - w + w/k and every cell uniformly
// otherwise, w = e^-eps, on the k cells of the grid.
type mixture struct{}

func (mixture) Info() mechanism.Info {
	return mechanism.Info{Name: "mixture", Param: "eps", Min: 1e-3, Max: 50, SameGrid: true, Reference: "a test mechanism"}
}

// Claim: the largest ratio is between the diagonal and an entry off it,
// (1 - w + w/k)/(w/k), at distance 1 (adjacent cells): exact.
func (mixture) Claim(in, out kernels.Grid, eps float64) mechanism.Claim {
	k, w := float64(in.Len()), math.Exp(-eps)
	e := math.Log((1 - w + w/k) / (w / k))
	return mechanism.Claim{Lo: e, Hi: e, Note: "diagonal against uniform"}
}

func (mixture) Channel(in, out kernels.Grid, _ []float64, eps float64) (*kernels.Channel, error) {
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, err
	}
	k, w := in.Len(), math.Exp(-eps)
	for x := range k {
		row := ch.Row(x)
		for y := range row {
			row[y] = w / float64(k)
		}
		row[x] += 1 - w
	}
	return ch, nil
}

// TestNewMechanismIsOneEntry: a mechanism that is a type and one line in a
// registry's table is accepted by the kind's validation, runs, and lands
// in the tables, with nothing else changed.
func TestNewMechanismIsOneEntry(t *testing.T) {
	entries := append(mechanism.Builtin(), mechanism.Entry{Name: "mixture", Param: "eps, the log-odds of the true cell",
		New: func(mechanism.Options) mechanism.Mechanism { return mixture{} }})
	reg, err := mechanism.NewRegistry(entries...)
	if err != nil {
		t.Fatal(err)
	}
	spec := "kind = \"mechanisms\"\n[params]\ncities = [\"paris\"]\nmechanisms = [\"mixture\", \"lap\"]\ncalibrations = [\"eps\"]\neps = [1]\n"
	withToy, err := harness.NewRegistry(WithRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	s, err := withToy.Parse("toy.toml", []byte(spec))
	if err != nil {
		t.Fatalf("the kind over the extended registry refuses the new mechanism: %v", err)
	}
	// The kind over the built-in registry does not know it.
	plain, _ := harness.NewRegistry(Kind())
	if _, err := plain.Parse("toy.toml", []byte(spec)); err == nil || !strings.Contains(err.Error(), "params.mechanisms[0]") {
		t.Errorf("built-in registry: %v, want an error naming params.mechanisms[0]", err)
	}

	// A tiny run: the mechanism calibrated to tight epsilon 1 on the toy
	// city, through the kind's Run and Finish.
	p := s.Params.(*params)
	p.Sims, p.Island.Radius = 1, 1 // A on the toy grid:
	p.A, p.aCells = map[string]param.Loc{"paris": param.CellOf(2, 1)}, map[string]param.Cell{"paris": {2, 1}}
	dir := t.TempDir()
	var fr, cb harness.Table
	for _, m := range p.Mechanisms {
		ts, err := def{reg}.Run(context.Background(), job{p: p, ds: toy(), mech: m, calibration: "eps", level: 1}, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		fr.Name, fr.Header, cb.Name, cb.Header = ts[0].Name, ts[0].Header, ts[1].Name, ts[1].Header
		fr.Rows, cb.Rows = append(fr.Rows, ts[0].Rows...), append(cb.Rows, ts[1].Rows...)
	}
	if st := col(t, cb, cb.Rows[0], "status"); st != "ok" {
		t.Fatalf("mixture: calibration status %q", st)
	}
	// Tight epsilon 1 on k = 20 cells: (1 - w + w/20)/(w/20) = e, so
	// w = 20/(e + 19) and the parameter is -ln w.
	if got, want := fcol(t, cb, cb.Rows[0], "parameter"), -math.Log(20/(math.E+19)); math.Abs(got-want) > 1e-5*want {
		t.Errorf("mixture at tight eps 1: parameter %v, want %v", got, want)
	}
	writeTables(t, dir, fr, cb)
	out, _ := harness.NewOutput(dir, nil)
	sec, err := def{reg}.Finish(context.Background(), p, out)
	if err != nil {
		t.Fatal(err)
	}
	mt, err := out.ReadTable("mechanisms")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(mt.Rows[0]); !strings.Contains(got, "mixture") || !strings.Contains(got, "a test mechanism") {
		t.Errorf("mechanisms.csv row %s lacks the new mechanism's name and reference", got)
	}
	if !strings.Contains(sec.Markdown, "| level | mixture | lap |") {
		t.Errorf("the section's table lacks the new mechanism:\n%s", sec.Markdown)
	}
}
