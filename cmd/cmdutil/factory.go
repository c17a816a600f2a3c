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
