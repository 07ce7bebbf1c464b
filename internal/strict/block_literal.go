package strict

// The block reader's block scalars: literal (|) and folded (>), with their chomping (- strips
// the final line breaks, + keeps them all, the default keeps one) and indentation
// indicators (see block.go).

// blockScalar reads the block scalar whose header is at at, the value of a node in the
// collection at column c, and moves to the next line with content after it.
//
// Its content is the lines below indented at least as much as its first line with text
// (or, with an indentation indicator n, c+n columns), less that indentation. A literal
// scalar keeps their line breaks; a folded one joins two lines of text by a space, except
// around lines indented further or starting with a tab, and turns each blank line between
// into a line break.
func (r *blockReader) blockScalar(c, at int) (string, bool) {
	literal := r.src[at] == '|'
	chomp, increment := 0, 0
	i := at + 1
	for k := 0; k < 2 && i < r.le; k++ {
		switch ch := r.src[i]; {
		case (ch == '+' || ch == '-') && chomp == 0:
			chomp = 1
			if ch == '-' {
				chomp = -1
			}
		case '1' <= ch && ch <= '9' && increment == 0:
			increment = int(ch - '0')
		default:
			k = 2
			continue
		}
		i++
	}
	if !r.restIsComment(i) || i < r.le && r.src[i] != ' ' {
		return "", false // text after the header, or a comment not set off by a space
	}
	indent := 0
	if increment > 0 {
		indent = c + increment
	}
	src := r.src
	line := r.line + 1 // the number of the line starting at p
	p := min(r.next, len(src))
	b := r.buf[:0]
	defer func() { r.buf = b[:0] }()

	// breaks passes over the blank lines from p (counting them in trailing), then the
	// indentation of the line after them, and returns where its content starts; it settles
	// the indentation when there is none yet.
	trailing := 0
	breaks := func() (int, bool) {
		most := 0
		for {
			q := p
			for q < len(src) && src[q] == ' ' && (indent == 0 || q-p < indent) {
				q++
			}
			most = max(most, q-p)
			if q < len(src) && src[q] == '\t' && (indent == 0 || q-p < indent) {
				return 0, false // a tab where the indentation is
			}
			n := lineBreak(src, q)
			if n == 0 {
				if indent == 0 {
					indent = max(most, c+1, 1)
				}
				return q, true
			}
			trailing++
			p, line = q+n, line+1
		}
	}
	q, ok := breaks()
	if !ok {
		return "", false
	}
	one, lines := -1, 0 // the only content line (where it starts), and how many there are
	leadingBreak, leadingBlank := false, false
	for q-p == indent && q < len(src) {
		trailingBlank := src[q] == ' ' || src[q] == '\t'
		switch {
		case !literal && !leadingBlank && !trailingBlank && leadingBreak:
			if trailing == 0 {
				b = append(b, ' ')
			}
		case leadingBreak:
			b = append(b, '\n')
		}
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
		leadingBlank = trailingBlank
		e := q
		for e < len(src) && src[e] != '\n' && src[e] != '\r' {
			e++
		}
		b = append(b, src[q:e]...)
		one, lines = q, lines+1
		n := lineBreak(src, e)
		leadingBreak = n > 0
		p = e + n
		if n > 0 {
			line++
		}
		if q, ok = breaks(); !ok {
			return "", false
		}
	}
	if chomp != -1 && leadingBreak {
		b = append(b, '\n')
	}
	if chomp == 1 {
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
	}
	var s string
	if lines == 1 && len(b) > 0 && one+len(b) <= len(src) && src[one:one+len(b)] == string(b) {
		s = src[one : one+len(b)] // one line of text and its line break, as in the input
	} else {
		s = string(b)
	}
	r.next, r.line = p, line-1
	r.advance()
	return s, true
}

// lineBreak returns the length of the line break at s[i]: 1 for "\n", 2 for "\r\n", 0 for
// none.
func lineBreak(s string, i int) int {
	switch {
	case i < len(s) && s[i] == '\n':
		return 1
	case i+1 < len(s) && s[i] == '\r' && s[i+1] == '\n':
		return 2
	}
	return 0
}
