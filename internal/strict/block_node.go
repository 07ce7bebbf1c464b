package strict

import "strings"

// The block reader's block collections: mappings, sequences, their keys, and the values
// on a key's or an item's line (see block.go).

// item reports whether the current content starts a sequence item: "-" alone or "- ".
func (r *blockReader) item() bool {
	t := r.text()
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ')
}

// node reads the block node at column c: a sequence or a mapping.
func (r *blockReader) node(c int) (any, bool) {
	if r.depth++; r.depth > maxBlockDepth {
		r.depth--
		return nil, false
	}
	var v any
	var ok bool
	if r.item() {
		v, ok = r.seq(c)
	} else {
		v, ok = r.mapping(c)
	}
	r.depth--
	return v, ok
}

// ends reports whether the current line ends the construct at column c properly: the end
// of input, a document separator, or a line less indented.
func (r *blockReader) ends(c int) bool { return r.eof || r.marker() || r.ind < c }

func (r *blockReader) seq(c int) (any, bool) {
	base := len(r.items)
	for i := 0; !r.eof && r.ind == c && !r.marker() && r.item(); i++ {
		at := r.cs + 1
		for at < r.le && r.src[at] == ' ' {
			at++
		}
		r.path = append(r.path, Step{Index: i})
		var v any
		var ok bool
		switch {
		case at == r.le || r.src[at] == '#':
			v, ok = r.nested(c, false)
		case r.src[at] == '\t':
			return nil, false
		default:
			r.ind, r.cs = r.ind+at-r.cs, at // the node after "- ", at its column
			if r.item() || r.isKey() {
				v, ok = r.node(r.ind)
			} else {
				v, ok = r.inline(c, at)
			}
		}
		r.path = r.path[:len(r.path)-1]
		if !ok {
			return nil, false
		}
		r.items = append(r.items, v)
	}
	// A line at c that is not an item ends a sequence that is the value of a key at c.
	return r.list(base), r.eof || r.marker() || r.ind <= c
}

func (r *blockReader) mapping(c int) (any, bool) {
	base := len(r.members)
	var seen map[string]int
	for !r.eof && r.ind == c && !r.marker() {
		key, at, ok := r.key()
		if !ok {
			return nil, false
		}
		line := r.line
		first := r.find(base, key, &seen)
		for at < r.le && r.src[at] == ' ' {
			at++
		}
		mark := len(r.problems)
		r.path = append(r.path, Step{Key: key, Index: -1})
		var v any
		switch {
		case at == r.le || r.src[at] == '#':
			v, ok = r.nested(c, true)
		case r.src[at] == '\t':
			return nil, false
		default:
			v, ok = r.inline(c, at)
		}
		if !ok {
			return nil, false
		}
		if first >= 0 {
			// As the full reader does: the first value stays, the second is not judged.
			r.problems = append(r.problems[:mark], r.givenTwice(r.mlines[base+first], line))
		}
		r.path = r.path[:len(r.path)-1]
		if first >= 0 {
			continue
		}
		r.add(base, key, v, line, seen)
	}
	return r.fields(base), r.ends(c)
}

// nested reads the value of a key or an item with nothing after it on its line: what is on
// the lines below, more indented than c (or, for a key, a sequence at c), else null.
func (r *blockReader) nested(c int, key bool) (any, bool) {
	r.advance()
	switch {
	case r.eof || r.marker():
		return nil, true
	case r.ind > c:
		if r.item() || r.isKey() {
			return r.node(r.ind)
		}
		return r.inline(c, r.cs)
	case key && r.ind == c && r.item():
		return r.node(c)
	}
	return nil, true
}

// isKey reports whether the content starts with a key.
func (r *blockReader) isKey() bool {
	_, _, ok := r.key()
	return ok
}

