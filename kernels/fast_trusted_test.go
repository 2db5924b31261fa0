package kernels

import (
	"math/rand/v2"
	"slices"
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
	s := 0.0
	for _, v := range prior {
		s += v
	}
	for i := range prior {
		prior[i] /= s
	}
	lap, err := Laplace(g, g.Widen(1), 1.5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BA(g, prior, BAConfig{Beta: 0.7, Iterations: 6})
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := ObfuscateTrusted(rng, counts[:3], ba); err == nil {
		t.Error("ObfuscateTrusted accepted counts of the wrong length")
	}
	if _, err := ObfuscateTrusted(rng, counts, &Channel{In: g, Out: g, P: ba.P[:5]}); err == nil {
		t.Error("ObfuscateTrusted accepted a channel with too few entries")
	}
	if _, _, err := w2.GIBUTrusted(nil, []Batch{{Channel: ba, Counts: make([]float64, g.Len())}}, nil, IBUConfig{Iterations: 1}); err == nil {
		t.Error("GIBUTrusted accepted all-zero counts")
	}
	if _, _, err := w2.IBUTrusted(nil, nil, nil, nil, IBUConfig{Iterations: 1}); err == nil {
		t.Error("IBUTrusted accepted a nil channel")
	}
}
