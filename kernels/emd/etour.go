package emd

import "math"

// etour is the basis tree of the sparse solver as an Euler tour cut into
// blocks, each block carrying a lazy shift of its nodes' potentials.
//
// The tour is the closed walk around the tree from the root: every node x
// has a self element (id x) placed somewhere while the walk is at x, and
// every non-root node two edge elements, dn[x] (the walk entering x from
// its parent) and up[x] (leaving it back to the parent). The subtree of x
// is then exactly the stretch from dn[x] to up[x]. A pivot moves a
// subtree: cut that stretch out, rotate it so that the walk starts at the
// node that becomes the subtree's root (re-rooting a closed walk is a
// rotation), and splice it in right after the self element of its new
// parent. The stretch is split off at block boundaries, so the pivot
// touches O(block) elements plus one lazy shift per block of the subtree,
// instead of every node of the subtree as the preorder thread does.
//
// The potential of node x is pi[x] + lz[eb[x]] (eb[x] the block of its
// self element). Blocks are kept near bs elements: a split copies at most
// a block, and neighbours that fit together are merged again (their
// shifts pushed into pi first).
type etour struct {
	bs     int       // largest block after a merge
	items  [][]int32 // elements of each block, in tour order
	lz     []float64 // potential shift of each block
	prev   []int32
	next   []int32
	free   []int32 // unused block ids
	head   int32   // the block starting with the root's self element
	eb, ei []int32 // block of each element and index in it
	dn, up []int32 // edge elements of each non-root node
	owner  []int32 // node x of the edge element dn[x] (else -1)

	mark  []uint32 // apex search: stamp*2 (from k) or stamp*2+1 (from l)
	stamp uint32
	touch []int32 // blocks to tidy after a pivot
	stem  []int32
	sdn   []int32
	sup   []int32
}

const noBlock = -1

// blockSize is the merge threshold for a tree of N nodes.
func blockSize(N int) int {
	return max(16, min(512, int(math.Sqrt(float64(3*N))/4)))
}

// build lays out the tour of the tree given by parent (root at index
// len(parent)-1) in blocks of about half the merge threshold.
func (t *etour) build(parent []int) {
	N := len(parent) // nodes, root included
	root := N - 1
	E := 3*N - 2
	t.bs = blockSize(N)
	t.eb, t.ei = grow(t.eb, E), grow(t.ei, E)
	t.dn, t.up = grow(t.dn, N), grow(t.up, N)
	t.owner = grow(t.owner, E)
	t.mark = grow(t.mark, N)
	clear(t.mark)
	t.stamp = 0
	for e := range t.owner {
		t.owner[e] = -1
	}
	for x := range root {
		t.dn[x], t.up[x] = int32(N+2*x), int32(N+2*x+1)
		t.owner[t.dn[x]] = int32(x)
	}
	// Children in CSR form, then the walk.
	start := make([]int32, N+1)
	for x := range root {
		start[parent[x]+1]++
	}
	for x := range N {
		start[x+1] += start[x]
	}
	kid := make([]int32, root)
	fill := append([]int32(nil), start[:N]...)
	for x := range root {
		kid[fill[parent[x]]] = int32(x)
		fill[parent[x]]++
	}
	seq := make([]int32, 0, E)
	type frame struct{ x, k int32 }
	stack := []frame{{int32(root), start[root]}}
	seq = append(seq, int32(root))
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.k == start[f.x+1] {
			if f.x != int32(root) {
				seq = append(seq, t.up[f.x])
			}
			stack = stack[:len(stack)-1]
			continue
		}
		c := kid[f.k]
		f.k++
		seq = append(seq, t.dn[c], c)
		stack = append(stack, frame{c, start[c]})
	}
	// Blocks.
	for b := range t.items {
		t.items[b] = t.items[b][:0]
	}
	t.lz, t.prev, t.next, t.free = t.lz[:0], t.prev[:0], t.next[:0], t.free[:0]
	chunk := max(1, t.bs/2)
	nb := int32(0)
	for lo := 0; lo < len(seq); lo += chunk {
		hi := min(len(seq), lo+chunk)
		if int(nb) == len(t.items) {
			t.items = append(t.items, nil)
		}
		t.items[nb] = append(t.items[nb][:0], seq[lo:hi]...)
		for k, e := range seq[lo:hi] {
			t.eb[e], t.ei[e] = nb, int32(k)
		}
		t.lz = append(t.lz, 0)
		t.prev = append(t.prev, nb-1)
		t.next = append(t.next, nb+1)
		nb++
	}
	t.next[nb-1] = noBlock
	t.head = 0
}

