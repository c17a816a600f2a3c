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

// FindTokenDars returns the absolute paths of splice.TokenAppDars, in
// upload order, from the folder flag names; with no flag from $LEDGER_DARS,
// else from the first folder that holds them all of: ./dars and
// ../shared/dars beside the working directory, and the same two beside the
// binary. The DARs are not part of this repository; the error says where
// they were looked for and where to get them.
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
		files, missing := make([]string, 0, len(splice.TokenAppDars)), []string(nil)
		for _, name := range splice.TokenAppDars {
			p := filepath.Join(abs, name)
			switch _, err := os.Stat(p); {
			case err == nil:
				files = append(files, p)
			case errors.Is(err, fs.ErrNotExist):
				missing = append(missing, name)
			default:
				return nil, fmt.Errorf("token DARs: %w", err)
			}
		}
		if len(missing) == 0 {
			return files, nil
		}
		looked = append(looked, fmt.Sprintf("%s (lacks %s)", abs, strings.Join(missing, ", ")))
	}
	where := "--dars DIR"
	if flag == "" {
		where = "--dars DIR or " + DarsEnv
	}
	return nil, fmt.Errorf("the token demo needs %s; looked in %s. %s. Put them in one folder and give it with %s",
		strings.Join(splice.TokenAppDars, ", "), strings.Join(looked, "; "), splice.TokenAppDarsSource, where)
}
