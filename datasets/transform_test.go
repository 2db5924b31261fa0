package datasets

import (
	"math"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/gonum/floats"

	"privic/kernels"
)

func parisPrior(t *testing.T) (kernels.Grid, []float64) {
	t.Helper()
	d, err := Load("paris", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Grid, d.Prior()
}

// parisPlace is the Paris preset's place name.
func parisPlace(t *testing.T, name string) Place {
	t.Helper()
	c, err := Lookup("paris")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Place(name)
	if !ok {
		t.Fatalf("the Paris preset has no place %s", name)
	}
	return p
}

// uniformPrior is the prior giving every cell of g the same mass.
func uniformPrior(g kernels.Grid) []float64 {
	p := make([]float64, g.Len())
	for i := range p {
		p[i] = 1 / float64(g.Len())
	}
	return p
}

// total is the sum of p's entries.
func total(p []float64) float64 { return floats.Sum(p) }

// inRefBlock is the reference code's block, written out by hand: rows
// 4-8, cols 1-5.
func inRefBlock(r, c int) bool { return r >= 4 && r <= 8 && c >= 1 && c <= 5 }

func TestIslandReference(t *testing.T) {
	g, prior := parisPrior(t)
	a, b := parisPlace(t, "A"), parisPlace(t, "B")
	// The paper's A and B are cells 93 and 52 of the row-major 11 x 15 grid.
	if g.Index(a.Row, a.Col) != 93 || g.Index(b.Row, b.Col) != 52 {
		t.Fatalf("A, B at %d, %d; the paper's are 93, 52", g.Index(a.Row, a.Col), g.Index(b.Row, b.Col))
	}
	out, err := Island(g, prior, ReferenceIsland(a))
	if err != nil {
		t.Fatal(err)
	}
	if out[93] != 0.01 {
		t.Errorf("A = %v, want exactly 0.01", out[93])
	}
	if s := total(out); math.Abs(s-total(prior)) > 1e-12 {
		t.Errorf("total %v, prior total %v", s, total(prior))
	}
	blockMass := 0.0
	for i := range prior {
		if r, c := g.Cell(i); inRefBlock(r, c) {
			blockMass += prior[i]
		}
	}
	scale := 0.99 / (1 - blockMass)
	for i, v := range out {
		r, c := g.Cell(i)
		switch {
		case i == 93:
		case inRefBlock(r, c):
			if v != 0 {
				t.Errorf("block cell (%d,%d) = %v, want 0", r, c, v)
			}
		default:
			if math.Abs(v-prior[i]*scale) > 1e-15 {
				t.Errorf("cell (%d,%d) = %v, want %v * %v", r, c, v, prior[i], scale)
			}
		}
	}
	// The documented figures (doc.go): 1,387 check-ins in the block.
	if math.Abs(blockMass-1387.0/10078) > 1e-15 {
		t.Errorf("block mass %v, doc.go says 1387/10078", blockMass)
	}
}

func TestIslandMove(t *testing.T) {
	g, prior := parisPrior(t)
	out, err := Island(g, prior, PaperIsland(parisPlace(t, "A")))
	if err != nil {
		t.Fatal(err)
	}
	moved := 0.0
	for i, v := range out {
		r, c := g.Cell(i)
		switch {
		case i == 93:
		case inRefBlock(r, c):
			moved += prior[i]
			if v != 0 {
				t.Errorf("block cell (%d,%d) = %v, want 0", r, c, v)
			}
		default:
			if v != prior[i] {
				t.Errorf("cell (%d,%d) changed from %v to %v", r, c, prior[i], v)
			}
		}
	}
	if math.Abs(out[93]-(prior[93]+moved)) > 1e-15 {
		t.Errorf("A = %v, want its own %v plus the block's %v", out[93], prior[93], moved)
	}
	if s := total(out); math.Abs(s-total(prior)) > 1e-12 {
		t.Errorf("total %v, prior total %v", s, total(prior))
	}
	// Radius 2 and the explicit block are the same island.
	opt := PaperIsland(parisPlace(t, "A"))
	opt.Block = &Block{Row0: 4, Row1: 8, Col0: 1, Col1: 5}
	opt.Radius = 0
	out2, err := Island(g, prior, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if out[i] != out2[i] {
			t.Fatalf("radius 2 and block rows 4-8, cols 1-5 differ at %d", i)
		}
	}
}

func TestIslandEdges(t *testing.T) {
	g := kernels.Grid{Rows: 4, Cols: 5}
	prior := uniformPrior(g)
	// Radius 2 at the corner is clipped to the 3 x 3 block.
	out, err := Island(g, prior, IslandOptions{Row: 0, Col: 0, Radius: 2, Mode: MoveMass})
	if err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for _, v := range out {
		if v == 0 {
			zeros++
		}
	}
	if zeros != 8 || math.Abs(out[0]-9.0/20) > 1e-15 {
		t.Errorf("corner island: %d zeros, A = %v; want 8 and 9/20", zeros, out[0])
	}
	// Set mode with any mass in [0, 1].
	for _, m := range []float64{0, 0.3, 1} {
		out, err := Island(g, prior, IslandOptions{Row: 3, Col: 4, Radius: 1, Mode: SetMass, Mass: m})
		if err != nil {
			t.Fatal(err)
		}
		if out[g.Index(3, 4)] != m || math.Abs(total(out)-1) > 1e-12 {
			t.Errorf("mass %v: A = %v, total %v", m, out[g.Index(3, 4)], total(out))
		}
	}
	notDist := append([]float64(nil), prior...)
	notDist[0] += 0.1
	bad := []struct {
		o     IslandOptions
		prior []float64
		want  string
	}{
		{IslandOptions{Row: 4, Col: 0, Mode: MoveMass}, prior, "island: A = (4,0) is not a cell of the 4x5 grid"},
		{IslandOptions{Row: 0, Col: -1, Mode: MoveMass}, prior, "island: A = (0,-1) is not a cell of the 4x5 grid"},
		{IslandOptions{Row: 0, Col: 5, Mode: MoveMass}, prior, "island: A = (0,5) is not a cell of the 4x5 grid"},
		{IslandOptions{Row: 0, Col: 0, Radius: -1, Mode: MoveMass}, prior, "island: radius = -1: want >= 0"},
		{IslandOptions{Row: 0, Col: 0, Block: &Block{Row0: 2, Row1: 1, Col0: 0, Col1: 0}}, prior, "island: block rows 2-1, cols 0-0 is not a non-empty rectangle of the 4x5 grid"},
		{IslandOptions{Row: 0, Col: 0, Block: &Block{Row0: 0, Row1: 4, Col0: 0, Col1: 0}}, prior, "island: block rows 0-4, cols 0-0 is not a non-empty rectangle of the 4x5 grid"},
		{IslandOptions{Row: 0, Col: 0, Mode: SetMass, Mass: 1.5}, prior, "island: mass = 1.5: want a value in [0, 1"},
		{IslandOptions{Row: 0, Col: 0, Mode: SetMass, Mass: math.NaN()}, prior, "island: mass = NaN: want a value in [0, 1"},
		{IslandOptions{Row: 0, Col: 0, Radius: 9, Mode: SetMass, Mass: 0.5}, prior, "island: no mass outside the block to rescale to 0.5"},
		{IslandOptions{Row: 0, Col: 0, Block: &Block{Row0: 0, Row1: 0, Col0: 0, Col1: 5}}, prior, "island: block rows 0-0, cols 0-5 is not a non-empty rectangle of the 4x5 grid"},
		{IslandOptions{Row: 0, Col: 0, Mode: 5}, prior, "island: mode IslandMode(5): want move or set"},
		{PaperIsland(parisPlace(t, "A")), prior[:3], "island: prior has 3 entries, want 20"},
		{IslandOptions{Mode: MoveMass}, notDist, "island: prior sums to 1.1"},
	}
	for _, tc := range bad {
		if _, err := Island(g, tc.prior, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Island(%+v): error %v, want one saying %q", tc.o, err, tc.want)
		}
	}
}

func TestInject(t *testing.T) {
	g, prior := parisPrior(t)
	island, _ := Island(g, prior, ReferenceIsland(parisPlace(t, "A")))
	// The reference code's adversarial fractions, and f = 1.
	for _, f := range []float64{0, 0.05, 0.10, 0.15, 0.20, 0.24, 0.29, 0.34, 0.38, 1} {
		out, err := Inject(island, 93, f)
		if err != nil {
			t.Fatal(err)
		}
		if s := total(out); math.Abs(s-1) > 1e-12 {
			t.Errorf("f = %v: total %v", f, s)
		}
		if want := (1-f)*island[93] + f; out[93] != want {
			t.Errorf("f = %v: A = %v, want (1-f)*%v + f = %v", f, out[93], island[93], want)
		}
		for i, v := range out {
			if i != 93 && v != (1-f)*island[i] {
				t.Fatalf("f = %v: cell %d = %v, want (1-f)*%v", f, i, v, island[i])
			}
		}
	}
	for _, c := range []struct {
		cell int
		f    float64
		want string
	}{
		{-1, 0.1, "inject: cell -1 is not one of the 165 cells"},
		{165, 0.1, "inject: cell 165 is not one of the 165 cells"},
		{0, -0.1, "inject: fraction -0.1: want a value in [0, 1]"},
		{0, 1.1, "inject: fraction 1.1: want a value in [0, 1]"},
		{0, math.NaN(), "inject: fraction NaN: want a value in [0, 1]"},
	} {
		if _, err := Inject(prior, c.cell, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Inject(cell %d, f %v): error %v, want one saying %q", c.cell, c.f, err, c.want)
		}
	}
	neg := append([]float64(nil), prior...)
	neg[0], neg[1] = -neg[1], neg[0]+2*neg[1]
	if _, err := Inject(neg, 0, 0.1); err == nil || !strings.Contains(err.Error(), "prior[0]") {
		t.Errorf("negative prior: %v", err)
	}
}

func TestIslandOptionsTOML(t *testing.T) {
	var spec struct {
		Island IslandOptions `toml:"island"`
	}
	src := "[island]\nrow = 6\ncol = 3\nmode = \"set\"\nmass = 0.01\nblock = {row0 = 4, row1 = 8, col0 = 1, col1 = 5}\n"
	if _, err := toml.Decode(src, &spec); err != nil {
		t.Fatal(err)
	}
	want := IslandOptions{Row: 6, Col: 3, Mode: SetMass, Mass: 0.01, Block: &Block{4, 8, 1, 5}}
	if spec.Island.Row != want.Row || spec.Island.Mode != want.Mode || *spec.Island.Block != *want.Block {
		t.Errorf("decoded %+v, want %+v", spec.Island, want)
	}
	if _, err := toml.Decode("[island]\nmode = \"dump\"\n", &spec); err == nil || !strings.Contains(err.Error(), `unknown island mode "dump" (known: move, set)`) {
		t.Errorf("unknown mode: %v", err)
	}
}

// TestIslandBoundaries: A and the block may touch every edge of the grid.
func TestIslandBoundaries(t *testing.T) {
	g := kernels.Grid{Rows: 4, Cols: 5}
	prior := uniformPrior(g)
	for _, o := range []IslandOptions{
		{Row: 3, Col: 4, Radius: 0, Mode: MoveMass},
		{Row: 0, Col: 0, Block: &Block{Row0: 0, Row1: 3, Col0: 4, Col1: 4}, Mode: MoveMass},
		{Row: 3, Col: 0, Block: &Block{Row0: 3, Row1: 3, Col0: 0, Col1: 0}, Mode: MoveMass},
	} {
		out, err := Island(g, prior, o)
		if err != nil {
			t.Errorf("Island(%+v): %v", o, err)
			continue
		}
		if math.Abs(total(out)-1) > 1e-12 {
			t.Errorf("Island(%+v): total %v", o, total(out))
		}
	}
	// Radius 0 moves nothing: the block is A alone.
	out, _ := Island(g, prior, IslandOptions{Row: 1, Col: 1, Radius: 0, Mode: MoveMass})
	for i, v := range out {
		if v != prior[i] {
			t.Fatalf("radius 0: cell %d = %v, want %v", i, v, prior[i])
		}
	}
}

// TestIslandRadiusBlock: the block of a radius spans A +- radius on both
// sides, cut at the grid; SetMass may give A the whole mass, also when
// nothing outside the block has any (no NaN from rescaling nothing).
func TestIslandRadiusBlock(t *testing.T) {
	g, _ := kernels.NewGrid(4, 5)
	prior := uniformPrior(g)
	out, err := Island(g, prior, IslandOptions{Row: 1, Col: 1, Radius: 1, Mode: SetMass, Mass: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for r := range g.Rows {
		for c := range g.Cols {
			v := out[g.Index(r, c)]
			switch inBlock := r <= 2 && c <= 2; {
			case r == 1 && c == 1:
				if math.Abs(v-0.5) > 1e-15 {
					t.Errorf("A = %v, want 0.5", v)
				}
			case inBlock && v != 0:
				t.Errorf("(%d,%d) in the block has %v", r, c, v)
			case !inBlock && math.Abs(v-0.5/11) > 1e-15:
				t.Errorf("(%d,%d) outside the block has %v, want 0.5/11", r, c, v)
			}
		}
	}
	// All the mass to A, with nothing outside the block.
	inside := make([]float64, g.Len())
	inside[g.Index(0, 0)], inside[g.Index(1, 1)] = 0.5, 0.5
	out, err = Island(g, inside, IslandOptions{Row: 0, Col: 0, Radius: 1, Mode: SetMass, Mass: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		want := 0.0
		if i == 0 {
			want = 1
		}
		if v != want {
			t.Errorf("cell %d: %v, want %v", i, v, want)
		}
	}
}
