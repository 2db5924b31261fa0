package mechanism

import (
	"math"
	"strings"
	"testing"

	"privic/kernels"
)

func TestRegistryNamesAreLowercaseDigitsAndHyphens(t *testing.T) {
	// The accepted alphabet is exactly a-z, 0-9 and '-': its end points are
	// accepted and the characters just outside each range refused.
	mk := func(name string) Entry {
		return Entry{Name: name, Param: "p", New: func(Options) Mechanism { return RR{} }}
	}
	for _, name := range []string{"a", "z", "0", "9", "-", "az-09", "k2-rr"} {
		if _, err := NewRegistry(mk(name)); err != nil {
			t.Errorf("name %q refused: %v", name, err)
		}
	}
	for _, name := range []string{"", "`", "{", "/", ":", "A", "Z", "a_b", "a b", "a.b", "é"} {
		_, err := NewRegistry(mk(name))
		if err == nil || !strings.Contains(err.Error(), "use a-z, 0-9 and '-'") {
			t.Errorf("name %q: error %v, want the allowed alphabet", name, err)
		}
	}
}

func TestCheckPriorToleranceIsPerCell(t *testing.T) {
	// A prior may miss 1 by StochasticTol per cell, that much included.
	// On 27895 cells StochasticTol*27895 is a multiple of 2^-53, so a
	// prior summing to exactly 1 minus it exists: one cell at 1-δ, the
	// rest 0. It is accepted and the next float below is refused; on four
	// cells a sum of 1 + 2 StochasticTol is within 4 StochasticTol.
	const n = 27895
	g := mustGrid(t, 5, n/5)
	tol := float64(kernels.StochasticTol) // rounded first, as checkPrior's operand
	delta := tol * n
	if f := delta * (1 << 53); f != math.Trunc(f) {
		t.Fatalf("StochasticTol*%d = %v is not a multiple of 2^-53", n, delta)
	}
	prior := make([]float64, n)
	prior[0] = 1 - delta
	if err := checkPrior("p", g, prior); err != nil {
		t.Errorf("sum 1 - %v on %d cells: %v", delta, n, err)
	}
	prior[0] = math.Nextafter(1-delta, 0)
	if err := checkPrior("p", g, prior); err == nil || !strings.Contains(err.Error(), "p: prior sums to") {
		t.Errorf("sum %v on %d cells: error %v", prior[0], n, err)
	}
	small := mustGrid(t, 2, 2)
	q := []float64{0.25, 0.25, 0.25, 0.25 + 2*kernels.StochasticTol}
	if err := checkPrior("p", small, q); err != nil {
		t.Errorf("sum 1 + 2 tol on 4 cells: %v", err)
	}
}

func TestTightEpsOfRRIsItsParameterExactly(t *testing.T) {
	// On two or more cells RR's tight epsilon is its parameter, returned
	// as such (bit for bit, not a log-ratio recomputed from the channel);
	// on one cell the channel is constant and its tight epsilon is 0.
	for _, sz := range [][2]int{{1, 2}, {2, 1}, {2, 3}} {
		g := mustGrid(t, sz[0], sz[1])
		for _, eps := range []float64{0.1, 0.7, 1.3, 2.9, 5.5} {
			ch, err := RR{}.Channel(g, g, nil, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []Mechanism{RR{}, &RR{}} {
				if got, err := TightEpsOf(m, eps, ch); err != nil || got != eps {
					t.Errorf("%T on %v at eps %v: %v, %v; want exactly %v", m, g, eps, got, err, eps)
				}
			}
		}
	}
	one := mustGrid(t, 1, 1)
	ch, err := RR{}.Channel(one, one, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := TightEpsOf(RR{}, 2, ch); err != nil || got != 0 {
		t.Errorf("one cell: %v, %v; want 0", got, err)
	}
}

func TestRRProbabilitiesClosedForm(t *testing.T) {
	// p = e^eps/(e^eps+k-1), q = 1/(e^eps+k-1) for k >= 2; one cell (or
	// none) reports itself: p = 1, q = 0.
	for _, k := range []int{2, 3, 10} {
		for _, eps := range []float64{0.01, 1, 7} {
			p, q := RRProbabilities(k, eps)
			e := math.Exp(eps)
			if wp, wq := e/(e+float64(k-1)), 1/(e+float64(k-1)); math.Abs(p-wp) > 1e-15 || math.Abs(q-wq) > 1e-15 {
				t.Errorf("k=%d eps=%v: p, q = %v, %v; want %v, %v", k, eps, p, q, wp, wq)
			}
		}
	}
	for _, k := range []int{0, 1} {
		if p, q := RRProbabilities(k, 0.5); p != 1 || q != 0 {
			t.Errorf("k=%d: p, q = %v, %v; want 1, 0", k, p, q)
		}
	}
	// RR's claim: exactly eps from two cells on, 0 on one cell.
	for _, c := range []struct {
		rows, cols int
		want       float64
	}{{1, 1, 0}, {1, 2, 0.8}, {3, 3, 0.8}} {
		g := mustGrid(t, c.rows, c.cols)
		if cl := (RR{}).Claim(g, g, 0.8); cl.Lo != c.want || cl.Hi != c.want {
			t.Errorf("%v: claim [%v, %v], want [%v, %v]", g, cl.Lo, cl.Hi, c.want, c.want)
		}
	}
}

func TestSpellingsNameAndParse(t *testing.T) {
	// Every value in the table has its spelling and parses back, the first
	// and last included; values outside it print as typ(v); unknown
	// spellings are refused with the list of known ones.
	s := spellings[int]{"first", "mid", "last"}
	for v, want := range []string{"first", "mid", "last"} {
		if got := s.name("kind", v); got != want {
			t.Errorf("name(%d) = %q, want %q", v, got, want)
		}
		if got, err := s.parse("kind", want); err != nil || got != v {
			t.Errorf("parse(%q) = %d, %v; want %d", want, got, err, v)
		}
	}
	for v, want := range map[int]string{-1: "kind(-1)", 3: "kind(3)", 9: "kind(9)"} {
		if got := s.name("kind", v); got != want {
			t.Errorf("name(%d) = %q, want %q", v, got, want)
		}
	}
	for _, str := range []string{"", "First", "firs", "last "} {
		_, err := s.parse("kind", str)
		if want := `unknown kind "` + str + `" (known: first, mid, last)`; err == nil || err.Error() != want {
			t.Errorf("parse(%q): error %v, want %s", str, err, want)
		}
	}
}
