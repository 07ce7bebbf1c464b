package strict

import "strings"

// The block reader's block collections: mappings, sequences, their keys, and the values
// on a key's or an item's line (see block.go).

// item reports whether the current content starts a sequence item: "-" alone or "- ".
func (r *blockReader) item() bool {
	t := r.text()
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ')
}

// node reads the block node at column col: a sequence or a mapping. The collection being
// read is c; those around it, within the node, go on the reader's stack of open ones, above
// base.
func (r *blockReader) node(col int) (any, bool) {
	base := len(r.open)
	for {
		// A block node starts at column col on the current line.
		if r.depth >= maxBlockDepth {
			return nil, false
		}
		r.depth++
		c := r.begin(!r.item(), col)
		for {
			var v any
			var ok bool
			if c.mapping {
				v, col, ok = r.mappingMembers(&c)
			} else {
				v, col, ok = r.seqItems(&c)
			}
			if !ok {
				return nil, false
			}
			if col >= 0 { // the value of the member started is a block node, at column col
				if len(r.open) == cap(r.open) {
					r.open = grow(r.open)
				}
				r.open = append(r.open, c)
				break
			}
			r.depth--
			if c, ok = r.resume(base); !ok {
				return v, true
			}
			r.finish(&c, v) // v, the collection read, is the value of a member of c
		}
	}
}

// seqItems reads the items of the block sequence c up to one whose value is a block node,
// which it starts and leaves to be read, returning the node's column; or to the end of the
// sequence, which it returns, with the column -1. ok is false when the input is not what
// the block reader reads.
func (r *blockReader) seqItems(c *collection) (v any, col int, ok bool) {
	for !r.eof && r.ind == c.col && !r.marker() && r.item() {
		at := r.cs + 1
		for at < r.le && r.src[at] == ' ' {
			at++
		}
		r.startItem(c)
		switch {
		case at == r.le || r.src[at] == '#':
			if v, col, ok = r.nested(c.col, false); col >= 0 || !ok {
				return v, col, ok
			}
		case r.src[at] == '\t':
			return nil, -1, false
		default:
			r.ind, r.cs = r.ind+at-r.cs, at // the node after "- ", at its column
			if r.item() || r.isKey() {
				return nil, r.ind, true
			}
			if v, ok = r.inline(c.col, at); !ok {
				return nil, -1, false
			}
		}
		r.finish(c, v)
	}
	// A line at the column that is not an item ends a sequence that is the value of a key
	// at the column.
	ok = r.eof || r.marker() || r.ind <= c.col
	return r.end(c), -1, ok
}

// mappingMembers is seqItems for the members of the block mapping c.
func (r *blockReader) mappingMembers(c *collection) (v any, col int, ok bool) {
	for !r.eof && r.ind == c.col && !r.marker() {
		var key string
		var at int
		if key, at, ok = r.key(); !ok {
			return nil, -1, false
		}
		r.startMember(c, key)
		for at < r.le && r.src[at] == ' ' {
			at++
		}
		switch {
		case at == r.le || r.src[at] == '#':
			if v, col, ok = r.nested(c.col, true); col >= 0 || !ok {
				return v, col, ok
			}
		case r.src[at] == '\t':
			return nil, -1, false
		default:
			if v, ok = r.inline(c.col, at); !ok {
				return nil, -1, false
			}
		}
		r.finish(c, v)
	}
	ok = r.ends(c.col)
	return r.end(c), -1, ok
}

// ends reports whether the current line ends the construct at column c properly: the end
// of input, a document separator, or a line less indented.
func (r *blockReader) ends(c int) bool { return r.eof || r.marker() || r.ind < c }

// nested reads the value of a key or an item with nothing after it on its line: what is on
// the lines below, more indented than c (or, for a key, a sequence at c), else null. A
// block node there is left to be read: nested returns its column (else -1).
func (r *blockReader) nested(c int, key bool) (v any, col int, ok bool) {
	r.advance()
	switch {
	case r.eof || r.marker():
		return nil, -1, true
	case r.ind > c:
		if r.item() || r.isKey() {
			return nil, r.ind, true
		}
		v, ok = r.inline(c, r.cs)
		return v, -1, ok
	case key && r.ind == c && r.item():
		return nil, c, true
	}
	return nil, -1, true
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
