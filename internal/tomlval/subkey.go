package tomlval

import (
	"fmt"
	"regexp"
)

// SubKey is the error of the entry key of a table that an unmarshaler
// (UnmarshalTOML) was given whole: its message starts with ".KEY: ", so
// that the spec reader, which names the table's key, can name the
// entry's ("params.cycles.paris: ..."; SplitSubKey).
func SubKey(key string, err error) error { return fmt.Errorf(".%s: %w", key, err) }

var subKey = regexp.MustCompile(`^\.([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*): (.*)$`)

// SplitSubKey splits a message made by SubKey into the entry's key and
// what is wrong; ok is false for any other message.
func SplitSubKey(msg string) (key, rest string, ok bool) {
	m := subKey.FindStringSubmatch(msg)
	if m == nil {
		return "", msg, false
	}
	return m[1], m[2], true
}
