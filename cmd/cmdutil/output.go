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

// ValidateFormat checks the value of -o. Every command reads -o as a
// format and --out as a file, so a file name given to -o is the likeliest
// mistake and the error says where it belongs.
func ValidateFormat(f string) error {
	switch f {
	case FormatTable, FormatJSON, FormatYAML:
		return nil
	}
	return UsageError("-o/--output %q: -o takes a format, table, json or yaml; to write a file use --out FILE", f)
}

// EnvelopeFormat checks -o for a command that writes an envelope, which is
// JSON whatever -o says: with the envelope on standard output (no --out)
// there is nothing YAML could apply to, and a YAML envelope is one no
// command reads.
func EnvelopeFormat(format, out string) error {
	if format == FormatYAML && out == "" {
		return UsageError("-o yaml: envelopes are JSON only; with --out FILE the envelope goes to FILE and -o yaml applies to the summary")
	}
	return nil
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
