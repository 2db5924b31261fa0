package emd

// indexHeap is a binary min-heap of indices (supplies of a greedy start)
// in the order less gives; the greedy starts keep each supply's cheapest
// live arc in one, keyed by that arc's cost.
type indexHeap struct {
	items []int
	less  func(a, b int) bool
}

// push adds x.
func (h *indexHeap) push(x int) {
	h.items = append(h.items, x)
	for k := len(h.items) - 1; k != 0; {
		p := (k - 1) / 2
		if !h.less(h.items[k], h.items[p]) {
			break
		}
		h.items[p], h.items[k] = h.items[k], h.items[p]
		k = p
	}
}

// down restores the order below the top after its key grew.
func (h *indexHeap) down() {
	it := h.items
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(it) {
			return
		}
		if c+1 < len(it) && h.less(it[c+1], it[c]) {
			c++
		}
		if !h.less(it[c], it[k]) {
			return
		}
		it[k], it[c] = it[c], it[k]
		k = c
	}
}

// pop removes the top.
func (h *indexHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	h.down()
}
