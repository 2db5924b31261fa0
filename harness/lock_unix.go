//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive advisory lock on dir (its .lock file) so
// that two privic processes never write one experiment directory at the
// same time; the kernel drops the lock if the process dies.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, unwrapPathError(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is being written by another privic process (give each concurrent run, e.g. each shard, its own --out)", dir)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