// key reads the key the content starts with, and returns where its value starts: a quoted
// scalar on one line, or a plain one (spaces and all), followed by ':' and a space or the
// end of the line — so "f:metadata" and `k:{"port":80}`, the keys of managed fields, are
// keys. A key's text is its value whatever it looks like ("80", "true"), as in the full
// reader; a plain "<<" is a merge key, which the block reader leaves to yaml.v3.
func (r *blockReader) key() (string, int, bool) {
	i := r.cs
	if i >= r.le {
		return "", 0, false
	}
	if q := r.src[i]; q == '"' || q == '\'' {
		var k string
		var end int
		var ok bool
		if q == '"' {
			k, end, ok = r.quoted(i, r.le)
		} else {
			k, end, ok = r.singleQuoted(i, r.le)
		}
		if !ok || end-i > maxKey {
			return "", 0, false
		}
		for end < r.le && r.src[end] == ' ' {
			end++
		}
		if end < r.le && r.src[end] == ':' && (end+1 == r.le || r.src[end+1] == ' ') {
			return k, end + 1, true
		}
		return "", 0, false
	}
	if !plainFirst(r.src, i, r.le, false) {
		return "", 0, false
	}
	for j := i + 1; j < r.le && j-i <= maxKey; j++ {
		switch r.src[j] {
		case ':':
			if j+1 == r.le || r.src[j+1] == ' ' || r.src[j+1] == '\t' {
				k := strings.TrimRight(r.src[i:j], " \t")
				if k == "<<" {
					return "", 0, false
				}
				return k, j + 1, true
			}
		case '#':
			if r.src[j-1] == ' ' || r.src[j-1] == '\t' {
				return "", 0, false // a comment: no key on this line
			}
		}
	}
	return "", 0, false
}

// maxKey bounds a key's length: YAML allows at most 1024 characters for a key without "?",
// and yaml.v3 counts them its own way, so long keys are left to it.
const maxKey = 1000

// plainFirst reports whether a plain scalar may start at s[i] (the line ending at le): any
// character but YAML's indicators, "-" followed by more than a space, and — but in a flow
// collection — "?" or ":" followed by more than a space (":authority").
func plainFirst(s string, i, le int, flow bool) bool {
	switch s[i] {
	case '-': // followed by a blank or a line break, a block entry (an error in a flow)
		return i+1 < le && !blankOrBreak(s[i+1:])
	case '?', ':':
		return !flow && i+1 < le && s[i+1] != ' ' && s[i+1] != '\t'
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\t':
		return false
	}
	return true
}

// blankOrBreak reports whether s starts with what yaml.v3 takes for a blank, a line break
// or the end: space, tab, CR, LF, NUL, or NEL, LS or PS in UTF-8.
func blankOrBreak(s string) bool {
	if s == "" {
		return true
	}
	switch s[0] {
	case ' ', '\t', '\r', '\n', 0:
		return true
	}
	return strings.HasPrefix(s, "\u0085") || strings.HasPrefix(s, "\u2028") || strings.HasPrefix(s, "\u2029")
}

// inline reads the value at at, on the current line, of a node in the collection at column
// c, and moves past it: a quoted or plain scalar (perhaps going on over the lines below), a
// flow collection, or a block scalar on the lines below.
func (r *blockReader) inline(c, at int) (any, bool) {
	var v any
	var ok bool
	switch r.src[at] {
	case '|', '>':
		v, ok = r.blockScalar(c, at)
	case '"', '\'':
		v, ok = r.quotedScalar(at, r.src[at] == '"')
	case '{', '[':
		v, ok = r.flowValue(at)
	default:
		if !plainFirst(r.src, at, r.le, false) {
			return nil, false
		}
		var s string
		if s, ok = r.plainScalar(c, at); !ok {
			return nil, false
		}
		var err error
		if v, ok, err = plainValue(s); !ok {
			return nil, false
		} else if err != nil {
			r.fail(err.Error())
		}
	}
	// A more indented line would continue the scalar (a multi-line scalar) or be an error.
	return v, ok && (r.eof || r.marker() || r.ind <= c)
}
