package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"privic/internal/tomlval"
)

// MaxSweepLen bounds the number of values one sweep may expand to, so that
// a typo such as step = 1e-9 is refused instead of allocating gigabytes.
const MaxSweepLen = 100_000

// Sweep is a list of parameter values written in a spec either as a
// number (`beta = 0.5`), a list (`beta = [0.5, 1]`) or a range
// (`beta = {start = 0.2, stop = 5.0, step = 0.2}`, stop inclusive).
// Range values are start + k*step rounded to 12 significant digits so
// that 0.2*k prints as 0.6 and not 0.6000000000000001; values that are
// zero up to rounding are exactly 0. Every value is finite and no value
// repeats (a repeat would plan two identical jobs). The zero Sweep is
// empty; kinds set defaults with SweepOf or SweepRange.
type Sweep struct {
	values []float64
	// The range form is kept so that a spec written back (Spec.Encode)
	// reads as the user wrote it.
	isRange           bool
	start, stop, step float64
}

// SweepOf returns a list sweep of the given values (for defaults).
func SweepOf(values ...float64) Sweep {
	return Sweep{values: slices.Clone(values)}
}

// SweepRange returns the range sweep start, start+step, ..., stop.
func SweepRange(start, stop, step float64) (Sweep, error) {
	vals, err := expandRange(start, stop, step)
	if err != nil {
		return Sweep{}, err
	}
	return Sweep{values: vals, isRange: true, start: start, stop: stop, step: step}, nil
}

// Values returns a copy of the sweep's values in order.
func (s Sweep) Values() []float64 { return slices.Clone(s.values) }

// Len is the number of values.
func (s Sweep) Len() int { return len(s.values) }

