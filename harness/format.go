package harness

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// FormatFloat formats v for a table cell: the shortest decimal that parses
// back to exactly v (strconv 'g', precision -1), with "NaN", "Inf" and
// "-Inf" spelled out. Negative zero is written as "0": its sign depends on
// the order of floating-point operations, which may differ between
// machines, and no result in this project means anything by it.
func FormatFloat(v float64) string {
	if s, ok := nonFinite(v, "NaN", "Inf", "-Inf"); ok {
		return s
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// nonFinite spells NaN, +Inf and -Inf as nan, inf and negInf; ok is
// false for a finite v.
func nonFinite(v float64, nan, inf, negInf string) (s string, ok bool) {
	switch {
	case math.IsNaN(v):
		return nan, true
	case math.IsInf(v, 1):
		return inf, true
	case math.IsInf(v, -1):
		return negInf, true
	}
	return "", false
}

// ParseFloat parses a table cell written by FormatFloat (or any decimal
// or "NaN"/"Inf" spelling strconv.ParseFloat accepts).
func ParseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("parse float %q: out of the float64 range", s)
	}
	if err != nil {
		return 0, fmt.Errorf("parse float %q: not a number", s)
	}
	return v, nil
}
