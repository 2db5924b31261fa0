package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// LineError is a malformed input line: the file, the 1-based line number
// and what is wrong with it.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// maxLine bounds the bytes kept for one line, so a corrupt file without
// newlines cannot grow the reader's memory; longer lines are malformed.
const maxLine = 64 << 10

// lineReader yields lines without their terminator (LF or CRLF) in
// constant memory. The returned slice is valid until the next call.
type lineReader struct {
	br   *bufio.Reader
	line int
}

// decompress returns r itself, or a gzip reader when r starts with the
// gzip magic bytes 0x1f 0x8b, so plain and compressed files are read alike.
func decompress(r io.Reader) (io.Reader, func() error, error) {
	br := bufio.NewReaderSize(r, maxLine)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip header: %w", err)
		}
		return zr, zr.Close, nil
	}
	return br, func() error { return nil }, nil
}

func newLineReader(r io.Reader) *lineReader {
	if br, ok := r.(*bufio.Reader); ok && br.Size() >= maxLine {
		return &lineReader{br: br}
	}
	return &lineReader{br: bufio.NewReaderSize(r, maxLine)}
}

// next returns the next line. tooLong reports a line longer than maxLine,
// whose bytes were skipped. At the end of input it returns io.EOF.
// eachLine decompresses r (see decompress) and calls fn with every line,
// its byte-order mark stripped, whether it was longer than maxLine (and
// so cut), and its number, until the end or fn's first error; read errors
// name the file and the line.
func eachLine(r io.Reader, name string, fn func(line []byte, tooLong bool, no int) error) error {
	dr, closeFn, err := decompress(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer closeFn()
	return eachPlainLine(dr, name, fn)
}

// eachPlainLine is eachLine on input that is not compressed.
func eachPlainLine(dr io.Reader, name string, fn func(line []byte, tooLong bool, no int) error) error {
	lr := newLineReader(dr)
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, lr.line+1, err)
		}
		if err := fn(stripBOM(line, lr.line), tooLong, lr.line); err != nil {
			return err
		}
	}
}

func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := lr.br.ReadSlice('\n')
		switch {
		case err == nil:
			lr.line++
			if tooLong {
				return nil, true, nil
			}
			chunk = chunk[:len(chunk)-1]
			if n := len(chunk); n > 0 && chunk[n-1] == '\r' {
				chunk = chunk[:n-1]
			}
			return chunk, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			tooLong = true // drop this chunk and keep reading to the newline
		case errors.Is(err, io.EOF):
			if len(chunk) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			lr.line++ // last line without a newline
			if tooLong {
				return nil, true, nil
			}
			if n := len(chunk); n > 0 && chunk[n-1] == '\r' {
				chunk = chunk[:n-1]
			}
			return chunk, false, nil
		default:
			return nil, false, err
		}
	}
}

// splitFields splits line at sep into dst (no allocation) and returns the
// number of fields; it stops counting beyond len(dst)+1.
func splitFields(line []byte, sep byte, dst [][]byte) int {
	n := 0
	for {
		i := bytes.IndexByte(line, sep)
		if n < len(dst) {
			if i < 0 {
				dst[n] = line
			} else {
				dst[n] = line[:i]
			}
		}
		n++
		if i < 0 || n > len(dst) {
			return n
		}
		line = line[i+1:]
	}
}

// parseCoord parses a latitude (limit 90) or longitude (limit 180).
// The message, when not empty, says what is wrong.
func parseCoord(field []byte, what string, limit float64) (float64, string) {
	// The string conversion must not escape (no allocation per line), so
	// messages quote the bytes, not the string.
	b := bytes.TrimSpace(field)
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Sprintf("%s %q outside [%g, %g]", what, b, -limit, limit)
		}
		return 0, fmt.Sprintf("%s %q is not a number", what, b)
	}
	if math.IsNaN(v) {
		return 0, fmt.Sprintf("%s is NaN", what)
	}
	if v < -limit || v > limit { // also catches ±Inf
		return 0, fmt.Sprintf("%s %s outside [%g, %g]", what, b, -limit, limit)
	}
	return v, ""
}

// parseIndex parses a non-negative integer field.
func parseIndex(field []byte, what string) (int, string) {
	b := bytes.TrimSpace(field)
	v, err := strconv.Atoi(string(b))
	if err != nil {
		return 0, fmt.Sprintf("%s %q is not an integer", what, b)
	}
	if v < 0 {
		return 0, fmt.Sprintf("%s %d is negative", what, v)
	}
	return v, ""
}

// stripBOM drops a UTF-8 byte order mark from the first line.
func stripBOM(line []byte, n int) []byte {
	if n == 1 {
		return bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line
}

// unquote trims spaces and one pair of enclosing double quotes (the
// fields of counts files).
func unquote(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = bytes.TrimSpace(b[1 : len(b)-1])
	}
	return b
}
