package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// MaxAnnotationsSize is Canton's limit on the total size of one user's or
// party's annotations; the rule is ledgerapi's, counted by AnnotationsSize.
const MaxAnnotationsSize = ledgerapi.MaxAnnotationsSize

// AnnotationsSize is the size counted against MaxAnnotationsSize.
func AnnotationsSize(m map[string]string) int { return ledgerapi.AnnotationsSize(m) }

// mergeAnnotations applies change to base: "" deletes a key, anything else
// sets it. base is modified and returned (a new map when base is nil).
func mergeAnnotations(base, change map[string]string) map[string]string {
	if base == nil {
		base = map[string]string{}
	}
	for k, v := range change {
		if v == "" {
			delete(base, k)
		} else {
			base[k] = v
		}
	}
	return base
}

func encodeList(xs []string) string {
	if len(xs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(xs) // a []string always marshals
	return string(b)
}

func decodeList(s string) ([]string, error) {
	if xs, ok := decodePlainList(s); ok {
		return xs, nil
	}
	var xs []string
	if err := json.Unmarshal([]byte(s), &xs); err != nil {
		return nil, fmt.Errorf("decode stored party list: %w", err)
	}
	if xs == nil {
		xs = []string{}
	}
	return xs, nil
}

func encodeMap(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // a map[string]string always marshals
	return string(b)
}

func decodeMap(s string) (map[string]string, error) {
	m := map[string]string{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("decode stored annotations: %w", err)
	}
	return m, nil
}

// micros stores times as microseconds since the epoch, the ledger's precision.
func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func fromMicros(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMicro(v).UTC()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// inTx runs f in a write transaction and commits it.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	// Every write outside the committer may change a user or its rights;
	// the cache is invalidated once the transaction has ended.
	defer s.users.invalidate()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// readTx runs f in a read transaction, for reads that must agree with each other.
func (s *Store) readTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return f(tx)
}

// pageSize normalises a caller's page size.
func pageSize(n int) int {
	if n <= 0 || n > 10000 {
		return 1000
	}
	return n
}

// prefixEnd is the smallest string greater than every string starting with
// prefix, or "" when there is none (prefix of only 0xff bytes).
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// decodePlainList decodes, without encoding/json, the list shape encodeList
// writes for party ids and other identifiers: ["a","b"], with no escapes or
// characters JSON would escape. ok is false for anything else, which then
// takes the general decoder. Completions are read by the hundred thousand,
// and this is most of their decoding.
func decodePlainList(s string) (xs []string, ok bool) {
	if s == "[]" {
		return []string{}, true
	}
	if len(s) < 4 || s[0] != '[' || s[1] != '"' || s[len(s)-2] != '"' || s[len(s)-1] != ']' {
		return nil, false
	}
	body := s[2 : len(s)-2]
	for i := 0; i < len(body); i++ {
		if c := body[i]; c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, false
		}
	}
	xs = strings.Split(body, `","`)
	for _, x := range xs {
		if strings.IndexByte(x, '"') >= 0 {
			return nil, false
		}
	}
	return xs, true
}
