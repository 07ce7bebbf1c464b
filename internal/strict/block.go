package strict

import (
	"strings"
)

// The block reader: a direct reader of the YAML that kubectl, Helm and people write most —
// block mappings and sequences of plain, quoted and literal scalars, and JSON (what
// `kubectl get -o json` prints is a YAML flow mapping) — which builds the generic values
// without yaml.v3's node tree. On a cluster dump it allocates a few bytes per input byte
// where the node tree alone takes about twenty, and it runs several times faster.
//
// It gives up (ok is false) on anything outside that subset, and on anything the full
// reader would report as a problem, so that ParseYAML then reads the stream with yaml.v3 and
// the answer, problems included, is the same either way. Outside the subset are: flow
// collections not in JSON's syntax (plain scalars in them, trailing commas), anchors,
// aliases, tags, merge keys, directives, "..." markers, multi-line plain or quoted scalars,
// folded (>) and keep (|+) block scalars, quoted, complex or very long keys, a key given
// twice, tabs, carriage returns and any byte outside printable ASCII, and every plain scalar
// whose type is not plainly a string, a decimal integer, a boolean or a null (a float, a
// timestamp, an octal-looking number, anything with an underscore or a sign). FuzzBlock and
// TestBlockReaderOnRandomDocuments check that the two readers agree.
//
// Strings are slices of one copy of the input: what a caller keeps of the values keeps that
// copy alive.

// maxBlockDepth bounds the block reader's recursion; deeper input goes to yaml.v3, which
// has its own bound (MaxDepth).
const maxBlockDepth = 2000

type blockReader struct {
	src   string
	line  int // number of the current line, from 1
	start int // where the current line starts
	ind   int // the current line's indentation, or the column of a node after "- "
	cs    int // where the current line's (or node's) content starts
	le    int // where the current line ends (its '\n', or len(src))
	eof   bool
	depth int

	// Objects and lists are read onto these stacks, then copied out at their exact sizes
	// into slabs shared by many small ones: a few allocations per thousand values.
	members []Member
	items   []any
	mslab   []Member
	islab   []any
}

// slab is how many members or items a slab holds.
const slab = 1024

// fields pops the members from base on the stack, as an object.
func (r *blockReader) fields(base int) Fields { return pop(&r.members, &r.mslab, base) }

// list pops the items from base on the stack, as a list.
func (r *blockReader) list(base int) []any { return pop(&r.items, &r.islab, base) }

// pop removes the values from base on stack and returns them at their exact size (a
// non-nil empty slice for none), copied into the slab when they are few, else into their
// own array.
func pop[T any](stack, slabp *[]T, base int) []T {
	vals := (*stack)[base:]
	var out []T
	switch n := len(vals); {
	case n == 0:
		out = make([]T, 0)
	case n > slab/4:
		out = make([]T, n)
		copy(out, vals)
	default:
		if len(*slabp)+n > cap(*slabp) {
			*slabp = make([]T, 0, slab)
		}
		at := len(*slabp)
		*slabp = append(*slabp, vals...)
		out = (*slabp)[at:len(*slabp):len(*slabp)]
	}
	clear(vals)
	*stack = (*stack)[:base]
	return out
}

// hasKey reports whether the object being read from base on the stack has key: a scan while
// it is small, a map (seen, made on demand) when large.
func (r *blockReader) hasKey(base int, key string, seen *map[string]struct{}) bool {
	m := r.members[base:]
	if *seen == nil && len(m) < scanLimit {
		return Fields(m).Has(key)
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*len(m))
		for _, f := range m {
			(*seen)[f.Key] = struct{}{}
		}
	}
	if _, ok := (*seen)[key]; ok {
		return true
	}
	(*seen)[key] = struct{}{}
	return false
}

// parseBlock reads data as a stream of block-YAML documents, or reports that it cannot.
func parseBlock(data []byte) (docs []Document, ok bool) {
	for _, c := range data {
		if c != '\n' && (c < 0x20 || c > 0x7e) {
			return nil, false
		}
	}
	r := &blockReader{src: string(data), le: -1}
	r.advance()
	for !r.eof {
		line, explicit := r.line, false
		if r.docStart() {
			explicit = true
			r.advance()
		} else if r.ind == 0 && (strings.HasPrefix(r.text(), "---") || strings.HasPrefix(r.text(), "...") || r.text()[0] == '%') {
			return nil, false
		}
		if r.eof || r.docStart() {
			if !explicit {
				return nil, false
			}
			docs = append(docs, Document{Line: line})
			continue
		}
		if !explicit {
			line = r.line
		}
		var v any
		var ok bool
		if c := r.src[r.cs]; c == '{' || c == '[' {
			v, ok = r.flowDocument()
		} else {
			v, ok = r.node(r.ind)
		}
		if !ok || !r.eof && !r.docStart() {
			return nil, false
		}
		docs = append(docs, Document{Value: v, Line: line})
	}
	return docs, true
}

// advance moves to the next line that is neither blank nor a comment.
func (r *blockReader) advance() {
	pos := r.le + 1
	for pos < len(r.src) {
		r.line++
		end := strings.IndexByte(r.src[pos:], '\n')
		if end < 0 {
			end = len(r.src)
		} else {
			end += pos
		}
		ind := pos
		for ind < end && r.src[ind] == ' ' {
			ind++
		}
		if ind < end && r.src[ind] != '#' {
			r.start, r.ind, r.cs, r.le = pos, ind-pos, ind, end
			return
		}
		r.le = end
		pos = end + 1
	}
	r.eof = true
}

