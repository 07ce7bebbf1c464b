package strict

import (
	"bytes"
	"errors"
	"strings"
)

// The block reader: a direct reader of the YAML that kubectl, Helm and people write — block
// mappings and sequences; plain, quoted, literal and folded scalars over one line or many;
// flow collections of quoted and plain scalars, and so JSON (what `kubectl get -o json`
// prints is a YAML flow mapping) — which builds the generic values without yaml.v3's node
// tree: BenchmarkParse measures it beside yaml.v3 on kubectl's dumps.
//
// It reads one document at a time. A document holding anything else — anchors, aliases,
// tags, merge keys, complex keys, directives, tabs where YAML gives them a meaning, the
// rarer line breaks and control characters — is handed to yaml.v3, that document alone, and
// a syntax error anywhere to yaml.v3 for the whole stream, so that the answer, problems and
// errors included, is yaml.v3's either way. The problems the full reader reports in a
// document's content (a key given twice, an ambiguous number) the block reader reports the
// same, with the same paths and lines, where they are. TestBlockReaderOnRandomDocuments,
// FuzzBlock and the corpus tests hold the two readers to the same answers.
//
// Strings are slices of one copy of the input where they can be (most are): what a caller
// keeps of the values keeps that copy alive.

// maxBlockDepth bounds the block reader's nesting; deeper input goes to yaml.v3, which has
// its own bound (MaxDepth).
const maxBlockDepth = 5000

type blockReader struct {
	data []byte
	src  string
	root string // the stream's root, for problems' paths

	// The current line: its number (from 1), where it starts, where its content starts
	// after the indentation, its indentation (or the column of a node after "- "), where
	// its content ends (before "\r\n" or "\n"), and where the next line starts.
	line, start, cs, ind, le, next int
	eof                            bool
	ended                          bool // the last document ended with "..."
	depth                          int  // how many block collections the reader is in

	// Objects and lists are read onto these stacks, then copied out at their exact sizes
	// into slabs shared by many small ones, so that a small object or list costs no
	// allocation of its own. mlines holds the line of each member's key.
	members []Member
	mlines  []int
	items   []any
	mslab   []Member
	islab   []any

	// open holds the collections around the one being read, block and flow, the
	// innermost last (see collection). seen holds the key maps of those that are mappings
	// with many keys (see find).
	open     []collection
	seen     []map[string]int
	path     []Step // where the value being read is
	problems []Problem
	buf      []byte // scratch for scalars that are not slices of the input

	odd int // the first byte at or after oddFrom that the reader does not read
	// oddFrom is where the search for odd started; -1 before the first.
	oddFrom int
}

// parseStream reads data as a stream of documents: each with the block reader, or, when
// it holds what the block reader does not read, with yaml.v3 (full counts those
// documents). ok is false when yaml.v3 finds a syntax error: the caller reads the whole
// stream with yaml.v3 to report it as it does.
func parseStream(data []byte, root string) (docs []Document, full int, ok bool) {
	r := &blockReader{data: data, src: string(data), root: root, oddFrom: -1}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		r.next = 3 // a byte-order mark
	}
	// covered is where the part of the stream not yet judged starts: the end of the last
	// document read, or the start. Its line is coveredLine.
	covered, coveredLine := r.next, 1
	r.advance()
	for !r.eof || covered < len(r.src) && r.firstOdd(covered) < len(r.src) {
		if r.ended && !r.eof && !r.docStart() && r.src[r.cs] != '%' {
			return nil, 0, false // a document after "..." without "---", which yaml.v3 refuses
		}
		if !r.eof {
			if doc, ok := r.document(); ok && r.firstOdd(covered) >= r.offset() {
				docs = append(docs, doc)
				covered, coveredLine = r.offset(), r.line
				continue
			}
		}
		// Read by yaml.v3: the document, and any that a directive or a "..." line joins
		// to it, with the comments before them.
		clear(r.seen)
		r.members, r.mlines, r.items, r.path, r.open, r.seen, r.depth, r.ended = r.members[:0], r.mlines[:0], r.items[:0], r.path[:0], r.open[:0], r.seen[:0], 0, false
		start, line := covered, coveredLine
		end := r.segmentEnd(start)
		more, err := parseSegment(data[start:end], len(data), r.root, line-1)
		if err != nil {
			return nil, 0, false
		}
		full += len(more)
		docs = append(docs, more...)
		covered, coveredLine = end, line+lineBreaks(data[start:end])
		r.next, r.line, r.eof = end, coveredLine-1, false
		r.advance()
	}
	return docs, full, true
}

// lineBreaks counts the line breaks of s as yaml.v3 counts them: a line feed, a carriage
// return alone or before one, NEL, LS and PS.
func lineBreaks(s []byte) int {
	n := bytes.Count(s, []byte("\n"))
	if bytes.IndexByte(s, '\r') < 0 && bytes.IndexByte(s, 0xc2) < 0 && bytes.IndexByte(s, 0xe2) < 0 {
		return n
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n'):
			n++
		case bytes.HasPrefix(s[i:], []byte("\u0085")), bytes.HasPrefix(s[i:], []byte("\u2028")), bytes.HasPrefix(s[i:], []byte("\u2029")):
			n++
		}
	}
	return n
}

// offset is where the current line starts, or the end of the input.
func (r *blockReader) offset() int {
	if r.eof {
		return len(r.src)
	}
	return r.start
}

