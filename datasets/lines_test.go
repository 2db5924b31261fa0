package datasets

import (
	"bufio"
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

// TestUnquoteAndWeight: one pair of quotes is removed (even around
// nothing), and weights are finite numbers in [0, 2^40], with decimal
// points or, when told, decimal commas, with the reason for anything
// else.
func TestUnquoteAndWeight(t *testing.T) {
	for in, want := range map[string]string{`""`: "", `" a "`: "a", `"`: `"`, `a`: "a", ` "x" `: "x", `"a`: `"a`} {
		if got := string(unquote([]byte(in))); got != want {
			t.Errorf("unquote(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		in      string
		decimal byte
		want    float64
	}{{"0", '.', 0}, {"7", '.', 7}, {"1099511627776", '.', 1 << 40}, {"2.5", '.', 2.5}, {" 0.25 ", 0, 0.25}, {"2,5", ',', 2.5}, {"1e3", '.', 1000}} {
		if got, msg := parseWeight(tc.in, tc.decimal); got != tc.want || msg != "" {
			t.Errorf("parseWeight(%q, %q) = %v, %q; want %v", tc.in, tc.decimal, got, msg, tc.want)
		}
	}
	for _, tc := range []struct {
		in      string
		decimal byte
		want    string
	}{
		{"1099511627777", '.', "weight 1099511627777 is larger than 1099511627776"},
		{"-1", '.', `weight "-1" is negative`},
		{"-0.5", '.', `weight "-0.5" is negative`},
		{"x", '.', `weight "x" is not a number: want a number of check-ins >= 0`},
		{"NaN", '.', `weight "NaN" is not a number`},
		{"inf", '.', `weight "inf" is not a number`},
		{"2,5", '.', `weight "2,5" is not a number (a decimal comma? set decimal = ",")`},
		{"2.5", ',', `weight "2.5" is not a number`},
		{"1.000,5", ',', `weight "1.000,5" is not a number`},
	} {
		if _, msg := parseWeight(tc.in, tc.decimal); !strings.HasPrefix(msg, tc.want) {
			t.Errorf("parseWeight(%q, %q): %q, want %q", tc.in, tc.decimal, msg, tc.want)
		}
	}
}

// TestSNAPStatsString: the summary says "(skipped)" only when lines were
// malformed, and counts the malformed lines beyond the examples.
func TestSNAPStatsString(t *testing.T) {
	ex := &LineError{File: "f", Line: 2, Msg: "bad"}
	for _, tc := range []struct {
		s    SNAPStats
		want string
	}{
		{SNAPStats{Lines: 3, Kept: 3}, "3 lines read, 3 kept, 0 malformed"},
		{SNAPStats{Lines: 3, Kept: 2, Malformed: 1, Examples: []*LineError{ex}}, "3 lines read, 2 kept, 1 malformed (skipped)\n  f:2: bad"},
		{SNAPStats{Lines: 5, Kept: 2, Malformed: 3, Examples: []*LineError{ex}}, "5 lines read, 2 kept, 3 malformed (skipped)\n  f:2: bad\n  ... and 2 more"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestNewLineReaderSmallBuffer: a buffered reader smaller than maxLine is
// wrapped, not reused, so that lines up to maxLine are read whole.
func TestNewLineReaderSmallBuffer(t *testing.T) {
	long := strings.Repeat("x", 100)
	lr := newLineReader(bufio.NewReaderSize(strings.NewReader(long+"\nb\n"), 16))
	line, tooLong, err := lr.next()
	if err != nil || tooLong || string(line) != long {
		t.Errorf("first line: %d bytes, too long %v, %v; want the 100 bytes", len(line), tooLong, err)
	}
}
