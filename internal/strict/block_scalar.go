package strict

import (
	"strings"
	"unicode/utf8"
)

// The block reader's plain and quoted scalars, over one line or several, each read to the
// text yaml.v3 reads it to (see block.go).

// plainText reads the plain scalar text on the current line from at: it returns where the
// text ends (without the spaces after it), and whether a comment follows. ok is false for
// a ": " in it (a key where a value belongs) or a ':' ending it.
func (r *blockReader) plainText(at int) (end int, comment, ok bool) {
	end = at
	for i := at; i < r.le; i++ {
		switch r.src[i] {
		case ' ', '\t':
			if i+1 < r.le && r.src[i+1] == '#' {
				return end, true, true
			}
		case ':':
			if i+1 == r.le || r.src[i+1] == ' ' || r.src[i+1] == '\t' {
				return 0, false, false
			}
			end = i + 1
		default:
			end = i + 1
		}
	}
	return end, false, true
}

// plainScalar reads the plain scalar at at, the value of a node in the collection at column
// c: its text on this line, and on each line below more indented than c, folded as YAML
// folds them (a line break is a space, each blank line a line break). It moves to the next
// line with content.
func (r *blockReader) plainScalar(c, at int) (string, bool) {
	end, comment, ok := r.plainText(at)
	if !ok {
		return "", false
	}
	s := r.src[at:end]
	if comment {
		r.advance()
		return s, true
	}
	b := r.buf[:0]
	multi, breaks := false, 0
	for r.nextLine() {
		switch {
		case r.cs == r.le:
			breaks++
			continue
		case r.src[r.cs] == '\t':
			// A line of blanks whose first tab is right of the collection is an empty line
			// of the scalar, as yaml.v3 reads it; a tab further left, yaml.v3 refuses.
			if r.ind > c && strings.Trim(r.src[r.cs:r.le], " \t") == "" {
				breaks++
				continue
			}
			return "", false
		case r.ind <= c || r.src[r.cs] == '#':
		default:
			e, comment, ok := r.plainText(r.cs)
			if !ok {
				return "", false
			}
			if !multi {
				b, multi = append(b, s...), true
			}
			b = foldBreaks(b, breaks)
			b = append(b, r.src[r.cs:e]...)
			breaks = 0
			if !comment {
				continue
			}
			r.nextLine() // past the comment's line
		}
		break
	}
	r.settle()
	r.buf = b
	if multi {
		s = string(b)
	}
	return s, true
}

// foldBreaks appends the line break between two lines of a flow or plain scalar, with breaks
// blank lines between them: a space for none, else a line break for each.
func foldBreaks(b []byte, breaks int) []byte {
	if breaks == 0 {
		return append(b, ' ')
	}
	for ; breaks > 0; breaks-- {
		b = append(b, '\n')
	}
	return b
}

// quotedScalar reads the quoted scalar at at, the value of a node: double-quoted or
// single-quoted, over one line or several. It moves to the next line with content.
func (r *blockReader) quotedScalar(at int, double bool) (string, bool) {
	var s string
	var end int
	var ok bool
	if double {
		s, end, ok = r.quoted(at, r.le)
	} else {
		s, end, ok = r.singleQuoted(at, r.le)
	}
	if !ok {
		s, end, ok = r.quotedLines(at, double)
		if !ok {
			return "", false
		}
	}
	if !r.restIsComment(end) {
		return "", false
	}
	r.advance()
	return s, true
}

