package strict

import "strings"

// The block reader's flow collections: [a, b] and {k: v} of quoted and plain scalars, on
// one line or over several — JSON among them, which YAML reads as flow collections (see
// block.go).

// flowDocument reads a document that is one flow collection, such as `kubectl get -o json`
// prints, and moves to the next line with content after it.
func (r *blockReader) flowDocument() (any, bool) { return r.flowValue(r.cs) }

// flowValue reads the flow collection at at — a document, or the value of a node — and
// moves to the next line with content after it; only spaces and a comment may follow it on
// its last line.
func (r *blockReader) flowValue(at int) (any, bool) {
	v, end, ok := r.flow(at)
	if !ok {
		return nil, false
	}
	r.atLine(end)
	if !r.restIsComment(end) {
		return nil, false
	}
	r.advance()
	return v, true
}

// atLine makes the line holding pos, which starts at r.start, the current line.
func (r *blockReader) atLine(pos int) {
	nl := strings.IndexByte(r.src[pos:], '\n')
	if nl < 0 {
		r.le, r.next = len(r.src), len(r.src)+1
		return
	}
	r.le, r.next = pos+nl, pos+nl+1
	if r.le > r.start && r.src[r.le-1] == '\r' {
		r.le--
	}
}

// flow reads the flow value at at (after white space) and returns where it ends: a
// collection, or a quoted or plain scalar. Only what yaml.v3 reads the same way is read:
// no comments, no empty values, no plain scalar over several lines, no key without a value
// or whose ':' is on another line. The collection being read is c (when in is true); those
// around it, within the value, go on the reader's stack of open ones, above base.
func (r *blockReader) flow(at int) (any, int, bool) {
	base := len(r.open)
	var c collection
	in := false
	for {
		// A value starts at at, as deep as the block collections around the flow value,
		// and the flow collections around it within.
		depth := r.depth + len(r.open) - base
		if in {
			depth++
		}
		var ok bool
		if at, ok = r.flowSpace(at); !ok || at >= len(r.src) || depth > maxBlockDepth {
			return nil, 0, false
		}
		var v any
		var end int
		switch ch := r.src[at]; ch {
		case '{', '[':
			if in {
				if len(r.open) == cap(r.open) {
					r.open = grow(r.open)
				}
				r.open = append(r.open, c)
			}
			c, in = r.begin(ch == '{', 0), true
			if at, ok = r.flowSpace(at + 1); !ok || at >= len(r.src) || r.src[at] != closing(&c) {
				if at, ok = r.flowMember(&c, at, ok); !ok {
					return nil, 0, false
				}
				continue
			}
			v, end = r.end(&c), at+1 // empty
			c, in = r.resume(base)
		case '"':
			v, end, ok = r.quoted(at, len(r.src))
		case '\'':
			v, end, ok = r.singleQuoted(at, len(r.src))
		default:
			var s string
			if s, end, ok = r.flowPlain(at); !ok {
				return nil, 0, false
			}
			var err error
			if v, ok, err = plainValue(s); ok && err != nil {
				r.fail(err.Error())
			}
		}
		if !ok {
			return nil, 0, false
		}
		// v, ending at end, is complete: it goes into the collection it is in, and each
		// collection that it completes into the one around that.
		for in {
			r.finish(&c, v)
			if at, ok = r.flowSpace(end); !ok || at >= len(r.src) {
				return nil, 0, false
			}
			ch := r.src[at]
			if ch == ',' {
				if at, ok = r.flowSpace(at + 1); !ok || at >= len(r.src) || r.src[at] != closing(&c) {
					if at, ok = r.flowMember(&c, at, ok); !ok {
						return nil, 0, false
					}
					break // the next member's value starts at at
				}
				ch = r.src[at] // a trailing comma
			}
			if ch != closing(&c) {
				return nil, 0, false // a ':' in a sequence (a pair), or anything else
			}
			v, end = r.end(&c), at+1
			c, in = r.resume(base)
		}
		if !in {
			return v, end, true
		}
	}
}

// closing is the character that closes the flow collection c.
func closing(c *collection) byte {
	if c.mapping {
		return '}'
	}
	return ']'
}

// flowMember starts the next member of the flow collection c at at (ok as flowSpace gave
// it on the way there): for a mapping, it reads the key and its ':'. It returns where the
// member's value starts.
func (r *blockReader) flowMember(c *collection, at int, ok bool) (int, bool) {
	if !ok || at >= len(r.src) {
		return 0, false
	}
	if !c.mapping {
		r.startItem(c)
		return at, true
	}
	var k string
	var end int
	switch r.src[at] {
	case '"':
		k, end, ok = r.quoted(at, len(r.src))
	case '\'':
		k, end, ok = r.singleQuoted(at, len(r.src))
	default:
		k, end, ok = r.flowPlain(at)
		ok = ok && k != "<<" && k != ""
	}
	if !ok || end-at > maxKey {
		return 0, false
	}
	for end < len(r.src) && (r.src[end] == ' ' || r.src[end] == '\t') {
		end++ // a key and its ':' share a line
	}
	if end >= len(r.src) || r.src[end] != ':' {
		return 0, false
	}
	r.startMember(c, k)
	if at, ok = r.flowSpace(end + 1); !ok || at >= len(r.src) || r.src[at] == ',' || r.src[at] == '}' {
		return 0, false
	}
	return at, true
}

// flowPlain reads the plain scalar at at in a flow collection: up to a flow indicator, a
// ": " or the end of the line, without the spaces before them.
func (r *blockReader) flowPlain(at int) (string, int, bool) {
	s := r.src
	if !plainFirst(s, at, len(s), true) {
		return "", 0, false
	}
	end := at
	for i := at; i < len(s); i++ {
		switch c := s[i]; c {
		case ',', '[', ']', '{', '}', '\n', '\r':
			return s[at:end], i, true
		case '?':
			return "", 0, false
		case ':':
			if i+1 == len(s) || strings.IndexByte(" \t\r\n", s[i+1]) >= 0 {
				return s[at:end], i, true
			}
			end = i + 1 // (before a flow indicator too, as yaml.v3 reads it: "[::1, 001:db8::]")
		case ' ', '\t':
			if i+1 < len(s) && s[i+1] == '#' {
				return "", 0, false // a comment
			}
		default:
			end = i + 1
		}
	}
	return s[at:end], len(s), true
}

// flowSpace skips spaces, tabs and line breaks, counting the lines; ok is false at a line
// that a document marker or a directive starts, which ends a flow collection in error.
func (r *blockReader) flowSpace(at int) (int, bool) {
	s := r.src
	for at < len(s) {
		switch s[at] {
		case ' ', '\t':
			at++
		case '\r':
			if at+1 >= len(s) || s[at+1] != '\n' {
				return at, true
			}
			at++
		case '\n':
			at++
			r.line++
			r.start = at
			if at < len(s) && (s[at] == '%' || isSeparator(s[at:min(at+4, len(s))], "---") || isSeparator(s[at:min(at+4, len(s))], "...")) {
				return at, false
			}
		default:
			return at, true
		}
	}
	return at, true
}
