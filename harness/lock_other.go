//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package harness

// lockDir is a no-op where flock is unavailable: concurrent runs into
// the same directory are then the user's responsibility.
func lockDir(dir string) (unlock func(), err error) { return func() {}, nil }
