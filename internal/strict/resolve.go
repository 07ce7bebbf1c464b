package strict

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// How a plain scalar gets its type. YAML gives an unquoted scalar a type by its text: "80"
// is an integer, "true" a boolean, "1.5" a float, "0b1" a binary integer, "2024-01-02" a
// timestamp, anything else a string. meshscope must read each scalar as yaml.v3 (and so
// kubectl) does, so the answer for a scalar is yaml.v3's: resolveTag settles the shapes it
// can settle for certain from their first characters — most scalars of a real dump — and
// asks yaml.v3 itself about the rest, one scalar at a time. TestResolveTagAgreesWithYAMLv3
// holds the shortcuts to yaml.v3's answer.

// Short tags, as yaml.v3 names them.
const (
	tagStr       = "!!str"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagBool      = "!!bool"
	tagNull      = "!!null"
	tagTimestamp = "!!timestamp"
	tagMerge     = "!!merge"
)

// resolveTag returns the tag yaml.v3 gives the plain scalar s.
func resolveTag(s string) string {
	if s == "" {
		return tagNull
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || '0' <= c && c <= '9':
		if tag, ok := resolveNumeric(s); ok {
			return tag
		}
	case c == '.':
		if s == "." {
			return tagStr // not a float: no digits
		}
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		// yaml.v3 looks these up in its table of words and nothing more.
		switch s {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return tagBool
		case "null", "Null", "NULL", "~":
			return tagNull
		}
		return tagStr
	default:
		if s == "<<" {
			return tagMerge
		}
		return tagStr // no other first character starts a number, a boolean or a null
	}
	return yamlTag(s)
}

// yamlTag asks yaml.v3 for the tag its parser gives the plain scalar s: its resolver's,
// but for "<<", a merge key.
func yamlTag(s string) string {
	if s == "<<" {
		return tagMerge
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Value: s}
	return n.ShortTag()
}

// maybeTimestamp reports whether s starts with four digits and a dash: a timestamp, or a
// string, and either way read as its text (nothing else starts so).
func maybeTimestamp(s string) bool {
	return len(s) > 4 && s[4] == '-' && skipDigits(s, 0, 4) == 4
}

// resolveNumeric settles the scalars starting with a digit or a sign whose tag is certain:
// decimal integers, timestamps and plain strings such as uids and IP addresses. ok is false
// for the rest (floats, other bases, underscores, a leading zero or '+').
func resolveNumeric(s string) (tag string, ok bool) {
	switch s {
	case "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return tagFloat, true // yaml.v3's words for the infinities
	}
	if maybeTimestamp(s) {
		return "", false
	}
	digits := s
	if s[0] == '-' {
		digits = s[1:]
	}
	n := skipDigits(digits, 0, len(digits))
	switch {
	case n == len(digits) && n > 0 && n <= 18 && (digits[0] != '0' || n == 1):
		return tagInt, true // a decimal integer of 64 bits
	}
	if strings.ContainsAny(s, ".eE") && jsonNumber(s, 0, len(s)) == len(s) {
		// A JSON fraction is a float when it is finite, as yaml.v3 parses it.
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) {
			return tagFloat, true
		}
		return "", false
	}
	// Every number yaml.v3 reads is spelt with digits, hex digits, the base letters x and
	// o, one point, and signs only first, after an exponent's e or after 0o or 0b; a
	// scalar with anything else is a string. Underscores, which yaml.v3 drops first, are
	// left to it.
	if strings.IndexByte(s, '_') >= 0 {
		return "", false
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F',
			c == 'x', c == 'X', c == 'o', c == 'O':
		case c == '.':
			if dots++; dots > 1 {
				return tagStr, true
			}
		case c == '+' || c == '-':
			// (strconv reads a sign after 0o and 0b, where yaml.v3 hands it the digits)
			if i > 0 && s[i-1] != 'e' && s[i-1] != 'E' && !(i == 2 && (s[:2] == "0o" || s[:2] == "0b")) {
				return tagStr, true
			}
		default:
			return tagStr, true
		}
	}
	return "", false
}

// plainValue resolves the plain scalar s to its value, as the full reader converts
// yaml.v3's nodes; err is the problem with it (an ambiguous or non-finite number), with the
// value nil. ok is false for a scalar yaml.v3 gives a tag meshscope does not read (a plain
// "<<", a merge key, where a value belongs).
func plainValue(s string) (v any, ok bool, err error) {
	if maybeTimestamp(s) {
		return s, true, nil // without yaml.v3's time.Parse
	}
	tag := resolveTag(s)
	if tag == tagInt && plainDecimal(s) {
		return json.Number(s), true, nil // the common case, without yamlInt's copies
	}
	return scalarValue(tag, s)
}

// plainDecimal reports whether s is an optional minus and digits without a leading zero
// (or the digit 0 alone): the integers yamlInt gives back as written.
func plainDecimal(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	return s != "" && skipDigits(s, 0, len(s)) == len(s) && (s[0] != '0' || len(s) == 1)
}

// scalarValue converts a scalar of one of YAML's core tags to its generic value: a string,
// nil, a bool, or an exact json.Number. ok is false for any other tag; err is a problem with
// the value (a number that cannot be read exactly or is not finite).
func scalarValue(tag, value string) (v any, ok bool, err error) {
	switch tag {
	case tagStr, tagTimestamp:
		return value, true, nil
	case tagNull:
		return nil, true, nil
	case tagBool:
		return strings.EqualFold(value, "true"), true, nil
	case tagInt:
		num, err := yamlInt(value)
		if err != nil {
			return nil, true, err
		}
		return num, true, nil
	case tagFloat:
		f, err := strconv.ParseFloat(strings.ReplaceAll(value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, true, fmt.Errorf("%s is not a finite number", value)
		}
		if json.Valid([]byte(value)) {
			return json.Number(value), true, nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true, nil
	}
	return nil, false, nil
}

// jsonNumber returns where the JSON number at at ends, or -1 if none starts there.
func jsonNumber(s string, at, limit int) int {
	i := at
	if i < limit && s[i] == '-' {
		i++
	}
	switch {
	case i < limit && s[i] == '0':
		i++
	case i < limit && '1' <= s[i] && s[i] <= '9':
		i = skipDigits(s, i, limit)
	default:
		return -1
	}
	if i < limit && s[i] == '.' {
		j := skipDigits(s, i+1, limit)
		if j == i+1 {
			return -1
		}
		i = j
	}
	i, ok := exponent(s, i, limit)
	if !ok {
		return -1
	}
	return i
}

// skipDigits returns where the decimal digits of s from i end, before limit.
func skipDigits(s string, i, limit int) int {
	for i < limit && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// exponent returns where the exponent of a number at i ends ("e5", "E-3"; i itself when
// there is none), before limit; ok is false for an "e" without digits.
func exponent(s string, i, limit int) (end int, ok bool) {
	if i >= limit || s[i] != 'e' && s[i] != 'E' {
		return i, true
	}
	i++
	if i < limit && (s[i] == '+' || s[i] == '-') {
		i++
	}
	end = skipDigits(s, i, limit)
	return end, end > i
}
