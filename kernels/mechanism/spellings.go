package mechanism

import (
	"fmt"
	"slices"
	"strings"
)

// spellings are the names of an integer enumeration (Target, Method,
// PointModel), indexed by value from 0: one table serves both String and
// the parser of spec files, so the two cannot drift apart.
type spellings[T ~int] []string

// name returns the spelling of v, or typ(v) for a value outside the table.
func (s spellings[T]) name(typ string, v T) string {
	if v >= 0 && int(v) < len(s) {
		return s[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parse returns the value spelt str; the error names the enumeration
// (what) and lists the known spellings.
func (s spellings[T]) parse(what, str string) (T, error) {
	if i := slices.Index(s, str); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (known: %s)", what, str, strings.Join(s, ", "))
}
