package inventory

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/meshscope/meshscope/internal/strict"
)

// appendJSON writes a value as strict's parsers give it (Fields, []any, string, bool,
// json.Number, nil) as JSON, into one buffer: what Load keeps of a traffic policy.
// json.Marshal gives the same JSON, allocating for every key and value.
func appendJSON(b []byte, x any) []byte {
	switch v := x.(type) {
	case strict.Fields:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, m.Key), ':')
			b = appendJSON(b, m.Value)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case string:
		return appendJSONString(b, v)
	case json.Number:
		return append(b, v...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	}
	return append(b, "null"...)
}

// appendJSONString writes s as a JSON string, escaping as encoding/json does: quotes,
// backslashes, control characters, <, > and &, U+2028 and U+2029, and bytes that are not
// UTF-8 (as U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
