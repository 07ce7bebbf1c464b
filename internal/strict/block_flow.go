package strict

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// The block reader's JSON: documents and values in JSON's syntax, which YAML reads as flow
// collections (see block.go).

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
