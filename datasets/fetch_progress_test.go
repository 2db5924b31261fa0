package datasets

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// sleepFirst sleeps before its first read, so that the scan's progress
// clock has run for longer than its one-second interval when the first
// line arrives.
type sleepFirst struct {
	r     io.Reader
	d     time.Duration
	slept bool
}

func (s *sleepFirst) Read(p []byte) (int, error) {
	if !s.slept {
		s.slept = true
		time.Sleep(s.d)
	}
	return s.r.Read(p)
}

// BuildSubsets prints a progress line every 2^20 well-formed lines, once
// at least a second has passed since the last one, with the line count:
// here exactly one, at line 1,048,576 (the reader holds 1,048,577 lines
// and stalls 1.1 s before the first). Without a progress writer it prints
// nothing and still cuts the same subsets.
func TestBuildSubsetsProgressEvery2To20Lines(t *testing.T) {
	const n = 1<<20 + 1
	var in strings.Builder
	in.WriteString("1\tT\t48.85\t2.35\t1\n1\tT\t37.78\t-122.41\t2\n")
	for range n - 2 {
		in.WriteString("1\tT\t0\t0\t3\n") // in neither box
	}
	var progress bytes.Buffer
	st, subs, err := BuildSubsets(&sleepFirst{r: strings.NewReader(in.String()), d: 1100 * time.Millisecond}, "big.txt", Cities(), t.TempDir(), &progress)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != n || len(subs) != 2 || subs[0].Points != 1 || subs[1].Points != 1 {
		t.Fatalf("stats %+v, subsets %+v; want %d lines, one check-in per city", st, subs, n)
	}
	var scans []string
	for _, line := range strings.SplitAfter(progress.String(), "\n") {
		if strings.HasPrefix(line, "scanning ") {
			scans = append(scans, line)
		}
	}
	if len(scans) != 1 || scans[0] != "scanning big.txt: 1048576 lines\n" {
		t.Errorf("progress lines %q, want exactly %q", scans, "scanning big.txt: 1048576 lines\n")
	}
}