// quotedLines reads a quoted scalar that may go on over several lines, folded as YAML
// folds them: the spaces around a line break go, the break is a space, and each blank line
// a line break. It returns where the scalar ends on the line the reader is left on.
func (r *blockReader) quotedLines(at int, double bool) (string, int, bool) {
	b := r.buf[:0]
	defer func() { r.buf = b[:0] }()
	i := at + 1
	for {
		for i < r.le {
			c := r.src[i]
			switch {
			case c == '\'' && !double:
				if i+1 < r.le && r.src[i+1] == '\'' {
					b = append(b, '\'')
					i += 2
					continue
				}
				return string(b), i + 1, true
			case c == '"' && double:
				return string(b), i + 1, true
			case c == '\\' && double:
				var ok bool
				if i, ok = escape(r.src, i, r.le, &b); !ok {
					return "", 0, false // an unknown escape, or an escaped line break
				}
				continue
			case c == ' ' || c == '\t':
				j := i
				for j < r.le && (r.src[j] == ' ' || r.src[j] == '\t') {
					j++
				}
				if j < r.le {
					b = append(b, r.src[i:j]...)
				}
				i = j
				continue
			}
			b = append(b, c)
			i++
		}
		breaks := 0
		for {
			if !r.nextLine() {
				return "", 0, false // the input ends inside the scalar
			}
			if r.ind == 0 && (isSeparator(r.text(), "---") || isSeparator(r.text(), "...")) {
				return "", 0, false
			}
			j := r.cs
			for j < r.le && (r.src[j] == ' ' || r.src[j] == '\t') {
				j++
			}
			if j < r.le {
				i = j
				break
			}
			breaks++
		}
		b = foldBreaks(b, breaks)
	}
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
	b := append(r.buf[:0], r.src[at+1:i]...)
	defer func() { r.buf = b[:0] }()
	for i < limit {
		switch c := r.src[i]; c {
		case '"':
			return string(b), i + 1, true
		case '\n', '\r':
			return "", 0, false
		case '\\':
			var ok bool
			if i, ok = escape(r.src, i, limit, &b); !ok {
				return "", 0, false
			}
		default:
			b = append(b, c)
			i++
		}
	}
	return "", 0, false // the scalar goes on to the next line
}

// escape appends the character the escape sequence at s[i] (a backslash) stands for, and
// returns where the sequence ends; ok is false for an escape YAML does not have (such as
// JSON's \/), a code that is not a character, and a backslash ending the line.
func escape(s string, i, limit int, b *[]byte) (int, bool) {
	if i+1 >= limit {
		return 0, false
	}
	e := s[i+1]
	if k := strings.IndexByte(simpleEscapes, e); k >= 0 {
		*b = append(*b, simpleEscaped[k])
		return i + 2, true
	}
	n := 0
	switch e {
	case 'N':
		*b = append(*b, "\u0085"...)
		return i + 2, true
	case '_':
		*b = append(*b, "\u00a0"...)
		return i + 2, true
	case 'L':
		*b = append(*b, "\u2028"...)
		return i + 2, true
	case 'P':
		*b = append(*b, "\u2029"...)
		return i + 2, true
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, false
	}
	if i+2+n > limit {
		return 0, false
	}
	v := 0
	for _, h := range []byte(s[i+2 : i+2+n]) {
		d := hexValue(h)
		if d < 0 {
			return 0, false
		}
		v = v<<4 | d
	}
	if 0xD800 <= v && v <= 0xDFFF || v > 0x10FFFF {
		return 0, false
	}
	*b = utf8.AppendRune(*b, rune(v))
	return i + 2 + n, true
}

// The escapes of one character that stand for one byte, and the bytes.
const (
	simpleEscapes = "0abt\tnvfre \"'\\"
	simpleEscaped = "\x00\x07\x08\x09\x09\x0a\x0b\x0c\x0d\x1b\x20\"'\\"
)

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

// singleQuoted reads the single-quoted string at at, which ends on its line and before
// limit (” is a quote).
func (r *blockReader) singleQuoted(at, limit int) (string, int, bool) {
	escaped := false
	for i := at + 1; i < limit; i++ {
		switch r.src[i] {
		case '\n', '\r':
			return "", 0, false
		case '\'':
		default:
			continue
		}
		if i+1 < limit && r.src[i+1] == '\'' {
			escaped = true
			i++
			continue
		}
		s := r.src[at+1 : i]
		if escaped {
			s = strings.ReplaceAll(s, "''", "'")
		}
		return s, i + 1, true
	}
	return "", 0, false
}
