package local

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LockedError: another process serves the database. PID is that process's
// id as it recorded it in the lock file (0 when unreadable).
type LockedError struct {
	DB   string
	Lock string
	PID  int
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("another process (pid %d)", e.PID)
	}
	return fmt.Sprintf("database %s is in use by %s; its lock file is %s", e.DB, who, e.Lock)
}

// errLockHeld is what the platform's tryLock answers when another process
// holds the lock.
var errLockHeld = errors.New("lock held by another process")

// lockDB takes the lock of database db: an exclusive lock on the file
// db+".lock" beside it, held until release is called or the process ends
// (the operating system drops it even after kill -9, so there is no stale
// lock to clean up). The holder writes its pid into the file so that a
// second process can say who holds the database.
func lockDB(db string) (release func(), err error) {
	path := db + ".lock"
	f, err := tryLock(path)
	if errors.Is(err, errLockHeld) {
		return nil, &LockedError{DB: db, Lock: path, PID: readPID(path)}
	}
	if err != nil {
		return nil, fmt.Errorf("lock database %s with %s: %w", db, path, err)
	}
	// The file may hold the pid of an earlier holder that died.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { _ = f.Close() }, nil
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
