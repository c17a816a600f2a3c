package completions

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// OutputFile is a file of printed completions kept in step with a
// checkpoint, so that a tail killed at any moment and restarted writes every
// completion exactly once: before each checkpoint the file is flushed and
// synced and its length is recorded beside the offset; on restart the file is
// cut back to that length, dropping whatever was written after the last
// checkpoint, which the restarted tail writes again.
type OutputFile struct {
	f *os.File
	w *bufio.Writer
}

// OpenOutputFile opens (or creates) path for appending completions and, when
// checkpoint holds a recorded length, truncates path to it.
func OpenOutputFile(path, checkpoint string) (*OutputFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, err
	}
	if checkpoint != "" {
		_, recorded, ok, err := readCheckpoint(checkpoint)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok && recorded >= 0 {
			if size < recorded {
				f.Close()
				return nil, fmt.Errorf("%s is shorter (%d bytes) than checkpoint %s records (%d): it was changed since; move it away or remove the checkpoint", path, size, checkpoint, recorded)
			}
			if err := f.Truncate(recorded); err != nil {
				f.Close()
				return nil, err
			}
			if _, err := f.Seek(recorded, io.SeekStart); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	return &OutputFile{f: f, w: bufio.NewWriter(f)}, nil
}

// Write buffers p.
func (o *OutputFile) Write(p []byte) (int, error) { return o.w.Write(p) }

// Sync flushes and syncs the file and returns its length: use it as
// Options.Sync.
func (o *OutputFile) Sync() (int64, error) {
	if err := o.w.Flush(); err != nil {
		return 0, err
	}
	if err := o.f.Sync(); err != nil {
		return 0, err
	}
	return o.f.Seek(0, io.SeekCurrent)
}

// Close flushes and closes the file.
func (o *OutputFile) Close() error {
	if err := o.w.Flush(); err != nil {
		o.f.Close()
		return err
	}
	return o.f.Close()
}
