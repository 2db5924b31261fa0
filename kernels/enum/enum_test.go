package enum_test

import (
	"slices"
	"testing"

	"privic/kernels/enum"
)

type kind int

var kinds = enum.New[kind]("kind", "kind", "first", "mid", "last")

// TestNamesAndParse: every value in the table has its name and parses
// back, the first and last included; values outside it print as typ(v);
// unknown names are refused with the list of known ones.
func TestNamesAndParse(t *testing.T) {
	for v, want := range []string{"first", "mid", "last"} {
		if got := kinds.String(kind(v)); got != want {
			t.Errorf("String(%d) = %q, want %q", v, got, want)
		}
		if got, err := kinds.Parse(want); err != nil || got != kind(v) {
			t.Errorf("Parse(%q) = %d, %v; want %d", want, got, err, v)
		}
	}
	for v, want := range map[kind]string{-1: "kind(-1)", 3: "kind(3)", 9: "kind(9)"} {
		if got := kinds.String(v); got != want {
			t.Errorf("String(%d) = %q, want %q", v, got, want)
		}
	}
	for _, str := range []string{"", "First", "firs", "last "} {
		_, err := kinds.Parse(str)
		if want := `unknown kind "` + str + `" (known: first, mid, last)`; err == nil || err.Error() != want {
			t.Errorf("Parse(%q): error %v, want %s", str, err, want)
		}
	}
	if got := kinds.List(); !slices.Equal(got, []string{"first", "mid", "last"}) {
		t.Errorf("List() = %q", got)
	}
}

// TestMarshalRoundTrip: Marshal spells every named value, Unmarshal reads
// it back; a value without a name does not marshal, and an unknown name
// leaves the destination alone.
func TestMarshalRoundTrip(t *testing.T) {
	for v := kind(0); v < 3; v++ {
		b, err := kinds.Marshal(v)
		if err != nil || string(b) != kinds.String(v) {
			t.Fatalf("Marshal(%d) = %q, %v", v, b, err)
		}
		got := kind(-5)
		if err := kinds.Unmarshal(b, &got); err != nil || got != v {
			t.Errorf("Unmarshal(%q) = %d, %v; want %d", b, got, err, v)
		}
	}
	for _, v := range []kind{-1, 3} {
		if _, err := kinds.Marshal(v); err == nil || err.Error() != "invalid kind "+map[kind]string{-1: "-1", 3: "3"}[v] {
			t.Errorf("Marshal(%d): error %v", v, err)
		}
	}
	got := kind(2)
	if err := kinds.Unmarshal([]byte("middle"), &got); err == nil || got != 2 {
		t.Errorf("Unmarshal(middle) = %d, %v; want an error and the value kept", got, err)
	}
}

// TestNewCopiesNames: the table is the caller's no more once made.
func TestNewCopiesNames(t *testing.T) {
	names := []string{"a", "b"}
	n := enum.New[kind]("kind", "kind", names...)
	names[0] = "z"
	n.List()[1] = "y"
	if n.String(0) != "a" || n.String(1) != "b" {
		t.Errorf("names changed with the caller's slice: %q", n.List())
	}
}
