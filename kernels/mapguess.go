package kernels

import (
	"fmt"
	"slices"
)

// MAPGuess returns, for a channel under prior (over its input grid), the
// output marginal q = prior C and, for every output y, the input x with
// the largest prior(x) C[x,y]: the maximum a posteriori guess of the true
// cell from report y (-1 when no input reaches y; ties to the lowest
// index). It is what a Bayesian adversary who knows the prior guesses.
//
// Cost: dense channels and operators without structure, O(|X| |Y|) (the
// latter column by column, C e_y, in O(|X| + |Y|) memory); RROp, O(m);
// factorised channels (BA in the linear domain, LAP), where prior(x)
// C[x,y] = c(y) w(x) K(x,y) with w = prior / Z, a search of windows around
// y grown until the kernel's decay bounds every term outside below the
// best found, usually a few dozen cells per output.
func MAPGuess(prior []float64, op ChannelOp) (q []float64, arg []int, err error) {
	if op == nil {
		return nil, nil, fmt.Errorf("map guess: channel is nil")
	}
	in, _ := op.Grids()
	if err := checkDist("map guess: prior", prior, in.Len()); err != nil {
		return nil, nil, err
	}
	if q, err = Marginal(prior, op); err != nil {
		return nil, nil, fmt.Errorf("map guess: %w", err)
	}
	if ch := denseOf(op); ch != nil {
		return q, denseMAP(prior, ch), nil
	}
	switch c := op.(type) {
	case factorisedBA:
		if !c.logDomain {
			return q, c.fac().mapGuess(prior), nil
		}
	case *BAChannel:
		if !c.logDomain {
			return q, c.fac().mapGuess(prior), nil
		}
	case *LaplaceOp:
		return q, c.f.mapGuess(prior), nil
	case *RROp:
		return q, c.mapGuess(prior), nil
	}
	arg, err = columnMAP(prior, op)
	return q, arg, err
}

// denseMAP is the MAP guess of every output from the matrix.
func denseMAP(prior []float64, ch *Channel) []int {
	m, n := ch.In.Len(), ch.Out.Len()
	best := make([]float64, n)
	arg := make([]int, n)
	for y := range arg {
		arg[y] = -1
	}
	for x := range m {
		px := prior[x]
		for y, c := range ch.Row(x) {
			if v := px * c; v > best[y] {
				best[y], arg[y] = v, x
			}
		}
	}
	return arg
}

// columnMAP is the MAP guess of every output from the columns C e_y.
func columnMAP(prior []float64, op ChannelOp) ([]int, error) {
	in, out := op.Grids()
	e := make([]float64, out.Len())
	col := make([]float64, in.Len())
	arg := make([]int, out.Len())
	for y := range arg {
		e[y] = 1
		err := op.Apply(col, e)
		e[y] = 0
		if err != nil {
			return nil, fmt.Errorf("map guess: column %d: %w", y, err)
		}
		best := 0.0
		arg[y] = -1
		for x, c := range col {
			if v := prior[x] * c; v > best {
				best, arg[y] = v, x
			}
		}
	}
	return arg, nil
}

// mapGuess is the MAP guess of every output of the factorised channel:
// argmax_x w(x) K(x,y), w = prior / Z (c(y) > 0 does not change it; an
// output with c(y) = 0 is reached by no input), over windows around y of
// Chebyshev radius 1, 2, 4, ... until k(rho+1) max(w) is below the best
// found, so that no term outside can match it.
func (f *factored) mapGuess(prior []float64) []int {
	R, C := f.out.Rows, f.out.Cols
	w := make([]float64, f.out.Len())
	inOf := make([]int, f.out.Len()) // the input at each output position, -1 if none
	for i := range inOf {
		inOf[i] = -1
	}
	wmax := 0.0
	for x, p := range prior {
		o := f.idx(x)
		v := p / f.z[x]
		w[o], inOf[o] = v, x
		wmax = max(wmax, v)
	}
	st := f.kp.st
	arg := make([]int, f.out.Len())
	for y := range arg {
		arg[y] = -1
		if f.c != nil && f.c[y] == 0 {
			continue
		}
		ry, cy := y/C, y%C
		best := 0.0
		for rho := 1; ; rho *= 2 {
			for rx := max(0, ry-rho); rx <= min(R-1, ry+rho); rx++ {
				for cx := max(0, cy-rho); cx <= min(C-1, cy+rho); cx++ {
					o := rx*C + cx
					v := w[o]
					if v == 0 {
						continue
					}
					v *= st.at(abs(rx-ry), abs(cx-cy))
					if x := inOf[o]; v > best || (v == best && x < arg[y]) {
						best, arg[y] = v, x
					}
				}
			}
			if rho >= max(R, C) || f.kp.tailMax(rho)*wmax < best {
				break
			}
		}
	}
	return arg
}

// mapGuess is the MAP guess of randomized response in closed form: the
// report y itself when p prior(y) >= q max_{x != y} prior(x), else the
// most likely other cell (the lowest index among ties).
func (r *RROp) mapGuess(prior []float64) []int {
	k := len(prior)
	arg := make([]int, k)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	// The two most likely cells, lowest index first among ties.
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case prior[a] > prior[b]:
			return -1
		case prior[a] < prior[b]:
			return 1
		}
		return 0
	})
	for y := range arg {
		top := order[0]
		if top == y && k > 1 {
			top = order[1]
		}
		self, other := r.p*prior[y], r.q*prior[top]
		switch {
		case k == 1 || self > other || (self == other && y < top):
			arg[y] = y
		case other > 0:
			arg[y] = top
		default:
			arg[y] = -1
		}
		if self == 0 && other == 0 {
			arg[y] = -1
		}
	}
	return arg
}
