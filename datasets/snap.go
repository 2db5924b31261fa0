package datasets

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SNAPURL is where SNAP publishes the full Gowalla check-in file
// (6,442,890 lines, tab-separated: user, time, latitude, longitude,
// location id).
const SNAPURL = "https://snap.stanford.edu/data/loc-gowalla_totalCheckins.txt.gz"

// SNAPLines is the number of lines of the SNAP file as recorded in the
// data set's README; a scan that reads a different number is reported.
const SNAPLines = 6442890

// MaxExamples is how many malformed lines a scan keeps for its report.
const MaxExamples = 5

// Checkin is one well-formed line of the SNAP file. The byte slices alias
// the reader's buffer: they are valid only until the callback returns.
type Checkin struct {
	User     int64
	Time     []byte
	Lat, Lon float64
	Location int64
	// LatText and LonText are the coordinates exactly as written, so that
	// subsets can be written without any change of digits.
	LatText, LonText []byte
}

// SNAPStats summarises a scan of a SNAP file.
type SNAPStats struct {
	Lines     int          // lines read
	Malformed int          // lines skipped as malformed
	Kept      int          // well-formed lines passed on (inside the box, for FilterSNAP)
	Examples  []*LineError // the first MaxExamples malformed lines
}

// String summarises the scan in one line, followed by the examples.
func (s SNAPStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines read, %d kept, %d malformed", s.Lines, s.Kept, s.Malformed)
	if s.Malformed > 0 {
		b.WriteString(" (skipped)")
	}
	for _, e := range s.Examples {
		fmt.Fprintf(&b, "\n  %v", e)
	}
	if s.Malformed > len(s.Examples) {
		fmt.Fprintf(&b, "\n  ... and %d more", s.Malformed-len(s.Examples))
	}
	return b.String()
}

// ScanSNAP streams a SNAP loc-gowalla file (plain or gzip, told apart by
// its magic bytes) in constant memory and calls fn for every well-formed
// line. Malformed lines (not 5 tab-separated fields, a non-numeric user,
// coordinate or location id, an empty time, a NaN coordinate, latitude
// outside [-90, 90], longitude outside [-180, 180], a line longer than
// 64 KiB) are skipped and counted; the first few are kept with their line
// numbers. An error from fn stops the scan. name labels the messages.
func ScanSNAP(r io.Reader, name string, fn func(*Checkin) error) (SNAPStats, error) {
	dr, closeFn, err := decompress(r)
	if err != nil {
		return SNAPStats{}, fmt.Errorf("%s: %w", name, err)
	}
	defer closeFn()
	return scanPlainSNAP(dr, name, fn)
}

// scanPlainSNAP is ScanSNAP on input that is not compressed.
func scanPlainSNAP(r io.Reader, name string, fn func(*Checkin) error) (SNAPStats, error) {
	var st SNAPStats
	var f [5][]byte
	var c Checkin
	err := eachPlainLine(r, name, func(line []byte, tooLong bool, no int) error {
		st.Lines++
		var msg string
		if tooLong {
			msg = fmt.Sprintf("line longer than %d bytes", maxLine)
		} else {
			msg = parseCheckin(line, f[:], &c)
		}
		if msg != "" {
			st.Malformed++
			if len(st.Examples) < MaxExamples {
				st.Examples = append(st.Examples, &LineError{File: name, Line: no, Msg: msg})
			}
			return nil
		}
		st.Kept++
		if err := fn(&c); err != nil {
			return fmt.Errorf("%s:%d: %w", name, no, err)
		}
		return nil
	})
	return st, err
}

// FilterSNAP is ScanSNAP keeping only check-ins inside box (bounds
// inclusive); Kept counts those. A scan that keeps no check-in is an error
// naming the box.
func FilterSNAP(r io.Reader, name string, box Box, fn func(*Checkin) error) (SNAPStats, error) {
	if err := box.Validate(); err != nil {
		return SNAPStats{}, err
	}
	kept := 0
	st, err := ScanSNAP(r, name, func(c *Checkin) error {
		if !box.Contains(c.Lat, c.Lon) {
			return nil
		}
		kept++
		return fn(c)
	})
	st.Kept = kept
	if err != nil {
		return st, err
	}
	if kept == 0 {
		return st, fmt.Errorf("%s: no check-in inside the box %v (%d lines read, %d malformed)", name, box, st.Lines, st.Malformed)
	}
	return st, nil
}

// parseCheckin fills c from line, or returns what is wrong with it.
func parseCheckin(line []byte, f [][]byte, c *Checkin) string {
	if k := splitFields(line, '\t', f); k != 5 {
		return fmt.Sprintf("%d tab-separated fields, want 5 (user, time, latitude, longitude, location id)", k)
	}
	var err error
	if c.User, err = strconv.ParseInt(string(bytes.TrimSpace(f[0])), 10, 64); err != nil {
		return fmt.Sprintf("user %q is not an integer", f[0])
	}
	c.Time = bytes.TrimSpace(f[1])
	if len(c.Time) == 0 {
		return "empty time"
	}
	var msg string
	if c.Lat, msg = parseCoord(f[2], "latitude", 90); msg != "" {
		return msg
	}
	if c.Lon, msg = parseCoord(f[3], "longitude", 180); msg != "" {
		return msg
	}
	if c.Location, err = strconv.ParseInt(string(bytes.TrimSpace(f[4])), 10, 64); err != nil {
		return fmt.Sprintf("location id %q is not an integer", f[4])
	}
	c.LatText = bytes.TrimSpace(f[2])
	c.LonText = bytes.TrimSpace(f[3])
	return ""
}
