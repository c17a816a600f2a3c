package value

import (
	"fmt"
	"strconv"
	"time"
)

// Timestamp is a point in time: microseconds since 1970-01-01T00:00:00Z,
// within MinTimestamp and MaxTimestamp.
type Timestamp int64

// Date is a day: days since 1970-01-01, within MinDate and MaxDate.
type Date int32

// Bounds of Timestamp and Date: 0001-01-01T00:00:00.000000Z to
// 9999-12-31T23:59:59.999999Z, and 0001-01-01 to 9999-12-31.
const (
	MinTimestamp Timestamp = -62135596800000000
	MaxTimestamp Timestamp = 253402300799999999
	MinDate      Date      = -719162
	MaxDate      Date      = 2932896
)

// TimestampFromMicros returns the timestamp micros µs after the epoch, or
// an error when it is out of bounds (UNIX_MICROSECONDS_TO_TIMESTAMP).
func TimestampFromMicros(micros int64) (Timestamp, error) {
	if micros < int64(MinTimestamp) || micros > int64(MaxTimestamp) {
		return 0, fmt.Errorf("out of bound Timestamp %d", micros)
	}
	return Timestamp(micros), nil
}

// DateFromDays returns the date days after the epoch, or an error when it is
// out of bounds (UNIX_DAYS_TO_DATE).
func DateFromDays(days int64) (Date, error) {
	if days < int64(MinDate) || days > int64(MaxDate) {
		return 0, fmt.Errorf("out of bound Date %d", days)
	}
	return Date(days), nil
}

// Time returns t as a UTC time.Time.
func (t Timestamp) Time() time.Time {
	sec := int64(t) / 1e6
	us := int64(t) % 1e6
	if us < 0 {
		sec--
		us += 1e6
	}
	return time.Unix(sec, us*1000).UTC()
}

// TimestampOf returns the timestamp of a time.Time, rounding down to the
// microsecond, or an error when it is out of bounds.
func TimestampOf(t time.Time) (Timestamp, error) {
	sec := t.Unix()
	if sec < int64(MinTimestamp)/1e6-1 || sec > int64(MaxTimestamp)/1e6+1 {
		return 0, fmt.Errorf("out of bound Timestamp %s", t.UTC().Format(time.RFC3339Nano))
	}
	return TimestampFromMicros(sec*1e6 + int64(t.Nanosecond())/1000)
}

// String returns the ISO-8601 text Java's Instant prints and
// TIMESTAMP_TO_TEXT gives: "YYYY-MM-DDThh:mm:ssZ", with the fraction of a
// second, when not zero, in groups of three digits: ".100Z", ".123456Z".
func (t Timestamp) String() string {
	tt := t.Time()
	b := make([]byte, 0, 32)
	b = tt.AppendFormat(b, "2006-01-02T15:04:05")
	if ns := tt.Nanosecond(); ns != 0 {
		var digits int
		switch {
		case ns%1e6 == 0:
			digits, ns = 3, ns/1e6
		case ns%1e3 == 0:
			digits, ns = 6, ns/1e3
		default:
			digits = 9
		}
		f := strconv.Itoa(ns)
		b = append(b, '.')
		for i := len(f); i < digits; i++ {
			b = append(b, '0')
		}
		b = append(b, f...)
	}
	return string(append(b, 'Z'))
}

// ParseTimestamp reads an RFC 3339 time ("2026-07-24T11:59:01.123456Z",
// any offset); digits below the microsecond are rounded down, as Canton's
// Timestamp.fromString does.
func ParseTimestamp(s string) (Timestamp, error) {
	tt, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("cannot read timestamp %q: %w", s, err)
	}
	return TimestampOf(tt)
}

// Time returns the date at midnight UTC.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String returns "YYYY-MM-DD" (DATE_TO_TEXT).
func (d Date) String() string { return d.Time().Format("2006-01-02") }

// ParseDate reads "YYYY-MM-DD".
func ParseDate(s string) (Date, error) {
	tt, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, fmt.Errorf("cannot read date %q: %w", s, err)
	}
	days := tt.Unix() / 86400
	return DateFromDays(days)
}
