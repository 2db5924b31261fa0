package mechanism

import (
	"errors"
	"fmt"
	"math"

	"privic/kernels"
)

// Operator is implemented by mechanisms whose channel has a structured
// form, a kernels.ChannelOp that applies, samples and measures the
// channel without its |In| x |Out| matrix: BA (factorised), LAP (a
// stencil), RR (closed form) and the snapped planar Laplace (translation
// invariant away from the border). Experiments use it on grids where the
// dense channel would be too large; mechanisms without it (the optimal
// LP mechanism) stay dense and keep the dense channel's cap.
type Operator interface {
	Mechanism
	// Op builds the channel Channel(in, out, prior, param) would, as an
	// operator.
	Op(in, out kernels.Grid, prior []float64, param float64) (kernels.ChannelOp, error)
}

// Op implements Operator: the factorised BA channel (see Run).
func (m BA) Op(in, out kernels.Grid, prior []float64, beta float64) (kernels.ChannelOp, error) {
	b, err := m.Run(in, out, prior, beta)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Op implements Operator: kernels.LaplaceOp (out must contain in, as the
// widened grids of the experiments do); the prior is ignored.
func (m LAP) Op(in, out kernels.Grid, _ []float64, eps float64) (kernels.ChannelOp, error) {
	return checkedBuild(m, in, out, eps, func(in, out kernels.Grid, eps float64) (kernels.ChannelOp, error) {
		return kernels.NewLaplaceOp(in, out, eps)
	})
}

// Op implements Operator: kernels.RROp; out must equal in, the prior is
// ignored.
func (m RR) Op(in, out kernels.Grid, _ []float64, eps float64) (kernels.ChannelOp, error) {
	return checkedBuild(m, in, out, eps, func(in, _ kernels.Grid, eps float64) (kernels.ChannelOp, error) {
		return kernels.NewRROp(in, eps)
	})
}

// opMeasurer is implemented by the operators of this package, which
// compute their metrics themselves (the kernels' metric functions serve
// the kernels' operators).
type opMeasurer interface {
	AvgDistortion(prior []float64) (float64, error)
	MutualInformation(prior []float64) (float64, error)
}

// TargetValue computes target t of a channel under prior: its tight
// epsilon (op.TightEpsilon; prior unused), average distortion or mutual
// information in nats (kernels.AvgDistortion and
// kernels.MutualInformation, or the operator's own methods).
func TargetValue(t Target, prior []float64, op kernels.ChannelOp) (float64, error) {
	if op == nil {
		return 0, fmt.Errorf("channel is nil")
	}
	pm, own := op.(opMeasurer)
	switch t {
	case TargetEps:
		return op.TightEpsilon()
	case TargetDistortion:
		if own {
			return pm.AvgDistortion(prior)
		}
		return kernels.AvgDistortion(prior, op)
	case TargetMI:
		if own {
			return pm.MutualInformation(prior)
		}
		return kernels.MutualInformation(prior, op)
	}
	return 0, fmt.Errorf("unknown target %d", int(t))
}

// measureOp is Measure on an operator.
func measureOp(prior []float64, op kernels.ChannelOp, mech Mechanism, p float64) (m Metrics, skipped []string, err error) {
	if op == nil {
		return m, nil, fmt.Errorf("measure: channel is nil")
	}
	if m.AvgDistortion, err = TargetValue(TargetDistortion, prior, op); err != nil {
		return m, nil, fmt.Errorf("measure: %w", err)
	}
	if m.MutualInformation, err = TargetValue(TargetMI, prior, op); err != nil {
		return m, nil, fmt.Errorf("measure: %w", err)
	}
	m.TightEps, err = op.TightEpsilon()
	if errors.Is(err, ErrIntractable) {
		m.TightEps = math.NaN()
		skipped = append(skipped, err.Error())
	} else if err != nil {
		return m, nil, fmt.Errorf("measure: %w", err)
	}
	in, out := op.Grids()
	if mech != nil && float64(out.Len())*float64(in.Len())*float64(in.Len()) <= BayesErrorMaxOps {
		ch, err := mech.Channel(in, out, prior, p)
		if err != nil {
			return m, nil, fmt.Errorf("measure: %w", err)
		}
		if m.BayesError, err = kernels.BayesError(prior, ch); err != nil {
			return m, nil, fmt.Errorf("measure: %w", err)
		}
		return m, skipped, nil
	}
	m.BayesError = math.NaN()
	skipped = append(skipped, fmt.Sprintf("Bayes error on %v -> %v: a minimum over %d guesses for each of %d reports, O(|Y| |X|^2) = %.3g operations: %v",
		in, out, in.Len(), out.Len(), float64(out.Len())*float64(in.Len())*float64(in.Len()), ErrIntractable))
	return m, skipped, nil
}

// BayesErrorMaxOps bounds the work of a Bayes error on the dense channel
// (|Y| |X|^2 multiply-adds, about 10 s): Measure computes it for an
// operator up to there and leaves it out above.
const BayesErrorMaxOps = 1e10

// identificationOp is Identification on an operator: the columns C e_y
// one at a time (from the operator's Column method when it has one, as
// PlanarOp does), O(|X| |Y|) time at best and O(|X| + |Y|) memory.
func identificationOp(prior []float64, op kernels.ChannelOp, a int) (posterior, mapProb float64, err error) {
	if op == nil {
		return 0, 0, fmt.Errorf("identification: channel is nil")
	}
	in, out := op.Grids()
	if err := checkPrior("identification", in, prior); err != nil {
		return 0, 0, err
	}
	m, n := in.Len(), out.Len()
	if a < 0 || a >= m {
		return 0, 0, fmt.Errorf("identification: cell %d outside the %d cells of %v", a, m, in)
	}
	e := make([]float64, n)
	col := make([]float64, m)
	cols, direct := op.(interface{ Column(dst []float64, y int) })
	for y := range n {
		if direct {
			cols.Column(col, y)
		} else {
			e[y] = 1
			err := op.Apply(col, e)
			e[y] = 0
			if err != nil {
				return 0, 0, fmt.Errorf("identification: column %d: %w", y, err)
			}
		}
		p, mp := identifyReport(prior, col, a)
		posterior += p
		mapProb += mp
	}
	return posterior, mapProb, nil
}
