package tomlval

import (
	"errors"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// TestKind decodes one key of every TOML type and checks its name.
func TestKind(t *testing.T) {
	var doc map[string]any
	src := `s = "x"
b = true
i = 3
f = 0.5
a = [1, 2]
aot = [{k = 1}]
tab = {k = 1}
d = 2024-01-02
dt = 2024-01-02T03:04:05Z
`
	if _, err := toml.Decode(src, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"s": "a string", "b": "a boolean", "i": "an integer", "f": "a float",
		"a": "an array", "aot": "an array", "tab": "a table", "d": "a date/time", "dt": "a date/time"}
	for k, w := range want {
		if got := Kind(doc[k]); got != w {
			t.Errorf("%s = %#v: Kind %q, want %q", k, doc[k], got, w)
		}
	}
	if got := Kind(nil); got != "nothing" {
		t.Errorf("Kind(nil) = %q, want nothing", got)
	}
	if got := Kind(time.Time{}); got != "a date/time" {
		t.Errorf("Kind(time.Time{}) = %q", got)
	}
}

// TestSubKey: SubKey's messages split back into the entry's key and the
// error; other messages do not split.
func TestSubKey(t *testing.T) {
	err := SubKey("paris", SubKey("x-1", errors.New("wrong type: got a string, want an integer")))
	key, rest, ok := SplitSubKey(err.Error())
	if !ok || key != "paris" || rest != ".x-1: wrong type: got a string, want an integer" {
		t.Errorf("%q split into %q, %q, %v", err, key, rest, ok)
	}
	for _, msg := range []string{"got a string: want a place", ". paris: x", ".pa ris: x", "paris: x", ".paris:x"} {
		if _, _, ok := SplitSubKey(msg); ok {
			t.Errorf("%q split", msg)
		}
	}
}
