package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTrustedMatchChecked checks that the trusted Obfuscate, IBU and GIBU
// give exactly what the checked ones give on valid channels (same random
// stream, same estimates and iteration counts), and that they still
// reject malformed shapes and weights.
func TestTrustedMatchChecked(t *testing.T) {
	g, err := NewGrid(4, 5)
	if err != nil {
		t.Fatal(err)
	}
	prior := make([]float64, g.Len())
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range prior {
		prior[i] = rng.Float64()
	}
	toDist(prior)
	lap, err := Laplace(g, g.Widen(1), 1.5)
	if err != nil {
		t.Fatal(err)
	}
	b := mustBA(t, g, prior, BAConfig{Beta: 0.7, Iterations: 6})
	ba := b.Channel()
	counts := make([]int, g.Len())
	for i := range counts {
		counts[i] = rng.IntN(200) // both multinomial methods
	}
	var batches []Batch
	for _, ch := range []*Channel{ba, lap} {
		want, err := Obfuscate(rand.New(rand.NewPCG(3, 4)), counts, ch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ObfuscateTrusted(rand.New(rand.NewPCG(3, 4)), counts, ch)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ObfuscateTrusted %v, Obfuscate %v", got, want)
		}
		q, w := make([]float64, len(got)), make([]float64, len(got))
		n := 0
		for _, k := range got {
			n += k
		}
		for y, k := range got {
			q[y], w[y] = float64(k)/float64(n), float64(k)
		}
		batches = append(batches, Batch{Channel: ch, Counts: w})
		for _, cfg := range []IBUConfig{{Iterations: 7}, {Delta: 1e-9}} {
			var w1, w2 IBUWorkspace
			e1, i1, err1 := w1.IBU(nil, ch, q, prior, cfg)
			e2, i2, err2 := w2.IBUTrusted(nil, ch, q, prior, cfg)
			if err1 != nil || err2 != nil || i1 != i2 || !slices.Equal(e1, e2) {
				t.Fatalf("IBU %v %d %v, IBUTrusted %v %d %v", e1, i1, err1, e2, i2, err2)
			}
		}
	}
	var w1, w2 IBUWorkspace
	e1, i1, err1 := w1.GIBU(nil, batches, nil, IBUConfig{Iterations: 9})
	e2, i2, err2 := w2.GIBUTrusted(nil, batches, nil, IBUConfig{Iterations: 9})
	if err1 != nil || err2 != nil || i1 != i2 || !slices.Equal(e1, e2) {
		t.Fatalf("GIBU %v %d %v, GIBUTrusted %v %d %v", e1, i1, err1, e2, i2, err2)
	}
	// Shapes and weights are still checked.
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"ObfuscateTrusted, short counts", second(ObfuscateTrusted(rng, counts[:3], ba)), fmt.Sprintf("obfuscate: counts has 3 entries, want %d", g.Len())},
		{"ObfuscateTrusted, short channel", second(ObfuscateTrusted(rng, counts, &Channel{In: g, Out: g, P: ba.P[:5]})), fmt.Sprintf("has 5 entries, want %d", g.Len()*g.Len())},
		{"GIBUTrusted, zero counts", third(w2.GIBUTrusted(nil, []Batch{{Channel: ba, Counts: make([]float64, g.Len())}}, nil, IBUConfig{Iterations: 1})), "gibu: batch 0: counts: total 0 must be finite and > 0"},
		{"IBUTrusted, nil channel", third(w2.IBUTrusted(nil, nil, nil, nil, IBUConfig{Iterations: 1})), "ibu: channel is nil"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, tc.err, tc.want)
		}
	}
}

// second and third return the error of a two- or three-valued call.
func second[A any](_ A, err error) error        { return err }
func third[A, B any](_ A, _ B, err error) error { return err }
