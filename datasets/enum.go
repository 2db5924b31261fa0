package datasets

import (
	"fmt"
	"strconv"
	"strings"
)

// enum spells the values 0, 1, ... of an enumerated type by name, for
// String, parsing and the text (un)marshalling that lets specs and
// manifests use the names.
type enum[T ~int] struct {
	typ   string   // the Go type, for values without a name
	what  string   // what a value is, for errors ("row policy")
	names []string // by value
}

func (e enum[T]) valid(v T) bool { return v >= 0 && int(v) < len(e.names) }

func (e enum[T]) String(v T) string {
	if !e.valid(v) {
		return fmt.Sprintf("%s(%d)", e.typ, int(v))
	}
	return e.names[v]
}

func (e enum[T]) Parse(s string) (T, error) {
	for i, n := range e.names {
		if s == n {
			return T(i), nil
		}
	}
	q := make([]string, len(e.names))
	for i, n := range e.names {
		q[i] = strconv.Quote(n)
	}
	return 0, fmt.Errorf("unknown %s %q: want %s", e.what, s, strings.Join(q, " or "))
}

func (e enum[T]) Marshal(v T) ([]byte, error) {
	if !e.valid(v) {
		return nil, fmt.Errorf("invalid %s %d", e.what, int(v))
	}
	return []byte(e.names[v]), nil
}

func (e enum[T]) Unmarshal(b []byte, v *T) error {
	p, err := e.Parse(string(b))
	if err == nil {
		*v = p
	}
	return err
}
