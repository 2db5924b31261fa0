package harness

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// console serialises info lines and the progress display on one writer
// (stderr in the CLI). A nil writer makes it silent (-q).
type console struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool

	// progress state, guarded by mu
	label       string
	total, done int
	start       time.Time
	barDrawn    bool
	stop        chan struct{}
	stopped     sync.WaitGroup
	every       time.Duration
	// note, if set, adds to the progress text (the longest-running job).
	note func(now time.Time) string
}

// barDelay is how long a run must last before a bar appears: short runs
// stay quiet.
const barDelay = time.Second

func newConsole(w io.Writer, every time.Duration) *console {
	c := &console{w: w, every: every}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		c.tty = true
	}
	if c.every <= 0 {
		c.every = 5 * time.Second
	}
	return c
}

// Logf prints one line, keeping the bar (if any) below it.
func (c *console) Logf(format string, args ...any) {
	if c == nil || c.w == nil {
		return
	}
	line := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearBarLocked()
	fmt.Fprintln(c.w, line)
	c.drawLocked(time.Now())
}

// startProgress begins reporting on total jobs.
func (c *console) startProgress(label string, total int) {
	if c.w == nil || total == 0 {
		return
	}
	c.mu.Lock()
	c.label, c.total, c.done, c.start = label, total, 0, time.Now()
	c.stop = make(chan struct{})
	c.mu.Unlock()
	tick := c.every
	if c.tty {
		tick = 200 * time.Millisecond
	}
	c.stopped.Add(1)
	go func() {
		defer c.stopped.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case now := <-t.C:
				c.mu.Lock()
				if c.tty {
					c.drawLocked(now)
				} else if now.Sub(c.start) >= barDelay {
					fmt.Fprintf(c.w, "%s: %s%s\n", c.label, progressText(c.done, c.total, now.Sub(c.start)), c.noteText(now))
				}
				c.mu.Unlock()
			}
		}
	}()
}

// noteText is "; " and the note, or "".
func (c *console) noteText(now time.Time) string {
	if c.note == nil {
		return ""
	}
	if n := c.note(now); n != "" {
		return "; " + n
	}
	return ""
}

// logTo prints one line to w, which may be other than the console's
// writer (a stop notice under -q), keeping the bar below it.
func (c *console) logTo(w io.Writer, format string, args ...any) {
	if c == nil || w == nil {
		return
	}
	line := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	c.mu.Lock()
	defer c.mu.Unlock()
	if w == c.w {
		c.clearBarLocked()
	}
	fmt.Fprintln(w, line)
	if w == c.w {
		c.drawLocked(time.Now())
	}
}

func (c *console) jobDone() {
	if c.w == nil {
		return
	}
	c.mu.Lock()
	c.done++
	c.mu.Unlock()
}

func (c *console) stopProgress() {
	if c.w == nil || c.stop == nil {
		return
	}
	close(c.stop)
	c.stopped.Wait()
	c.mu.Lock()
	c.clearBarLocked()
	c.total, c.stop = 0, nil
	c.mu.Unlock()
}

// drawLocked redraws the bar on a terminal once the run has lasted
// barDelay.
func (c *console) drawLocked(now time.Time) {
	if !c.tty || c.total == 0 || now.Sub(c.start) < barDelay {
		return
	}
	width := 80
	if f, ok := c.w.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 20 {
			width = w
		}
	}
	bar := renderBar(c.label, c.done, c.total, now.Sub(c.start), width-1) + c.noteText(now)
	if len(bar) > width-1 {
		bar = bar[:width-1]
	}
	fmt.Fprintf(c.w, "\r\x1b[K%s", bar)
	c.barDrawn = true
}

func (c *console) clearBarLocked() {
	if c.barDrawn {
		fmt.Fprint(c.w, "\r\x1b[K")
		c.barDrawn = false
	}
}

// progressText is "12/40 jobs, 3.2s elapsed, ETA 9.6s".
func progressText(done, total int, elapsed time.Duration) string {
	eta := "ETA ?"
	if done > 0 {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		eta = "ETA " + shortDuration(left)
	}
	return fmt.Sprintf("%d/%d jobs, %s elapsed, %s", done, total, shortDuration(elapsed), eta)
}

// renderBar is "label [=====>    ] 12/40 jobs, 3.2s elapsed, ETA 9.6s",
// cut to width columns.
func renderBar(label string, done, total int, elapsed time.Duration, width int) string {
	text := progressText(done, total, elapsed)
	barWidth := width - len(label) - len(text) - 4
	if barWidth > 30 {
		barWidth = 30 // fixed width while it fits, so the bar does not jitter
	}
	var b strings.Builder
	b.WriteString(label)
	if barWidth >= 10 {
		filled := 0
		if total > 0 {
			filled = barWidth * done / total
		}
		b.WriteString(" [")
		b.WriteString(strings.Repeat("=", filled))
		if filled < barWidth {
			b.WriteString(">")
			b.WriteString(strings.Repeat(" ", barWidth-filled-1))
		}
		b.WriteString("]")
	}
	b.WriteString(" ")
	b.WriteString(text)
	s := b.String()
	if width > 0 && len(s) > width {
		s = s[:width]
	}
	return s
}

// shortDuration prints 0.4s, 12.3s, 4m05s or 2h03m.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
