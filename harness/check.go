package harness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Validation helpers for the kinds' Params.Validate: each names the key
// as params.<key> and says what is allowed.

// OneOf checks the string parameter params.<key> = v against allowed.
func OneOf(key, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("params.%s = %q: allowed values are %s", key, v, QuoteJoin(allowed))
}

// PositiveFinite checks that params.<key> = v is finite and > 0 (NaN
// fails).
func PositiveFinite(key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("params.%s = %v: must be finite and > 0", key, v)
	}
	return nil
}

// IntIn checks that the integer parameter params.<key> = v lies in
// [lo, hi].
func IntIn(key string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("params.%s = %d: must lie in [%d, %d]", key, v, lo, hi)
	}
	return nil
}

// QuoteJoin quotes every value and joins them with ", " (for error
// messages listing the allowed values).
func QuoteJoin(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
