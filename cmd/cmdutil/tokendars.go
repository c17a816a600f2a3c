package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledger-cli/ledger/internal/splice"
)

// DarsEnv names the folder of the token DARs when --dars is not given.
const DarsEnv = "LEDGER_DARS"

// FindTokenDars returns the absolute paths of the token demo's DARs, in
// upload order, from the folder flag names; with no flag from $LEDGER_DARS,
// else from the first folder that holds the app's DAR of: ./dars and
// ../shared/dars beside the working directory, and the same two beside the
// binary. Only the app's DAR (splice.TokenAppDar) is needed: it carries the
// token standard's interface packages it implements. The interface DARs of
// splice.TokenAppDars found beside it are uploaded first, to show what the
// app builds on. The DARs are not part of this repository; the error names
// the one missing DAR once, where it was looked for and where to get it.
func FindTokenDars(flag string) ([]string, error) {
	var dirs []string
	switch {
	case flag != "":
		dirs = []string{flag}
	case os.Getenv(DarsEnv) != "":
		dirs = []string{os.Getenv(DarsEnv)}
	default:
		if wd, err := os.Getwd(); err == nil {
			dirs = append(dirs, filepath.Join(wd, "dars"), filepath.Join(wd, "..", "shared", "dars"))
		}
		if exe, err := os.Executable(); err == nil {
			dir := filepath.Dir(exe)
			dirs = append(dirs, filepath.Join(dir, "dars"), filepath.Join(dir, "..", "shared", "dars"))
		}
	}
	var looked []string
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--dars %s: %w", dir, err)
		}
		if ok, err := isFile(filepath.Join(abs, splice.TokenAppDar)); err != nil {
			return nil, fmt.Errorf("token DARs: %w", err)
		} else if !ok {
			looked = append(looked, abs)
			continue
		}
		var files []string
		for _, name := range splice.TokenAppDars {
			p := filepath.Join(abs, name)
			ok, err := isFile(p)
			if err != nil {
				return nil, fmt.Errorf("token DARs: %w", err)
			}
			if ok {
				files = append(files, p)
			}
		}
		return files, nil
	}
	where := "--dars DIR"
	if flag == "" {
		where = "--dars DIR or " + DarsEnv
	}
	return nil, fmt.Errorf("the token demo needs %s, which is in none of %s. %s. Give its folder with %s",
		splice.TokenAppDar, strings.Join(looked, ", "), splice.TokenAppDarsSource, where)
}

// isFile says whether path exists; an error other than "does not exist"
// (a folder that may not be read) is returned.
func isFile(path string) (bool, error) {
	switch _, err := os.Stat(path); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}
