package emd

import "math"

// dense prices the arcs of a dense row-major n x m cost matrix for the
// network simplex, and builds its greedy start.
type dense struct {
	cost  []float64 // n*m, row-major
	next  int       // pricing resumes at this arc
	block int       // arcs per pricing block

	// Workspace of matrixMinimum.
	resid  []float64
	active []int
	heap   indexHeap
	hkey   []float64
	hbest  []int
}

// reset prices the n x m matrix cost (kept by reference) from its first
// arc, in blocks of about sqrt(n*m) arcs.
func (s *dense) reset(n, m int, cost []float64) {
	s.cost = cost
	s.next = 0
	s.block = max(16, int(math.Sqrt(float64(n*m))))
}

// matrixMinimum is the greedy start: repeatedly ship as much as possible
// along the cheapest arc between a supply and a demand that both have mass
// left. Each supply's cheapest live demand sits in a binary heap keyed by
// that cost; entries made stale by an exhausted demand are refreshed lazily
// when they reach the top. On grid problems this start needs about a third
// of the pivots of a row-by-row greedy start.
func (s *dense) matrixMinimum(t *network, supply, demand []float64) {
	n, m := t.n, t.m
	s.resid = grow(s.resid, n+m)
	rs, rd := s.resid[:n], s.resid[n:n+m]
	copy(rs, supply)
	copy(rd, demand)
	// live demands, compact, with positions for O(1) removal
	s.active = grow(s.active, 2*m)
	act, pos := s.active[:m], s.active[m:2*m]
	for j := range act {
		act[j], pos[j] = j, j
	}
	nact := m
	s.hkey = grow(s.hkey, n)
	s.hbest = grow(s.hbest, n)
	scan := func(i int) {
		row := s.cost[i*m : (i+1)*m]
		bj := act[0]
		bc := row[bj]
		for _, j := range act[1:nact] {
			if c := row[j]; c < bc {
				bc, bj = c, j
			}
		}
		s.hkey[i], s.hbest[i] = bc, bj
	}
	key := s.hkey
	s.heap.items = s.heap.items[:0]
	s.heap.less = func(a, b int) bool { return key[a] < key[b] }
	for i := 0; i < n; i++ {
		scan(i)
		s.heap.push(i)
	}
	t.edges = t.edges[:0]
	heap := &s.heap
	for len(heap.items) > 0 && nact > 0 {
		i := heap.items[0]
		j := s.hbest[i]
		if pos[j] < 0 {
			scan(i)
			heap.down()
			continue
		}
		f := min(rs[i], rd[j])
		t.edges = append(t.edges, edge{i, j, f, s.cost[i*m+j]})
		rs[i] -= f
		rd[j] -= f
		if rd[j] <= 0 {
			p := pos[j]
			last := act[nact-1]
			act[p], pos[last] = last, p
			pos[j] = -1
			nact--
		}
		if rs[i] <= 0 {
			heap.pop()
		} else if nact > 0 {
			scan(i)
			heap.down()
		}
	}
}

// price returns an arc with reduced cost < -eps by block search: arcs are
// scanned row by row from where the last search stopped and, after each
// block, the most negative arc seen so far is returned. It returns i = -1
// when a full sweep finds none.
func (s *dense) price(t *network) (int, int, float64) {
	n, m := t.n, t.m
	total := n * m
	piD := t.pi[n : n+m]
	pi := t.pi
	best := -t.eps
	bestArc := -1
	i, j := s.next/m, s.next%m
	inBlock := 0
	for scanned := 0; scanned < total; {
		lim := min(m, j+s.block-inBlock)
		row := s.cost[i*m+j : i*m+lim]
		d := piD[j:lim]
		// Compare cost - piD against best - pi[i] to keep the loop to one
		// subtraction per arc.
		thr, bk := argminBelow(row, d, best-pi[i])
		if bk >= 0 {
			best = thr + pi[i]
			bestArc = i*m + j + bk
		}
		cnt := lim - j
		scanned += cnt
		inBlock += cnt
		if lim == m {
			j = 0
			if i++; i == n {
				i = 0
			}
		} else {
			j = lim
		}
		if inBlock >= s.block {
			if bestArc >= 0 {
				s.next = i*m + j
				return bestArc / m, bestArc % m, s.cost[bestArc]
			}
			inBlock = 0
		}
	}
	if bestArc < 0 {
		return -1, 0, 0
	}
	s.next = i*m + j
	return bestArc / m, bestArc % m, s.cost[bestArc]
}

// argminBelow returns the smallest row[k]-d[k] that is below thr, and its
// k, or (thr, -1) if there is none. It is the pricing hot loop. Improvements
// are rare once a block is under way, so a pre-scan (scanBelow: vector
// instructions where the CPU has them) skips to the next group of four
// entries holding one below the current threshold, and that group is
// settled in order with the same scalar comparisons; the result is the
// same as a plain loop's. Kept out of line so that its loop variables stay
// in registers.
//
//go:noinline
func argminBelow(row, d []float64, thr float64) (float64, int) {
	d = d[:len(row)]
	bk := -1
	n4 := len(row) &^ 3
	for k := scanBelow(row, d, 0, n4, thr); k < n4; k = scanBelow(row, d, k+4, n4, thr) {
		for i := k; i < k+4; i++ {
			if r := row[i] - d[i]; r < thr {
				thr, bk = r, i
			}
		}
	}
	for k := n4; k < len(row); k++ {
		if r := row[k] - d[k]; r < thr {
			thr, bk = r, k
		}
	}
	return thr, bk
}

// scanBelowGo is the portable scanBelow: row, d, k and n4 as there.
func scanBelowGo(row, d []float64, k, n4 int, thr float64) int {
	for ; k < n4; k += 4 {
		r0 := row[k] - d[k]
		r1 := row[k+1] - d[k+1]
		r2 := row[k+2] - d[k+2]
		r3 := row[k+3] - d[k+3]
		if r0 < thr || r1 < thr || r2 < thr || r3 < thr {
			return k
		}
	}
	return n4
}
