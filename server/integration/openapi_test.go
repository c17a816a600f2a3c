package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The responses of the read endpoints are held to Canton 3.5's OpenAPI
// document (shared/spec/openapi/openapi.yaml, beside the repository): each
// 200 body must validate against its operation's response schema, with
// int64 fields as JSON numbers. The validator reads the subset of JSON
// Schema the document uses: $ref, type, format, required, properties,
// additionalProperties, items, oneOf and enum. A property the document does
// not require may be null (Canton writes null for absent optional fields).

var (
	specOnce sync.Once
	spec     map[string]any
	specErr  error
)

// openAPISpec loads the document, or skips the test when it is not there.
func openAPISpec(t *testing.T) map[string]any {
	t.Helper()
	specOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "spec", "openapi", "openapi.yaml"))
		if err != nil {
			specErr = err
			return
		}
		specErr = yaml.Unmarshal(raw, &spec)
	})
	if specErr != nil {
		t.Skipf("the OpenAPI document is not beside the repository: %v", specErr)
	}
	return spec
}

// responseSchema is the schema of the 200 answer of method on path (an
// OpenAPI path template such as /v2/updates/update-by-id).
func responseSchema(t *testing.T, method, path string) any {
	t.Helper()
	paths, _ := openAPISpec(t)["paths"].(map[string]any)
	op, _ := paths[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
	ok, _ := op["responses"].(map[string]any)["200"].(map[string]any)
	schema := ok["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	if schema == nil {
		t.Fatalf("the OpenAPI document has no 200 JSON schema for %s %s", method, path)
	}
	return schema
}

// checkOpenAPI validates body, the 200 answer of method on path, against
// the document.
func checkOpenAPI(t *testing.T, method, path string, body []byte) {
	t.Helper()
	schema := responseSchema(t, method, path)
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s %s: the answer is not JSON: %v", method, path, err)
	}
	if errs := validate(spec, schema, v, "$"); len(errs) > 0 {
		sort.Strings(errs)
		if len(errs) > 10 {
			errs = append(errs[:10], fmt.Sprintf("… %d more", len(errs)-10))
		}
		t.Errorf("%s %s: the answer does not match the OpenAPI document:\n  %s\nbody: %.600s", method, path, strings.Join(errs, "\n  "), body)
	}
}

// validate checks v against schema and returns what does not match.
func validate(doc map[string]any, schema any, v any, at string) []string {
	s, _ := schema.(map[string]any)
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		return validate(doc, doc["components"].(map[string]any)["schemas"].(map[string]any)[name], v, at)
	}
	if alts, ok := s["oneOf"].([]any); ok {
		matched := 0
		var first []string
		for _, alt := range alts {
			errs := validate(doc, alt, v, at)
			if len(errs) == 0 {
				matched++
			} else if first == nil {
				first = errs
			}
		}
		if matched != 1 {
			return []string{fmt.Sprintf("%s: matches %d of the oneOf variants (%v)", at, matched, first)}
		}
		return nil
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	switch typ, _ := s["type"].(string); typ {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			fail("want an object, got %T", v)
			return errs
		}
		required := map[string]bool{}
		for _, r := range asSlice(s["required"]) {
			required[r.(string)] = true
			if _, ok := obj[r.(string)]; !ok {
				fail("lacks the required %q", r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, fv := range obj {
			ps, known := props[k]
			if !known {
				if extra, ok := s["additionalProperties"]; ok {
					errs = append(errs, validate(doc, extra, fv, at+"."+k)...)
				}
				continue // unknown fields are tolerated, as Canton's clients tolerate them
			}
			if fv == nil && !required[k] {
				continue
			}
			errs = append(errs, validate(doc, ps, fv, at+"."+k)...)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			fail("want an array, got %T", v)
			return errs
		}
		for i, el := range arr {
			errs = append(errs, validate(doc, s["items"], el, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			fail("want a string, got %T", v)
			return errs
		}
		if enum := asSlice(s["enum"]); len(enum) > 0 {
			found := false
			for _, e := range enum {
				found = found || e == str
			}
			if !found {
				fail("%q is not one of %v", str, enum)
			}
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			fail("want an integer (a JSON number), got %T %v", v, v)
		} else if _, err := n.Int64(); err != nil {
			fail("want an integer, got %s", n)
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			fail("want a number, got %T", v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			fail("want a boolean, got %T", v)
		}
	}
	return errs
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestOpenAPIValidatorCatches shows the validator failing where it must: an
// offset written as a string, a required field missing, an unknown oneOf arm.
func TestOpenAPIValidatorCatches(t *testing.T) {
	doc := openAPISpec(t)
	schema := responseSchema(t, "POST", "/v2/updates/update-by-offset")
	for _, bad := range []string{
		`{"update":{"OffsetCheckpoint":{"value":{"offset":"5","synchronizerTimes":[]}}}}`,
		`{"update":{"OffsetCheckpoint":{"value":{"synchronizerTimes":[]}}}}`,
		`{"update":{"Nope":{"value":{}}}}`,
	} {
		d := json.NewDecoder(strings.NewReader(bad))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if errs := validate(doc, schema, v, "$"); len(errs) == 0 {
			t.Errorf("%s validates", bad)
		}
	}
}

// checkTraceOpenAPI validates every JSON 200 answer recorded in a
// conformance trace (one exchange per line) against the OpenAPI document.
func checkTraceOpenAPI(t *testing.T, trace string) {
	t.Helper()
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	paths, _ := openAPISpec(t)["paths"].(map[string]any)
	checked := 0
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var x struct {
			Method, Path, ResponseContentType, ResponseBody string
			Status                                          int
		}
		if err := json.Unmarshal(line, &x); err != nil {
			t.Fatalf("trace line %s: %v", line, err)
		}
		if x.Status != 200 || !strings.HasPrefix(x.ResponseContentType, "application/json") {
			continue
		}
		p, _, _ := strings.Cut(x.Path, "?")
		tmpl := specPath(paths, x.Method, p)
		if tmpl == "" {
			t.Errorf("%s %s: no operation of the OpenAPI document", x.Method, p)
			continue
		}
		checkOpenAPI(t, x.Method, tmpl, []byte(x.ResponseBody))
		checked++
	}
	t.Logf("%d answers validated against the OpenAPI document", checked)
}

// specPath finds the path template of the document that path matches for
// method ("" when none), preferring literal segments over parameters.
func specPath(paths map[string]any, method, path string) string {
	best, bestParams := "", -1
	segs := strings.Split(path, "/")
	for tmpl, ops := range paths {
		if _, ok := ops.(map[string]any)[strings.ToLower(method)]; !ok {
			continue
		}
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		params, ok := 0, true
		for i := range ts {
			switch {
			case strings.HasPrefix(ts[i], "{"):
				params++
			case ts[i] != segs[i]:
				ok = false
			}
		}
		if ok && (bestParams < 0 || params < bestParams) {
			best, bestParams = tmpl, params
		}
	}
	return best
}
