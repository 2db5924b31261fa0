package emd

import (
	"math"
	"slices"
)

// kdLeaf is the most points a kd-tree leaf holds.
const kdLeaf = 8

// kdTree is a static 2-d tree over a point set for additively weighted
// nearest-neighbour queries: the points j minimising d(p, x_j) + w[j] for a
// query point p and weights w (the pricing sweep's c_ij - pi_j; w = 0 for
// plain nearest neighbours). Each node holds its points' bounding box and,
// per query weight vector, their least weight, so that a whole subtree is
// skipped when d(p, box) + min w cannot beat the current threshold.
type kdTree struct {
	x, y   []float64 // coordinates by point index (shared, not copied)
	perm   []int32   // point indices in tree order; a node covers perm[lo:hi]
	nodes  []kdNode
	up     []int32   // parent of each node (-1 for the root)
	leafOf []int32   // leaf holding each point (by point index)
	wmin   []float64 // per node: least weight of its points (setWeights)
	w      []float64 // current weights by point index (nil: all zero)
}

type kdNode struct {
	lo, hi         int32
	kid            int32 // first child (the second is kid+1); noKid for a leaf
	x0, x1, y0, y1 float64
}

// noKid marks a leaf.
const noKid = -1

// build makes t the tree over the points idx (indices into x and y; nil
// means all of them).
func (t *kdTree) build(x, y []float64, idx []int32) {
	t.x, t.y, t.w = x, y, nil
	if idx == nil {
		t.perm = grow(t.perm, len(x))
		for k := range t.perm {
			t.perm[k] = int32(k)
		}
	} else {
		t.perm = append(t.perm[:0], idx...)
	}
	t.nodes, t.up = t.nodes[:0], t.up[:0]
	t.leafOf = grow(t.leafOf, len(x))
	if len(t.perm) == 0 {
		return
	}
	t.nodes, t.up = append(t.nodes, kdNode{lo: 0, hi: int32(len(t.perm))}), append(t.up, -1)
	// Breadth-first: children are appended in pairs.
	for k := 0; k < len(t.nodes); k++ {
		nd := &t.nodes[k]
		pts := t.perm[nd.lo:nd.hi]
		nd.x0, nd.x1, nd.y0, nd.y1 = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			px, py := x[p], y[p]
			nd.x0, nd.x1 = min(nd.x0, px), max(nd.x1, px)
			nd.y0, nd.y1 = min(nd.y0, py), max(nd.y1, py)
		}
		nd.kid = noKid
		if len(pts) <= kdLeaf {
			for _, p := range pts {
				t.leafOf[p] = int32(k)
			}
			continue
		}
		// Split the longer side at the median (ties by index, so the
		// tree depends only on the points).
		coord := x
		if nd.y1-nd.y0 > nd.x1-nd.x0 {
			coord = y
		}
		slices.SortFunc(pts, func(a, b int32) int {
			switch ca, cb := coord[a], coord[b]; {
			case ca < cb:
				return -1
			case ca > cb:
				return 1
			}
			return int(a - b)
		})
		mid := nd.lo + int32(len(pts)/2)
		nd.kid = int32(len(t.nodes))
		lo, hi := nd.lo, nd.hi
		t.nodes = append(t.nodes, kdNode{lo: lo, hi: mid}, kdNode{lo: mid, hi: hi})
		t.up = append(t.up, int32(k), int32(k))
	}
}

// setWeights attaches weights w (by point index; nil for none) and
// computes each node's least weight.
func (t *kdTree) setWeights(w []float64) {
	t.w = w
	if w == nil {
		return
	}
	t.wmin = grow(t.wmin, len(t.nodes))
	// Children come after their parent: fill bottom-up.
	for k := len(t.nodes) - 1; k >= 0; k-- {
		nd := &t.nodes[k]
		if nd.kid == noKid {
			v := math.Inf(1)
			for _, p := range t.perm[nd.lo:nd.hi] {
				v = min(v, w[p])
			}
			t.wmin[k] = v
		} else {
			t.wmin[k] = min(t.wmin[nd.kid], t.wmin[nd.kid+1])
		}
	}
}

