package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TempPrefix starts the name of every temporary file, so that a clean-up
// after a killed process can find them.
const TempPrefix = ".tmp-"

// File is a replacement of a file being written. Write to it, then call
// Commit to put it in place, or Abort to drop it. Abort after Commit (or
// twice) does nothing, so `defer f.Abort()` is the usual pattern.
type File struct {
	path   string
	tmp    *os.File
	w      *bufio.Writer
	noSync bool
	done   bool
}

// Create starts a replacement of path: a temporary file in path's
// directory, which must exist.
func Create(path string) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, unwrap(err))
	}
	return &File{path: path, tmp: tmp, w: bufio.NewWriter(tmp)}, nil
}

// Write writes p to the replacement.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, f.finished()
	}
	return f.w.Write(p)
}

// WriteByte writes c to the replacement.
func (f *File) WriteByte(c byte) error {
	if f.done {
		return f.finished()
	}
	return f.w.WriteByte(c)
}

// Commit flushes the replacement to disk, gives it mode 0644 and renames
// it over the target. On error the target is unchanged and the temporary
// file is gone.
func (f *File) Commit() (err error) {
	if f.done {
		return f.finished()
	}
	defer func() {
		if err != nil {
			f.Abort()
			err = fmt.Errorf("write %s: %w", f.path, unwrap(err))
		}
	}()
	if err := f.w.Flush(); err != nil {
		return err
	}
	if err := f.tmp.Chmod(0o644); err != nil {
		return err
	}
	if !f.noSync {
		if err := f.tmp.Sync(); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return err
	}
	f.done = true
	if !f.noSync {
		syncDir(filepath.Dir(f.path))
	}
	return nil
}

// Abort drops the replacement: the target is left as it was and the
// temporary file is removed. It does nothing after Commit or Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

func (f *File) finished() error {
	return fmt.Errorf("write %s: already committed or aborted", f.path)
}

// WriteFile replaces path with what write writes (buffered). On error,
// the target is unchanged, no temporary file is left and the error says
// "write PATH: ...".
func WriteFile(path string, write func(w io.Writer) error) error {
	return writeFile(path, false, write)
}

// WriteFileNoSync is WriteFile without the fsyncs. The rename is still
// atomic for every crash of the process (the page cache outlives it);
// only a power cut or a kernel crash can leave the target empty or
// truncated, so it serves files that are checked when read and cheap to
// remake. An fsync can cost more than computing such a file.
func WriteFileNoSync(path string, write func(w io.Writer) error) error {
	return writeFile(path, true, write)
}

func writeFile(path string, noSync bool, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.noSync = noSync
	if err := write(f); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// syncDir makes a rename durable; file systems that cannot sync a
// directory (or platforms where opening one fails) are left alone.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// unwrap drops the file names of *os.PathError and *os.LinkError: the
// caller's message names the target, and the temporary file's name
// would only confuse.
func unwrap(err error) error {
	switch e := err.(type) {
	case *os.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}