// String renders the sweep in TOML syntax.
func (s Sweep) String() string {
	if s.isRange {
		return fmt.Sprintf("{start = %s, stop = %s, step = %s}",
			tomlFloat(s.start), tomlFloat(s.stop), tomlFloat(s.step))
	}
	parts := make([]string, len(s.values))
	for i, v := range s.values {
		parts[i] = tomlFloat(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Check applies rule to every value and reports the first violation in
// the project's error form, e.g. `params.beta[3] = -0.2: beta must be > 0`.
// key is the key as it should appear in the message; allowed says what
// is allowed.
func (s Sweep) Check(key, allowed string, ok func(v float64) bool) error {
	for i, v := range s.values {
		if !ok(v) {
			return fmt.Errorf("%s[%d] = %s: %s", key, i, FormatFloat(v), allowed)
		}
	}
	return nil
}

// CheckCounts checks a sweep of counts (sample sizes, grid sides): it
// must hold at least one value (else `<key>: give at least one <one>`),
// and every value must be an integer in [lo, hi] (else Check's message
// with allowed).
func (s Sweep) CheckCounts(key, one string, lo, hi float64, allowed string) error {
	if len(s.values) == 0 {
		return fmt.Errorf("%s: give at least one %s", key, one)
	}
	return s.Check(key, allowed, func(v float64) bool { return v >= lo && v <= hi && v == math.Trunc(v) })
}

// UnmarshalTOML implements toml.Unmarshaler.
func (s *Sweep) UnmarshalTOML(data any) error {
	switch d := data.(type) {
	case int64, float64:
		v, _ := tomlNumber(d)
		if err := checkFinite(v, ""); err != nil {
			return err
		}
		*s = Sweep{values: []float64{v}}
		return nil
	case []any:
		if len(d) == 0 {
			return errors.New("empty sweep: give at least one value")
		}
		if len(d) > MaxSweepLen {
			return fmt.Errorf("sweep has %d values, at most %d allowed", len(d), MaxSweepLen)
		}
		vals := make([]float64, len(d))
		for i, e := range d {
			v, ok := tomlNumber(e)
			if !ok {
				return fmt.Errorf("[%d] is %s: a sweep is a number, a list of numbers or {start, stop, step}", i, tomlval.Kind(e))
			}
			if err := checkFinite(v, fmt.Sprintf("[%d]", i)); err != nil {
				return err
			}
			vals[i] = v
		}
		if err := checkDistinct(vals); err != nil {
			return err
		}
		*s = Sweep{values: vals}
		return nil
	case map[string]any:
		var got [3]float64
		names := [3]string{"start", "stop", "step"}
		for k := range d {
			if !slices.Contains(names[:], k) {
				return fmt.Errorf("unknown key %q in range (allowed: start, stop, step)", k)
			}
		}
		for i, n := range names {
			e, present := d[n]
			if !present {
				return fmt.Errorf("range needs start, stop and step; %s is missing", n)
			}
			v, ok := tomlNumber(e)
			if !ok {
				return fmt.Errorf("range %s is %s: want a number", n, tomlval.Kind(e))
			}
			got[i] = v
		}
		sw, err := SweepRange(got[0], got[1], got[2])
		if err != nil {
			return err
		}
		*s = sw
		return nil
	default:
		return fmt.Errorf("got %s: a sweep is a number, a list of numbers or {start, stop, step}", tomlval.Kind(data))
	}
}

// MarshalTOML implements toml.Marshaler (Spec.Encode round-trips sweeps).
func (s Sweep) MarshalTOML() ([]byte, error) { return []byte(s.String()), nil }

// MarshalJSON writes the values: the spec hash depends on what a sweep
// expands to, not on how it was written.
func (s Sweep) MarshalJSON() ([]byte, error) {
	for _, v := range s.values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("sweep value %s is not finite", FormatFloat(v))
		}
	}
	vals := s.values
	if vals == nil {
		vals = []float64{}
	}
	return json.Marshal(vals)
}

func expandRange(start, stop, step float64) ([]float64, error) {
	for _, x := range []struct {
		n string
		v float64
	}{{"start", start}, {"stop", stop}, {"step", step}} {
		if err := checkFinite(x.v, x.n); err != nil {
			return nil, err
		}
	}
	if step <= 0 {
		return nil, fmt.Errorf("range step = %s: step must be > 0", FormatFloat(step))
	}
	if stop < start {
		return nil, fmt.Errorf("range stop = %s < start = %s: stop must be >= start", FormatFloat(stop), FormatFloat(start))
	}
	// The 1e-9 slack keeps stop when (stop-start)/step lands just below an
	// integer through rounding (e.g. (5-0.2)/0.2 = 23.999999999999996).
	steps := math.Floor((stop-start)/step + 1e-9)
	if steps+1 > MaxSweepLen {
		return nil, fmt.Errorf("range gives more than %d values (step too small for the span)", MaxSweepLen)
	}
	n := int(steps) + 1
	vals := make([]float64, n)
	for k := range vals {
		v := start + float64(k)*step
		if math.Abs(v) < 1e-9*step {
			v = 0
		}
		vals[k] = round12(v)
	}
	if err := checkDistinct(vals); err != nil {
		return nil, fmt.Errorf("range step %s is too small for 12 significant digits: %w", FormatFloat(step), err)
	}
	return vals, nil
}

func round12(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		return v
	}
	return r
}

func checkFinite(v float64, what string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if what != "" {
			what += " = "
		}
		return fmt.Errorf("%s%s: sweep values must be finite numbers", what, FormatFloat(v))
	}
	return nil
}

func checkDistinct(vals []float64) error {
	seen := make(map[float64]int, len(vals))
	for i, v := range vals {
		if j, dup := seen[v]; dup {
			return fmt.Errorf("[%d] = %s repeats [%d]: sweep values must be distinct", i, FormatFloat(v), j)
		}
		seen[v] = i
	}
	return nil
}

func tomlNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// tomlFloat writes a float the way TOML parses it back exactly.
func tomlFloat(v float64) string {
	if s, ok := nonFinite(v, "nan", "inf", "-inf"); ok {
		return s
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}
