package datasets

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// failingReader gives its text, then an error.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// TestEachLineReadError: a read error names the file and the line being
// read, after the lines before it were passed on.
func TestEachLineReadError(t *testing.T) {
	boom := errors.New("boom")
	var got []string
	err := eachLine(&failingReader{strings.NewReader("a\nb\nc"), boom}, "f.csv", func(line []byte, _ bool, no int) error {
		got = append(got, string(line))
		return nil
	})
	if !errors.Is(err, boom) || err.Error() != "f.csv:3: boom" || strings.Join(got, ",") != "a,b" {
		t.Errorf("error %v after lines %q, want f.csv:3: boom after a, b", err, got)
	}
}