// document reads the document at the current line, leaving the reader at the line after
// it: a document separator, or the end of the input.
func (r *blockReader) document() (Document, bool) {
	line := r.line
	explicit := r.docStart()
	r.ended = false
	if explicit {
		r.advance()
	}
	if r.eof || r.docStart() || explicit && r.docEnd() {
		r.skipDocEnd()
		return Document{Line: line}, explicit
	}
	if r.ind == 0 && (r.src[r.cs] == '%' || strings.HasPrefix(r.text(), "---") || strings.HasPrefix(r.text(), "...")) {
		return Document{}, false // a directive, a document end, content on a separator line
	}
	if !explicit {
		line = r.line
	}
	var v any
	ok := false
	switch c := r.src[r.cs]; {
	case c == '{' || c == '[':
		v, ok = r.flowDocument()
	case r.item() || r.isKey():
		v, ok = r.node(r.ind)
	case c == '"' || c == '\'' || plainFirst(r.src, r.cs, r.le, true):
		// A scalar alone, such as a JSON string or number: read as in a flow collection,
		// and only when that reading ends the document on its line.
		v, ok = r.flowDocument()
	}
	if !ok || !r.eof && !r.docStart() && !r.docEnd() {
		r.problems = r.problems[:0]
		return Document{}, false
	}
	r.skipDocEnd()
	doc := Document{Value: v, Line: line}
	if len(r.problems) > 0 {
		doc.Problems = r.problems
		doc.Err = errors.Join(errs(r.problems)...)
		r.problems = nil
	}
	return doc, true
}

// segmentEnd returns where the part of the stream that yaml.v3 must read, starting with
// the document at start, ends: at the next document separator line, past those that
// follow a directive (whose document it is).
func (r *blockReader) segmentEnd(start int) int {
	directive := false
	for pos := start; pos < len(r.src); {
		end := strings.IndexByte(r.src[pos:], '\n')
		if end < 0 {
			break
		}
		switch line := r.src[pos : pos+end]; {
		case strings.HasPrefix(line, "%"):
			directive = true
		case pos > start && isSeparator(line, "---"):
			if !directive {
				return pos
			}
			directive = false
		}
		pos += end + 1
	}
	return len(r.src)
}

// isSeparator reports whether line starts with the marker ("---" or "...") followed by
// white space or nothing, as a document marker is.
func isSeparator(line, marker string) bool {
	if !strings.HasPrefix(line, marker) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r'
}

// nextLine moves to the next line, blank or not; false at the end of the input.
func (r *blockReader) nextLine() bool {
	pos := r.next
	if pos >= len(r.src) {
		r.eof = true
		r.start, r.cs, r.le, r.ind = len(r.src), len(r.src), len(r.src), 0
		return false
	}
	r.line++
	end := strings.IndexByte(r.src[pos:], '\n')
	if end < 0 {
		end = len(r.src)
		r.next = end + 1
	} else {
		end += pos
		r.next = end + 1
		if end > pos && r.src[end-1] == '\r' {
			end--
		}
	}
	ind := pos
	for ind < end && r.src[ind] == ' ' {
		ind++
	}
	r.start, r.ind, r.cs, r.le = pos, ind-pos, ind, end
	return true
}

// advance moves to the next line that is neither blank nor a comment.
func (r *blockReader) advance() {
	for r.nextLine() {
		if r.cs < r.le && r.src[r.cs] != '#' {
			return
		}
	}
}

// settle moves on from the current line if it is blank or a comment, to the next that is
// neither.
func (r *blockReader) settle() {
	if !r.eof && (r.cs == r.le || r.src[r.cs] == '#') {
		r.advance()
	}
}

// text is the current line's content.
func (r *blockReader) text() string { return r.src[r.cs:r.le] }

// docStart reports whether the current line is a document separator: "---" alone, or with
// a comment.
func (r *blockReader) docStart() bool {
	if r.eof || r.ind != 0 || !isSeparator(r.text(), "---") {
		return false
	}
	rest := strings.TrimLeft(r.text()[3:], " ")
	return rest == "" || rest[0] == '#' && len(rest) < len(r.text())-3
}

// docEnd reports whether the current line is a document end marker: "..." alone, or with a
// comment.
func (r *blockReader) docEnd() bool {
	if r.eof || r.ind != 0 || !isSeparator(r.text(), "...") {
		return false
	}
	rest := strings.TrimLeft(r.text()[3:], " ")
	return rest == "" || rest[0] == '#' && len(rest) < len(r.text())-3
}

// skipDocEnd moves past a document end marker on the current line, if there is one.
func (r *blockReader) skipDocEnd() {
	if r.docEnd() {
		r.ended = true
		r.advance()
	}
}

// marker reports whether the current line starts with a document marker ("---" or "...")
// at column 0, which ends every construct in the document.
func (r *blockReader) marker() bool {
	return !r.eof && r.ind == 0 && (isSeparator(r.text(), "---") || isSeparator(r.text(), "..."))
}

// restIsComment reports whether the line holds only spaces and tabs from i, perhaps then
// a comment.
func (r *blockReader) restIsComment(i int) bool {
	j := i
	for j < r.le && (r.src[j] == ' ' || r.src[j] == '\t') {
		j++
	}
	return j == r.le || j > i && r.src[j] == '#'
}
