package enum

import (
	"fmt"
	"slices"
	"strings"
)

// Names spells the values of T, by value from 0. Its zero value has no
// names; make one with New. A Names is read-only once made.
type Names[T ~int] struct {
	typ   string   // the Go type, for values without a name ("Target(7)")
	what  string   // what a value is, for errors ("calibration target")
	names []string // by value
}

// New returns the spellings names of the values 0, 1, ... of T; typ is
// T's Go name (for values without a name) and what says what a value is
// in errors.
func New[T ~int](typ, what string, names ...string) Names[T] {
	return Names[T]{typ: typ, what: what, names: slices.Clone(names)}
}

// List returns the names, by value.
func (n Names[T]) List() []string { return slices.Clone(n.names) }

// Valid reports whether v has a name.
func (n Names[T]) Valid(v T) bool { return v >= 0 && int(v) < len(n.names) }

// String returns the name of v, or typ(v) for a value without a name.
func (n Names[T]) String(v T) string {
	if !n.Valid(v) {
		return fmt.Sprintf("%s(%d)", n.typ, int(v))
	}
	return n.names[v]
}

// Parse returns the value named s; the error says what a value is and
// lists the names.
func (n Names[T]) Parse(s string) (T, error) {
	if i := slices.Index(n.names, s); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (known: %s)", n.what, s, strings.Join(n.names, ", "))
}

// Marshal is MarshalText for T: the name of v, or an error for a value
// without one.
func (n Names[T]) Marshal(v T) ([]byte, error) {
	if !n.Valid(v) {
		return nil, fmt.Errorf("invalid %s %d", n.what, int(v))
	}
	return []byte(n.names[v]), nil
}

// Unmarshal is UnmarshalText for T: it sets *v to the value named b and
// leaves *v alone on error.
func (n Names[T]) Unmarshal(b []byte, v *T) error {
	p, err := n.Parse(string(b))
	if err == nil {
		*v = p
	}
	return err
}
