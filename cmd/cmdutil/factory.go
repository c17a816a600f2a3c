package cmdutil

import (
	"time"

	"github.com/spf13/viper"
)

// Factory carries the dependencies commands get injected, so that a test can
// build a command with buffers for streams and its own clock.
type Factory struct {
	IO     *IOStreams
	Config *viper.Viper
	Now    func() time.Time
}

// NewFactory returns the factory used by the real binary.
func NewFactory() *Factory {
	return &Factory{IO: System(), Config: viper.New(), Now: time.Now}
}

// OutputFormat returns the validated value of the global -o flag.
func (f *Factory) OutputFormat() (string, error) {
	format := f.Config.GetString("output")
	if format == "" {
		format = FormatTable
	}
	return format, ValidateFormat(format)
}

// AnnotationWritesFile marks a command whose -o may name the file it writes
// (ledger prepare -o tx.json, ledger sign -o tx.signed.json), as DESIGN.md
// spells them; on such commands a value of -o that is not a format name is a
// path.
const AnnotationWritesFile = "ledger/writes-file"

// OutputTarget splits the global -o of a file-writing command into a format
// and a path: "json" is a format, "tx.json" a path. out is the value of the
// command's explicit --out flag, which wins.
func (f *Factory) OutputTarget(out string) (format, path string, err error) {
	v := f.Config.GetString("output")
	switch v {
	case "", FormatTable, FormatJSON, FormatYAML:
		if v == "" {
			v = FormatTable
		}
		return v, out, nil
	}
	if out != "" && out != v {
		return "", "", UsageError("-o %q and --out %q name different files: use one", v, out)
	}
	return FormatTable, v, nil
}