// text is the current line's content.
func (r *blockReader) text() string { return r.src[r.cs:r.le] }

// docStart reports whether the current line is a document separator: "---" alone.
func (r *blockReader) docStart() bool {
	if r.ind != 0 || r.cs != r.start || !strings.HasPrefix(r.text(), "---") {
		return false
	}
	return strings.TrimRight(r.text()[3:], " ") == ""
}

// item reports whether the current content starts a sequence item: "-" alone or "- ".
func (r *blockReader) item() bool {
	t := r.text()
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ')
}

// node reads the block node at column c: a sequence or a mapping.
func (r *blockReader) node(c int) (any, bool) {
	if r.depth++; r.depth > maxBlockDepth {
		return nil, false
	}
	defer func() { r.depth-- }()
	if r.item() {
		return r.seq(c)
	}
	return r.mapping(c)
}

// ends reports whether the current line ends the construct at column c properly: the end
// of input, a document separator, or a line less indented.
func (r *blockReader) ends(c int) bool { return r.eof || r.docStart() || r.ind < c }

func (r *blockReader) seq(c int) (any, bool) {
	base := len(r.items)
	for !r.eof && r.ind == c && !r.docStart() && r.item() {
		at := r.cs + 1
		for at < r.le && r.src[at] == ' ' {
			at++
		}
		var v any
		var ok bool
		switch {
		case at == r.le || r.src[at] == '#':
			v, ok = r.nested(c, false)
		default:
			r.ind, r.cs = r.ind+at-r.cs, at // the node after "- ", at its column
			if r.item() || r.isKey() {
				v, ok = r.node(r.ind)
			} else {
				v, ok = r.inline(c, at)
			}
		}
		if !ok {
			return nil, false
		}
		r.items = append(r.items, v)
	}
	// A line at c that is not an item ends a sequence that is the value of a key at c.
	return r.list(base), r.eof || r.docStart() || r.ind <= c
}

func (r *blockReader) mapping(c int) (any, bool) {
	base := len(r.members)
	var seen map[string]struct{}
	for !r.eof && r.ind == c && !r.docStart() {
		key, at, ok := r.key()
		if !ok || r.hasKey(base, key, &seen) {
			return nil, false
		}
		for at < r.le && r.src[at] == ' ' {
			at++
		}
		var v any
		if at == r.le || r.src[at] == '#' && r.src[at-1] == ' ' {
			v, ok = r.nested(c, true)
		} else {
			v, ok = r.inline(c, at)
		}
		if !ok {
			return nil, false
		}
		r.members = append(r.members, Member{key, v})
	}
	return r.fields(base), r.ends(c)
}

// nested reads the value of a key or an item with nothing after it on its line: the block
// node on the lines below, more indented than c (or, for a key, a sequence at c), else null.
func (r *blockReader) nested(c int, key bool) (any, bool) {
	r.advance()
	switch {
	case r.eof || r.docStart():
		return nil, true
	case r.ind > c:
		return r.node(r.ind)
	case key && r.ind == c && r.item():
		return r.node(c)
	}
	return nil, true
}

// isKey reports whether the content starts with a key: a plain key followed by ':' and a
// space or the end of the line.
func (r *blockReader) isKey() bool {
	_, _, ok := r.key()
	return ok
}

// key reads the key the content starts with, and returns where its value starts. A key is
// a plain scalar without spaces: it starts with a letter, digit, '_', '/' or '.', and runs to
// the first ':' followed by a space or the end of the line (so "f:metadata" and
// `k:{"port":80}`, the keys of managed fields, are keys).
func (r *blockReader) key() (string, int, bool) {
	i := r.cs
	if i >= r.le || !keyStart(r.src[i]) {
		return "", 0, false
	}
	for ; i < r.le && i-r.cs <= maxKey; i++ {
		switch c := r.src[i]; {
		case c == ':' && (i+1 == r.le || r.src[i+1] == ' '):
			return r.src[r.cs:i], i + 1, true
		case c == ' ':
			return "", 0, false
		}
	}
	return "", 0, false
}

// maxKey bounds a key's length: YAML allows at most 1024 characters for a key without "?",
// and yaml.v3 counts them its own way, so long keys are left to it.
const maxKey = 1000

func keyStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '/' || c == '.'
}

// inline reads the scalar at at, on the current line, the value of a node at column c, and
// moves past it: a quoted, empty-flow or plain scalar on this line, or a literal block
// scalar on the lines below.
func (r *blockReader) inline(c, at int) (any, bool) {
	var v any
	var end int
	var ok bool
	switch r.src[at] {
	case '|':
		return r.literal(c, at)
	case '"':
		v, end, ok = r.doubleQuoted(at)
	case '\'':
		v, end, ok = r.singleQuoted(at)
	case '{', '[':
		v, end, ok = r.flow(at, r.le, 0)
	default:
		v, end, ok = r.plain(at)
	}
	if !ok || !r.restIsComment(end) {
		return nil, false
	}
	r.advance()
	// A more indented line would continue the scalar (a multi-line scalar) or be an error.
	return v, r.eof || r.docStart() || r.ind <= c
}

// restIsComment reports whether the line holds only spaces from i, perhaps then a comment.
func (r *blockReader) restIsComment(i int) bool {
	j := i
	for j < r.le && r.src[j] == ' ' {
		j++
	}
	return j == r.le || j > i && r.src[j] == '#'
}
