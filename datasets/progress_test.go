package datasets

import (
	"strings"
	"testing"
	"time"
)

// TestProgressWriter: a download's progress in MiB, with the percentage
// when the length is known, printed on a write once the interval has
// passed.
func TestProgressWriter(t *testing.T) {
	const mib = 1 << 20
	var out strings.Builder
	for _, tc := range []struct {
		total, n int64
		want     string
	}{
		{4 * mib, mib, "get: 1.0 / 4.0 MiB (25%)\n"},
		{-1, 3 * mib / 2, "get: 1.5 MiB\n"},
		{0, 3 * mib / 2, "get: 1.5 MiB\n"},
	} {
		out.Reset()
		p := &progressWriter{out: &out, what: "get", total: tc.total, n: tc.n}
		p.print()
		if out.String() != tc.want {
			t.Errorf("total %d, %d bytes: %q, want %q", tc.total, tc.n, out.String(), tc.want)
		}
	}
	// Every write prints once the interval (here none) has passed; none
	// prints within it.
	out.Reset()
	p := &progressWriter{out: &out, what: "get", total: 2 * mib}
	if n, err := p.Write(make([]byte, mib)); n != mib || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if out.String() != "get: 1.0 / 2.0 MiB (50%)\n" {
		t.Errorf("after a write: %q", out.String())
	}
	out.Reset()
	p = &progressWriter{out: &out, what: "get", total: 2 * mib, every: time.Hour, last: time.Now()}
	p.Write(make([]byte, mib))
	if out.String() != "" || p.n != mib {
		t.Errorf("within the interval: %q, %d bytes counted", out.String(), p.n)
	}
}
