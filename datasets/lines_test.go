package datasets

import (
	"errors"
	"fmt"
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

// TestEachLineTerminators: LF and CRLF end lines, a last line may lack
// its newline (with or without its CR), and the line numbers count them.
func TestEachLineTerminators(t *testing.T) {
	var got []string
	err := eachLine(strings.NewReader("a\r\nb\n\r\nc\r"), "f.csv", func(line []byte, tooLong bool, no int) error {
		got = append(got, fmt.Sprintf("%d:%q:%v", no, line, tooLong))
		return nil
	})
	want := `1:"a":false 2:"b":false 3:"":false 4:"c":false`
	if err != nil || strings.Join(got, " ") != want {
		t.Errorf("lines %v, %v; want %s", got, err, want)
	}
}