// remove takes point p out of the searches by setting its weight to +Inf
// (in the weight vector attached by setWeights) and updating the least
// weights of the nodes above it: subtrees without live points are then
// skipped whole.
func (t *kdTree) remove(p int32) {
	t.w[p] = math.Inf(1)
	for k := t.leafOf[p]; k >= 0; k = t.up[k] {
		nd := &t.nodes[k]
		v := math.Inf(1)
		if nd.kid == noKid {
			for _, q := range t.perm[nd.lo:nd.hi] {
				v = min(v, t.w[q])
			}
		} else {
			v = min(t.wmin[nd.kid], t.wmin[nd.kid+1])
		}
		if v == t.wmin[k] {
			return // the nodes above do not change either
		}
		t.wmin[k] = v
	}
}

// boxDist is the distance from (px, py) to the node's box: a lower bound,
// in floating point too, of the distance to each of its points (the
// differences to the box's sides are no larger than those to the points,
// and rounding is monotone).
func (nd *kdNode) boxDist(px, py float64) float64 {
	dx := max(nd.x0-px, px-nd.x1, 0)
	dy := max(nd.y0-py, py-nd.y1, 0)
	return math.Sqrt(dx*dx + dy*dy)
}

// kbest holds the k points with the least keys seen (a max-heap on key).
type kbest struct {
	k    int
	key  []float64
	idx  []int32
	sKey float64 // search threshold: keys must be below it
}

func (h *kbest) reset(k int, thr float64) {
	h.k, h.sKey = k, thr
	h.key, h.idx = h.key[:0], h.idx[:0]
}

// offer records point p with key v < h.sKey.
func (h *kbest) offer(v float64, p int32) {
	if len(h.key) < h.k {
		h.key, h.idx = append(h.key, v), append(h.idx, p)
		for c := len(h.key) - 1; c != 0; {
			q := (c - 1) / 2
			if h.key[q] >= h.key[c] {
				break
			}
			h.key[q], h.key[c] = h.key[c], h.key[q]
			h.idx[q], h.idx[c] = h.idx[c], h.idx[q]
			c = q
		}
		if len(h.key) == h.k {
			h.sKey = h.key[0]
		}
		return
	}
	h.key[0], h.idx[0] = v, p
	for c := 0; ; {
		l := 2*c + 1
		if l >= len(h.key) {
			break
		}
		if l+1 < len(h.key) && h.key[l+1] > h.key[l] {
			l++
		}
		if h.key[c] >= h.key[l] {
			break
		}
		h.key[c], h.key[l] = h.key[l], h.key[c]
		h.idx[c], h.idx[l] = h.idx[l], h.idx[c]
		c = l
	}
	h.sKey = h.key[0]
}

// search offers every point j of the tree with d(p, x_j) + w[j] below
// h.sKey to h (so h ends with the k least, all below the threshold it
// started with). Subtrees are visited nearest box first and skipped when
// their bound cannot beat the threshold.
func (t *kdTree) search(px, py float64, h *kbest) {
	if len(t.nodes) > 0 {
		t.visit(0, px, py, h)
	}
}

func (t *kdTree) visit(k int32, px, py float64, h *kbest) {
	nd := &t.nodes[k]
	if nd.kid == noKid {
		for _, p := range t.perm[nd.lo:nd.hi] {
			dx, dy := t.x[p]-px, t.y[p]-py
			v := math.Sqrt(dx*dx + dy*dy)
			if t.w != nil {
				v += t.w[p]
			}
			if v < h.sKey {
				h.offer(v, p)
			}
		}
		return
	}
	a, b := nd.kid, nd.kid+1
	la, lb := t.bound(a, px, py), t.bound(b, px, py)
	if lb < la {
		a, b, la, lb = b, a, lb, la
	}
	if la < h.sKey {
		t.visit(a, px, py, h)
	}
	if lb < h.sKey {
		t.visit(b, px, py, h)
	}
}

// bound is a lower bound of the keys in node k's subtree.
func (t *kdTree) bound(k int32, px, py float64) float64 {
	v := t.nodes[k].boxDist(px, py)
	if t.w != nil {
		v += t.wmin[k]
	}
	return v
}
