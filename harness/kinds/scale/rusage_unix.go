//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package scale

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the peak resident memory of a finished child process in
// bytes (0 when unknown). getrusage reports it in kilobytes, except on
// Darwin, where it is in bytes.
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
