package strict

import (
	"encoding/json"
	"math"
	"strconv"
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

// flowDocument reads a document that is one flow collection in JSON's syntax, such as
// `kubectl get -o json` prints: it may span lines, and only spaces may follow it on its last
// line.
func (r *blockReader) flowDocument() (any, bool) {
	v, end, ok := r.flow(r.cs, len(r.src), 0)
	if !ok {
		return nil, false
	}
	r.line += strings.Count(r.src[r.cs:end], "\n")
	r.le = len(r.src)
	if nl := strings.IndexByte(r.src[end:], '\n'); nl >= 0 {
		r.le = end + nl
	}
	if strings.TrimRight(r.src[end:r.le], " ") != "" {
		return nil, false
	}
	r.advance()
	return v, true
}

// flow reads the JSON value at at, which ends before limit (the end of its line for a value
// in a block, the end of the input for a document), and returns where it ends. Only JSON's
// syntax is read: quoted keys and strings, numbers, true, false and null — values that
// yaml.v3 reads as JSON does. Anything else, a trailing comma or a comment included, gives up.
func (r *blockReader) flow(at, limit, depth int) (any, int, bool) {
	if depth > maxBlockDepth {
		return nil, 0, false
	}
	at = r.flowSpace(at, limit)
	if at >= limit {
		return nil, 0, false
	}
	switch c := r.src[at]; {
	case c == '{':
		base := len(r.members)
		var seen map[string]struct{}
		at = r.flowSpace(at+1, limit)
		if at < limit && r.src[at] == '}' {
			return r.fields(base), at + 1, true
		}
		for {
			if at >= limit || r.src[at] != '"' {
				return nil, 0, false
			}
			k, end, ok := r.quoted(at, limit)
			if !ok || end-at > maxKey || r.hasKey(base, k, &seen) {
				return nil, 0, false
			}
			at = end
			for at < limit && r.src[at] == ' ' { // a key and its ':' share a line
				at++
			}
			if at >= limit || r.src[at] != ':' {
				return nil, 0, false
			}
			v, end, ok := r.flow(at+1, limit, depth+1)
			if !ok {
				return nil, 0, false
			}
			r.members = append(r.members, Member{k, v})
			at = r.flowSpace(end, limit)
			if at < limit && r.src[at] == '}' {
				return r.fields(base), at + 1, true
			}
			if at >= limit || r.src[at] != ',' {
				return nil, 0, false
			}
			at = r.flowSpace(at+1, limit)
		}
	case c == '[':
		base := len(r.items)
		at = r.flowSpace(at+1, limit)
		if at < limit && r.src[at] == ']' {
			return r.list(base), at + 1, true
		}
		for {
			v, end, ok := r.flow(at, limit, depth+1)
			if !ok {
				return nil, 0, false
			}
			r.items = append(r.items, v)
			at = r.flowSpace(end, limit)
			if at < limit && r.src[at] == ']' {
				return r.list(base), at + 1, true
			}
			if at >= limit || r.src[at] != ',' {
				return nil, 0, false
			}
			at++
		}
	case c == '"':
		v, end, ok := r.quoted(at, limit)
		return v, end, ok
	case c == '-' || '0' <= c && c <= '9':
		end := jsonNumber(r.src, at, limit)
		if end < 0 || !r.flowEnd(end, limit) {
			return nil, 0, false
		}
		n := r.src[at:end]
		if f, err := strconv.ParseFloat(n, 64); err != nil || math.IsInf(f, 0) {
			return nil, 0, false // out of range: yaml.v3's problem to report
		}
		return json.Number(n), end, true
	}
	for _, w := range [...]struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(r.src[at:limit], w.word) && r.flowEnd(at+len(w.word), limit) {
			return w.v, at + len(w.word), true
		}
	}
	return nil, 0, false
}

// flowSpace skips spaces and line breaks.
func (r *blockReader) flowSpace(at, limit int) int {
	for at < limit && (r.src[at] == ' ' || r.src[at] == '\n') {
		at++
	}
	return at
}

// flowEnd reports whether a scalar ending at at is followed by what may follow one in a
// flow collection.
func (r *blockReader) flowEnd(at, limit int) bool {
	return at >= limit || strings.IndexByte(" \n,]}", r.src[at]) >= 0
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
