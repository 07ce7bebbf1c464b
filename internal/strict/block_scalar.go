package strict

import (
	"encoding/json"
	"strings"
)

// The block reader's scalars: plain, quoted and literal, each read only when yaml.v3 would
// read it to the same value (see block.go).

// plain reads a plain scalar running to the end of the line, and resolves its type.
func (r *blockReader) plain(at int) (any, int, bool) {
	end := r.le
	for i := at + 1; i < r.le; i++ {
		switch r.src[i] {
		case ' ':
			if r.src[i-1] == ':' {
				return nil, 0, false // a key inside a value
			}
			if i+1 < r.le && r.src[i+1] == '#' {
				end = i // a comment follows
				i = r.le
			}
		case '[', ']', '{', '}', ',':
			return nil, 0, false
		}
	}
	for end > at && r.src[end-1] == ' ' {
		end--
	}
	s := r.src[at:end]
	if !plainStart(s[0]) || s[len(s)-1] == ':' {
		return nil, 0, false
	}
	v, ok := resolvePlain(s)
	return v, end, ok
}

func plainStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '/' || c == '~'
}

// resolvePlain gives a plain scalar the value the full reader gives it, when it is plainly a
// string, a decimal integer, a boolean or a null; ok is false for anything else.
func resolvePlain(s string) (any, bool) {
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	case "null", "Null", "NULL", "~":
		return nil, true
	}
	switch {
	case s[0] == '~':
		return nil, false
	case s[0] < '0' || s[0] > '9': // no number starts so (but signed ones, not read here)
		return s, true
	case strings.IndexByte(s, '_') >= 0: // 1_000 is a number
		return nil, false
	}
	digits := skipDigits(s, 0, len(s))
	switch {
	case digits == len(s): // an integer, exact whatever its size, unless it looks octal
		if s[0] == '0' && len(s) > 1 || len(s) > 300 { // (too large for a float64, it is a string)
			return nil, false
		}
		return json.Number(s), true
	case digits == 4 && s[4] == '-': // perhaps a timestamp
		return nil, false
	case s[0] == '0' && digits == 1 && strings.IndexByte("xXoObB", s[1]) >= 0: // 0x1f, 0o17, 0b1
		return nil, false
	case looksFloat(s):
		return nil, false
	}
	return s, true
}

// looksFloat reports whether s, starting with a digit, has the shape of a YAML float:
// digits, perhaps a point and digits, perhaps an exponent.
func looksFloat(s string) bool {
	i := skipDigits(s, 0, len(s))
	if i < len(s) && s[i] == '.' {
		i = skipDigits(s, i+1, len(s))
	}
	i, ok := exponent(s, i, len(s))
	return ok && i == len(s)
}

// doubleQuoted reads a double-quoted scalar that ends on its line.
func (r *blockReader) doubleQuoted(at int) (any, int, bool) {
	s, end, ok := r.quoted(at, r.le)
	return s, end, ok
}

// quoted reads the double-quoted string at at, which ends on its line and before limit.
func (r *blockReader) quoted(at, limit int) (string, int, bool) {
	i := at + 1
	for i < limit && r.src[i] != '"' && r.src[i] != '\\' && r.src[i] != '\n' {
		i++
	}
	if i < limit && r.src[i] == '"' {
		return r.src[at+1 : i], i + 1, true // no escapes: the text itself
	}
	var b strings.Builder
	b.WriteString(r.src[at+1 : i])
	for i < limit {
		c := r.src[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\n':
			return "", 0, false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= limit {
			return "", 0, false
		}
		e := r.src[i+1]
		i += 2
		switch e {
		case '"', '\\': // (not '/': JSON has \/, YAML does not)
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte(7)
		case 'v':
			b.WriteByte(11)
		case 'e':
			b.WriteByte(27)
		case 'u':
			if i+4 > limit {
				return "", 0, false
			}
			v := 0
			for _, h := range []byte(r.src[i : i+4]) {
				d := hexValue(h)
				if d < 0 {
					return "", 0, false
				}
				v = v<<4 | d
			}
			if 0xD800 <= v && v <= 0xDFFF {
				return "", 0, false
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			return "", 0, false
		}
	}
	return "", 0, false // the scalar goes on to the next line
}

func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// singleQuoted reads a single-quoted scalar that ends on its line (” is a quote).
func (r *blockReader) singleQuoted(at int) (any, int, bool) {
	var b strings.Builder
	escaped := false
	for i := at + 1; i < r.le; i++ {
		if r.src[i] != '\'' {
			continue
		}
		if i+1 < r.le && r.src[i+1] == '\'' {
			escaped = true
			i++
			continue
		}
		s := r.src[at+1 : i]
		if escaped {
			b.Grow(len(s))
			for j := 0; j < len(s); j++ {
				b.WriteByte(s[j])
				if s[j] == '\'' {
					j++
				}
			}
			s = b.String()
		}
		return s, i + 1, true
	}
	return nil, 0, false
}

// literal reads a literal block scalar ("|" clips the final line breaks to one, "|-" strips
// them) whose header is at at, the value of a node at column c.
func (r *blockReader) literal(c, at int) (any, bool) {
	strip := false
	i := at + 1
	if i < r.le && r.src[i] == '-' {
		strip = true
		i++
	}
	if !r.restIsComment(i) {
		return nil, false // an indentation indicator, "|+", or text after the header
	}
	var lines []string // the content lines, without their indentation; blank ones empty
	m := -1            // the content's indentation
	blank := 0         // blank lines not yet added
	one := ""          // the only content line with its line break, a slice of the input
	pos, line := r.le+1, r.line
	for pos < len(r.src) {
		end := strings.IndexByte(r.src[pos:], '\n')
		if end < 0 {
			return nil, false // the last line has no line break
		}
		end += pos
		ind := pos
		for ind < end && r.src[ind] == ' ' {
			ind++
		}
		if ind == end { // a blank line
			if m < 0 || end-pos > m {
				return nil, false
			}
			blank++
			pos, line = end+1, line+1
			continue
		}
		if m < 0 {
			if ind-pos <= c {
				return nil, false // no content
			}
			m = ind - pos
		}
		if ind-pos < m {
			break
		}
		for ; blank > 0; blank-- {
			lines = append(lines, "")
		}
		lines = append(lines, r.src[pos+m:end])
		one = r.src[pos+m : end+1]
		pos, line = end+1, line+1
	}
	if m < 0 {
		return nil, false
	}
	var s string
	switch {
	case len(lines) == 1 && strip:
		s = lines[0]
	case len(lines) == 1:
		s = one
	default:
		s = strings.Join(lines, "\n")
		if !strip {
			s += "\n"
		}
	}
	r.le, r.line = pos-1, line
	r.advance()
	return s, r.eof || r.docStart() || r.ind <= c
}
