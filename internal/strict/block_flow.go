package strict

import "strings"

// The block reader's flow collections: [a, b] and {k: v} of quoted and plain scalars, on
// one line or over several — JSON among them, which YAML reads as flow collections (see
// block.go).

// flowDocument reads a document that is one flow collection, such as `kubectl get -o json`
// prints, and moves to the next line with content after it.
func (r *blockReader) flowDocument() (any, bool) {
	return r.flowValue(r.cs)
}

// flowValue reads the flow collection at at — a document, or the value of a node — and
// moves to the next line with content after it; only spaces and a comment may follow it on
// its last line.
func (r *blockReader) flowValue(at int) (any, bool) {
	v, end, ok := r.flow(at, r.depth)
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
// or whose ':' is on another line.
func (r *blockReader) flow(at, depth int) (any, int, bool) {
	if depth > maxBlockDepth {
		return nil, 0, false
	}
	at, ok := r.flowSpace(at)
	if !ok || at >= len(r.src) {
		return nil, 0, false
	}
	switch c := r.src[at]; c {
	case '{':
		return r.flowMapping(at, depth)
	case '[':
		return r.flowSequence(at, depth)
	case '"':
		return r.quoted(at, len(r.src))
	case '\'':
		return r.singleQuoted(at, len(r.src))
	}
	s, end, ok := r.flowPlain(at)
	if !ok {
		return nil, 0, false
	}
	v, ok, err := plainValue(s)
	if !ok {
		return nil, 0, false
	}
	if err != nil {
		r.fail(err.Error())
	}
	return v, end, true
}

func (r *blockReader) flowMapping(at, depth int) (any, int, bool) {
	base := len(r.members)
	var seen map[string]int
	at, ok := r.flowSpace(at + 1)
	if ok && at < len(r.src) && r.src[at] == '}' {
		return r.fields(base), at + 1, true
	}
	for ok && at < len(r.src) {
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
			return nil, 0, false
		}
		for end < len(r.src) && (r.src[end] == ' ' || r.src[end] == '\t') {
			end++ // a key and its ':' share a line
		}
		if end >= len(r.src) || r.src[end] != ':' {
			return nil, 0, false
		}
		line := r.line
		first := r.find(base, k, &seen)
		if at, ok = r.flowSpace(end + 1); !ok || at >= len(r.src) || r.src[at] == ',' || r.src[at] == '}' {
			return nil, 0, false
		}
		mark := len(r.problems)
		r.path = append(r.path, Step{Key: k, Index: -1})
		var v any
		v, end, ok = r.flow(at, depth+1)
		if !ok {
			return nil, 0, false
		}
		if first >= 0 {
			r.problems = append(r.problems[:mark], r.givenTwice(r.mlines[base+first], line))
		}
		if r.path = r.path[:len(r.path)-1]; first < 0 {
			r.add(base, k, v, line, seen)
		}
		if at, ok = r.flowSpace(end); !ok || at >= len(r.src) {
			return nil, 0, false
		}
		switch r.src[at] {
		case '}':
			return r.fields(base), at + 1, true
		case ',':
			if at, ok = r.flowSpace(at + 1); ok && at < len(r.src) && r.src[at] == '}' {
				return r.fields(base), at + 1, true // a trailing comma
			}
			continue
		}
		break
	}
	return nil, 0, false
}

func (r *blockReader) flowSequence(at, depth int) (any, int, bool) {
	base := len(r.items)
	at, ok := r.flowSpace(at + 1)
	if ok && at < len(r.src) && r.src[at] == ']' {
		return r.list(base), at + 1, true
	}
	for i := 0; ok; i++ {
		r.path = append(r.path, Step{Index: i})
		var v any
		var end int
		v, end, ok = r.flow(at, depth+1)
		r.path = r.path[:len(r.path)-1]
		if !ok {
			return nil, 0, false
		}
		r.items = append(r.items, v)
		if at, ok = r.flowSpace(end); !ok || at >= len(r.src) {
			return nil, 0, false
		}
		switch r.src[at] {
		case ']':
			return r.list(base), at + 1, true
		case ',':
			if at, ok = r.flowSpace(at + 1); ok && at < len(r.src) && r.src[at] == ']' {
				return r.list(base), at + 1, true // a trailing comma
			}
			continue
		}
		break // a ':' (a pair in a sequence) or anything else
	}
	return nil, 0, false
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
