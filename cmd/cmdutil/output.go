package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Output formats accepted by -o.
const (
	FormatTable = "table"
	FormatJSON  = "json"
	FormatYAML  = "yaml"
)

// ValidateFormat checks the value of -o.
func ValidateFormat(f string) error {
	switch f {
	case FormatTable, FormatJSON, FormatYAML:
		return nil
	}
	return UsageError("invalid value %q for -o/--output: use table, json or yaml", f)
}

// WriteStructured writes v as indented JSON or as YAML.
func WriteStructured(w io.Writer, format string, v any) error {
	switch format {
	case FormatYAML:
		// Go through JSON so that field names follow the json tags.
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var generic any
		if err := yaml.Unmarshal(raw, &generic); err != nil {
			return err
		}
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		defer enc.Close()
		return enc.Encode(generic)
	default:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
}

// Errorf is a plain error whose message is shown as is.
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