// newBlock returns an empty block id.
func (t *etour) newBlock() int32 {
	if k := len(t.free); k > 0 {
		b := t.free[k-1]
		t.free = t.free[:k-1]
		return b
	}
	b := int32(len(t.lz))
	t.items = append(t.items, nil)
	t.lz = append(t.lz, 0)
	t.prev = append(t.prev, noBlock)
	t.next = append(t.next, noBlock)
	return b
}

// link makes b's successor c (either may be noBlock).
func (t *etour) link(b, c int32) {
	if b != noBlock {
		t.next[b] = c
	}
	if c != noBlock {
		t.prev[c] = b
	}
}

// splitBefore makes element e the first of its block and returns that
// block; the elements before it stay in the old block.
func (t *etour) splitBefore(e int32) int32 {
	b, i := t.eb[e], t.ei[e]
	if i == 0 {
		return b
	}
	nb := t.newBlock()
	t.items[nb] = append(t.items[nb][:0], t.items[b][i:]...)
	t.items[b] = t.items[b][:i]
	for k, x := range t.items[nb] {
		t.eb[x], t.ei[x] = nb, int32(k)
	}
	t.lz[nb] = t.lz[b]
	t.link(nb, t.next[b])
	t.link(b, nb)
	return nb
}

// splitAfter makes element e the last of its block and returns that block.
func (t *etour) splitAfter(e int32) int32 {
	b, i := t.eb[e], t.ei[e]
	if int(i) < len(t.items[b])-1 {
		t.splitBefore(t.items[b][i+1])
	}
	return b
}

// merge appends block c (b's successor) to b, pushing both shifts into
// the potentials of their nodes first.
func (t *etour) merge(b, c int32, pi []float64) {
	N := int32(len(t.dn))
	for _, blk := range [2]int32{b, c} {
		if d := t.lz[blk]; d != 0 {
			for _, x := range t.items[blk] {
				if x < N {
					pi[x] += d
				}
			}
			t.lz[blk] = 0
		}
	}
	k := int32(len(t.items[b]))
	t.items[b] = append(t.items[b], t.items[c]...)
	for i, x := range t.items[c] {
		t.eb[x], t.ei[x] = b, k+int32(i)
	}
	t.items[c] = t.items[c][:0]
	t.link(b, t.next[c])
	t.prev[c], t.next[c] = noBlock, noBlock
	t.free = append(t.free, c)
}

// tidy merges the blocks in t.touch with their neighbours while the two
// fit in a block.
func (t *etour) tidy(pi []float64) {
	for _, b := range t.touch {
		if len(t.items[b]) == 0 {
			continue // merged away (freed) already
		}
		for c := t.next[b]; c != noBlock && len(t.items[b])+len(t.items[c]) <= t.bs; c = t.next[b] {
			t.merge(b, c, pi)
		}
		if p := t.prev[b]; p != noBlock && len(t.items[p])+len(t.items[b]) <= t.bs {
			t.merge(p, b, pi)
		}
	}
	t.touch = t.touch[:0]
}

// pot is the potential of node x.
func (s *network) pot(x int) float64 {
	return s.pi[x] + s.et.lz[s.et.eb[x]]
}

