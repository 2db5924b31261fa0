package emd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBlockSize: blocks of about a quarter of the square root of the
// tour's 3N elements, at least 16 and at most 512.
func TestBlockSize(t *testing.T) {
	for _, c := range []struct{ n, want int }{{2, 16}, {1000, 16}, {1400, 16}, {1500, 16}, {2000, 19}, {16384, 55}, {65536, 110}, {1 << 20, 443}, {1 << 22, 512}} {
		if got := blockSize(c.n); got != c.want {
			t.Errorf("blockSize(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// randomTree returns the parent pointers of a random tree on n nodes plus
// a root (the last index), each node hanging from the root or from an
// earlier node.
func randomTree(rng *rand.Rand, n int) []int {
	parent := make([]int, n+1)
	parent[n] = n
	for x := range n {
		parent[x] = n
		if x > 0 && rng.IntN(4) > 0 {
			parent[x] = rng.IntN(x)
		}
	}
	return parent
}

// tourNetwork is a network whose tree is parent, in Euler tour form (the
// supplies are the first half of the nodes), for the tour's checks.
func tourNetwork(parent []int) *network {
	N := len(parent) - 1
	s := &network{n: N / 2, m: N - N/2, parent: parent}
	s.acost, s.pi = make([]float64, N+1), make([]float64, N+1)
	s.et = &etour{}
	s.et.build(parent)
	return s
}

// TestTourBuild: the built tour is one of the tree (checkTour), in blocks
// of half the merge threshold but the last.
func TestTourBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(97, 98))
	for trial := range 30 {
		n := 1 + rng.IntN(400)
		s := tourNetwork(randomTree(rng, n))
		if err := checkTour(s); err != nil {
			t.Fatalf("trial %d (%d nodes): %v", trial, n, err)
		}
		et := s.et
		for b := et.head; b != noBlock; b = et.next[b] {
			if k := len(et.items[b]); k != et.bs/2 && et.next[b] != noBlock || k > et.bs/2 {
				t.Fatalf("trial %d: block %d holds %d elements, threshold %d", trial, b, k, et.bs)
			}
		}
	}
}

// TestTidy: after a tidy each touched block has absorbed the blocks after
// it while the two fitted in the merge threshold, then been absorbed by
// the one before it if they fitted (the rule replayed on the block
// sizes), and every potential (pi plus its block's shift) is unchanged.
func TestTidy(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 100))
	for trial := range 60 {
		n := 20 + rng.IntN(300)
		s := tourNetwork(randomTree(rng, n))
		et := s.et
		for x := range s.pi {
			s.pi[x] = rng.NormFloat64()
		}
		// Cut the tour into pieces of random sizes with random shifts.
		for range 1 + rng.IntN(20) {
			e := int32(1 + rng.IntN(len(et.eb)-1))
			et.splitBefore(e)
		}
		for b := range et.lz {
			et.lz[b] = float64(rng.IntN(7) - 3)
		}
		before := make([]float64, len(s.pi))
		for x := range before {
			before[x] = s.pot(x)
		}
		var ids []int32
		for b := et.head; b != noBlock; b = et.next[b] {
			ids = append(ids, b)
		}
		var touch []int32
		for range 1 + rng.IntN(6) {
			touch = append(touch, ids[rng.IntN(len(ids))])
		}
		// The rule on the sizes.
		size := map[int32]int{}
		for _, b := range ids {
			size[b] = len(et.items[b])
		}
		order := slices.Clone(ids)
		for _, b := range touch {
			k := slices.Index(order, b)
			if k < 0 {
				continue
			}
			for k+1 < len(order) && size[b]+size[order[k+1]] <= et.bs {
				size[b] += size[order[k+1]]
				order = slices.Delete(order, k+1, k+2)
			}
			if k > 0 && size[order[k-1]]+size[b] <= et.bs {
				size[order[k-1]] += size[b]
				order = slices.Delete(order, k, k+1)
			}
		}
		et.touch = append(et.touch[:0], touch...)
		et.tidy(s.pi)
		var got []int32
		for b := et.head; b != noBlock; b = et.next[b] {
			got = append(got, b)
			if len(et.items[b]) != size[b] {
				t.Fatalf("trial %d: block %d holds %d elements, want %d", trial, b, len(et.items[b]), size[b])
			}
		}
		if !slices.Equal(got, order) || len(et.touch) != 0 {
			t.Fatalf("trial %d: blocks %v, want %v (touch left %v)", trial, got, order, et.touch)
		}
		if err := checkTour(s); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for x, v := range before {
			if s.pot(x) != v {
				t.Fatalf("trial %d: potential of %d %v, was %v", trial, x, s.pot(x), v)
			}
		}
		for _, b := range et.free {
			if len(et.items[b]) != 0 || slices.Contains(got, b) {
				t.Fatalf("trial %d: freed block %d holds %d elements or is linked", trial, b, len(et.items[b]))
			}
		}
	}
}

// TestApexMarks: the apex found by the two walks is the lowest common
// ancestor (brute force by ancestor sets), call after call on deep and
// shallow trees (marks left by earlier walks must not mislead later
// ones); each call takes the next stamp, and the stamps restart at 1
// before 2*stamp+1 could overflow.
func TestApexMarks(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	for trial := range 40 {
		n := 2 + rng.IntN(200)
		parent := randomTree(rng, n)
		if trial%2 == 1 { // deep: each node under one of the few before it
			for x := 1; x < n; x++ {
				parent[x] = max(0, x-1-rng.IntN(3))
			}
		}
		s := tourNetwork(parent)
		if trial%4 == 0 {
			s.et.stamp = math.MaxUint32/2 - 3
		}
		root := len(s.parent) - 1
		for range 50 {
			k, l := rng.IntN(s.n), s.n+rng.IntN(s.m)
			anc := map[int]bool{}
			for x := k; ; x = s.parent[x] {
				anc[x] = true
				if x == root {
					break
				}
			}
			want := l
			for !anc[want] {
				want = s.parent[want]
			}
			stamp := s.et.stamp
			if got := s.apexMarks(k, l); got != want {
				t.Fatalf("trial %d: apex of %d and %d: %d, want %d", trial, k, l, got, want)
			}
			next := stamp + 1
			if next == math.MaxUint32/2 {
				next = 1
			}
			if s.et.stamp != next {
				t.Fatalf("trial %d: stamp %d after %d", trial, s.et.stamp, stamp)
			}
		}
	}
}