// apexMarks is the apex of the cycle that arc k - l closes: both ends walk
// up in turns, marking the nodes they pass, until one reaches a node the
// other has marked.
func (s *network) apexMarks(k, l int) int {
	t := s.et
	t.stamp++
	if t.stamp >= math.MaxUint32/2 {
		clear(t.mark)
		t.stamp = 1
	}
	mk, ml := 2*t.stamp, 2*t.stamp+1
	root := s.n + s.m
	t.mark[k], t.mark[l] = mk, ml // k a supply, l a demand: never equal
	a, b := k, l
	for {
		if a != root {
			a = s.parent[a]
			if t.mark[a] == ml {
				return a
			}
			t.mark[a] = mk
		}
		if b != root {
			b = s.parent[b]
			if t.mark[b] == mk {
				return b
			}
			t.mark[b] = ml
		}
	}
}

// etRehang is rehang on the Euler tour: the subtree of q is re-rooted at
// its node u, hung under v by a real arc of cost c with flow f, and its
// potentials shift by sigma.
func (s *network) etRehang(u, v, q int, c, f, sigma float64) {
	t := s.et
	parent := s.parent
	t.stem = t.stem[:0]
	for x := u; ; x = parent[x] {
		t.stem = append(t.stem, int32(x))
		if x == q {
			break
		}
	}
	D, U := t.dn[q], t.up[q]
	// Cut the stretch D .. U out, with D and U alone in their blocks.
	bD := t.splitBefore(D)
	t.splitAfter(D)
	bU := t.splitBefore(U)
	t.splitAfter(U)
	pre, post := t.prev[bD], t.next[bU]
	t.link(pre, post)
	t.touch = append(t.touch, pre)
	// Rotate the walk inside (the tour of the subtree of q) to start at u.
	if u != q {
		bS := t.splitBefore(int32(u))
		x1, y2 := t.next[bD], t.prev[bU]
		if x1 != bS {
			x2 := t.prev[bS]
			t.link(bD, bS)
			t.link(y2, x1)
			t.link(x2, bU)
			t.touch = append(t.touch, y2, x2)
		}
	}
	// Shift the potentials.
	for b := bD; ; b = t.next[b] {
		t.lz[b] += sigma
		if b == bU {
			break
		}
	}
	// Splice in after the self element of v.
	bv := t.splitAfter(int32(v))
	nv := t.next[bv]
	t.link(bv, bD)
	t.link(bU, nv)
	t.touch = append(t.touch, bv, bD, bU)
	// Edge elements: the stem's arcs turn round; u takes the cut arc's.
	st := t.stem
	t.sdn, t.sup = t.sdn[:0], t.sup[:0]
	for _, x := range st {
		t.sdn, t.sup = append(t.sdn, t.dn[x]), append(t.sup, t.up[x])
	}
	for _, e := range t.sdn {
		t.owner[e] = -1
	}
	for i := 1; i < len(st); i++ {
		x := st[i]
		t.dn[x], t.up[x] = t.sup[i-1], t.sdn[i-1]
		t.owner[t.dn[x]] = x
	}
	t.dn[u], t.up[u] = D, U
	t.owner[D] = int32(u)
	// Parent pointers, arcs and flows along the stem, as rehang.
	for i := len(st) - 1; i > 0; i-- {
		si, sp := int(st[i]), int(st[i-1])
		parent[si] = sp
		s.acost[si] = s.acost[sp]
		s.flow[si] = s.flow[sp]
	}
	parent[u], s.acost[u], s.flow[u] = v, c, f
	t.tidy(s.pi)
}

// etRefresh recomputes the potentials from scratch along the tour (each
// node when the walk enters it) and clears the blocks' shifts.
func (s *network) etRefresh() {
	t := s.et
	root := s.n + s.m
	n := s.n
	s.pi[root] = 0
	for b := t.head; b != noBlock; b = t.next[b] {
		t.lz[b] = 0
		for _, e := range t.items[b] {
			x := t.owner[e]
			if x < 0 {
				continue
			}
			p := s.parent[x]
			switch {
			case p == root:
				s.pi[x] = s.acost[x]
			case int(x) < n:
				s.pi[x] = s.pi[p] - s.acost[x]
			default:
				s.pi[x] = s.pi[p] + s.acost[x]
			}
		}
	}
}
