package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// The generic values the parsers produce and the Decoder walks: Fields for an
// object, []any for a list, string, bool, nil, and json.Number for a number, whose text is
// kept so that integers up to 2^64-1 are read exactly.

// ErrGivenTwice is the sentinel of a key given twice in one object.
var ErrGivenTwice = errors.New("key given twice")

// MaxDepth is how deeply objects and lists may nest, as encoding/json and yaml.v3 allow:
// deeper input is refused, with an error naming the path where it goes deeper. The readers
// keep the collections they are in on stacks of their own, so that input nested n deep
// costs O(n) and does not grow the goroutine's stack; only a YAML document handed to
// yaml.v3 (see ParseYAML) is read by nested calls, yaml.v3's and those converting its
// nodes, as deep as this.
const MaxDepth = 10000

// ParseJSON parses one JSON value strictly: a key given twice in one object is an error
// naming its path, so is any data after the value. Numbers are json.Number. The value may
// follow a UTF-8 byte-order mark (what some editors save), which positions in errors do not
// count. Input holding nothing but white space is refused as empty, as ParseJSONStream
// refuses it, and input that starts with a UTF-16 byte-order mark is refused as UTF-16.
func ParseJSON(data []byte) (any, error) {
	p := newJSONParser(data)
	if err := utf16Problem(p.data); err != nil {
		return nil, err
	}
	if p.blank() {
		return nil, errEmpty()
	}
	v, err := p.value()
	if err != nil {
		return nil, p.fix(err, 0)
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	if err := p.problems(); err != nil {
		return nil, err
	}
	return v, nil
}

// ParseJSONStream parses a stream of JSON values separated by white space (what several
// `consul config read` commands print one after another), each as strictly as ParseJSON
// parses one. Problems name the value's position, "value 2: …", when the stream holds more
// than one. Empty input is an error. Like ParseJSON, it accepts a UTF-8 byte-order mark at
// the start, and refuses UTF-16 as ParseJSON does.
func ParseJSONStream(data []byte) ([]any, error) {
	p := newJSONParser(data)
	if err := utf16Problem(p.data); err != nil {
		return nil, err
	}
	var out []any
	var dupes [][]error // per value
	for n := 1; p.dec.More(); n++ {
		start := int(p.dec.InputOffset())
		p.path = p.path[:0]
		v, err := p.value()
		if err != nil {
			err = p.fix(err, start)
			if n == 1 {
				return nil, err
			}
			return nil, fielderr.In("value "+strconv.Itoa(n), err)
		}
		out, dupes = append(out, v), append(dupes, p.dupes)
		p.dupes = nil
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errEmpty()
	}
	var errs []error
	for i, d := range dupes {
		if len(out) > 1 {
			errs = append(errs, fielderr.In(fmt.Sprintf("value %d", i+1), errors.Join(d...)))
		} else {
			errs = append(errs, d...)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

type jsonParser struct {
	data  []byte
	dec   *json.Decoder
	dupes []error
	path  []Step // where the value being read is
}

func newJSONParser(data []byte) *jsonParser {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte-order mark
	p := &jsonParser{data: data}
	p.dec = json.NewDecoder(bytes.NewReader(data))
	p.dec.UseNumber()
	return p
}

// utf16Problem says what is wrong with input that starts with a UTF-16 byte-order mark —
// what Windows PowerShell's > and Out-File write by default — which a JSON reader would
// otherwise refuse at its first byte, without saying why; nil for any other input.
func utf16Problem(data []byte) error {
	var order string
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		order = "little-endian, starting with the bytes 0xff 0xfe"
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		order = "big-endian, starting with the bytes 0xfe 0xff"
	default:
		return nil
	}
	return &fielderr.Error{Detail: "not JSON: the input looks like UTF-16 (" + order + "); it must be UTF-8. " +
		"Windows PowerShell's > writes UTF-16: write the file with | Out-File -Encoding utf8 instead, or convert it (iconv -f UTF-16 -t UTF-8)"}
}

// errEmpty is the error of input that holds no JSON value at all: an empty file, or one of
// white space only (what a command that printed nothing leaves).
func errEmpty() error { return &fielderr.Error{Detail: "no JSON value: the input is empty"} }

// blank reports whether the input (after any byte-order mark) is empty or white space only.
func (p *jsonParser) blank() bool {
	for _, c := range p.data {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *jsonParser) end() error {
	off := int(p.dec.InputOffset())
	if _, err := p.dec.Token(); err != io.EOF {
		for off < len(p.data) && isSpace(p.data[off]) {
			off++
		}
		line, col := position(p.data, off)
		return &fielderr.Error{Detail: fmt.Sprintf("line %d, column %d: data after the JSON value", line, col)}
	}
	return nil
}

func (p *jsonParser) problems() error { return errors.Join(p.dupes...) }

// Field returns the path of key under path: path.key when key is a plain name, else
// path["key"] (label keys such as kubernetes.io/metadata.name).
func Field(path, key string) string {
	if plainName(key) {
		return Child(path, key)
	}
	return Key(path, key)
}

func plainName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// value reads one JSON value. The object or list being read is f (when in is true); those
// around it go on a stack of their own (open), on the heap, rather than in nested calls:
// input nested n deep would otherwise grow the goroutine's stack n frames deep, which the
// collector walks, frame by frame, in every cycle, making the cost of deep input grow
// faster than its size.
func (p *jsonParser) value() (any, error) {
	var open []jsonFrame
	var f jsonFrame
	in := false
	for {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, errSyntax
		}
		v := any(tok) // string, json.Number, bool or nil
		if d, ok := tok.(json.Delim); ok {
			if d != '[' && d != '{' {
				return nil, errSyntax
			}
			if in {
				if len(open)+1 >= MaxDepth {
					return nil, fielderr.New(Display(spell("", p.path)), nil, fmt.Sprintf("nested more than %d levels deep", MaxDepth), nil)
				}
				if len(open) == cap(open) {
					open = grow(open)
				}
				open = append(open, f)
			}
			f, in = jsonFrame{object: d == '{'}, true
			more, err := p.next(&f)
			if err != nil {
				return nil, err
			}
			if more {
				continue
			}
			v = f.value()
			f, in, open = resume(open)
		}
		// v is complete: it goes into the collection it is in, and each collection that it
		// completes into the one around that.
		for in {
			if !f.object {
				f.list = append(f.list, v)
			} else if !f.obj.add(f.key, v) {
				p.dupes = append(p.dupes, fielderr.New(spell("", p.path), f.key, "given twice", ErrGivenTwice))
			}
			p.path = p.path[:len(p.path)-1]
			more, err := p.next(&f)
			if err != nil {
				return nil, err
			}
			if more {
				break
			}
			v = f.value()
			f, in, open = resume(open)
		}
		if !in {
			return v, nil
		}
	}
}

// push puts s on the parser's path.
func (p *jsonParser) push(s Step) {
	if len(p.path) == cap(p.path) {
		p.path = grow(p.path)
	}
	p.path = append(p.path, s)
}

// resume pops the collection around the one just read off open, if there is one.
func resume(open []jsonFrame) (jsonFrame, bool, []jsonFrame) {
	if len(open) == 0 {
		return jsonFrame{}, false, open
	}
	f := open[len(open)-1]
	open[len(open)-1] = jsonFrame{} // so that the array does not keep it alive
	return f, true, open[:len(open)-1]
}

// jsonFrame is a JSON object or list being read.
type jsonFrame struct {
	object bool
	list   []any
	obj    builder
	key    string // of the member being read
}

// value returns the object or list read: non-nil, empty when it has no members.
func (f *jsonFrame) value() any {
	if f.object {
		return f.obj.fields()
	}
	if f.list == nil {
		return []any{}
	}
	return f.list
}

// next moves on to the next member of the collection f: it reports true, with the step to
// the member on the parser's path (and an object member's key read), when there is one, and
// false, with the collection's end read, when there is none.
func (p *jsonParser) next(f *jsonFrame) (bool, error) {
	if !p.dec.More() {
		if _, err := p.dec.Token(); err != nil {
			return false, errSyntax
		}
		return false, nil
	}
	if !f.object {
		p.push(Step{Index: len(f.list)})
		return true, nil
	}
	kt, err := p.dec.Token()
	if err != nil {
		return false, errSyntax
	}
	f.key = kt.(string)
	p.push(Step{Key: f.key, Index: -1})
	return true, nil
}

// errSyntax marks a syntax error found while reading tokens, whose offset encoding/json
// does not give reliably; fix works it out again.
var errSyntax = errors.New("syntax error")

// fix replaces a syntax error in the value starting at start with one naming its line and
// column: encoding/json's whole-value check reports the first bad byte of the value.
func (p *jsonParser) fix(err error, start int) error {
	if !errors.Is(err, errSyntax) {
		return err
	}
	var x any
	uerr := json.Unmarshal(p.data[start:], &x)
	var se *json.SyntaxError
	if errors.As(uerr, &se) {
		se.Offset += int64(start)
		return p.syntax(se)
	}
	return &fielderr.Error{Detail: "not JSON: unexpected end of input"}
}

// syntax rewrites encoding/json's syntax errors to name the line and column, and to show a
// byte that is not ASCII as a byte rather than as the rune it is not.
func (p *jsonParser) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Error() == "unexpected end of JSON input" {
			return &fielderr.Error{Detail: "not JSON: unexpected end of input"}
		}
		off := int(se.Offset)
		line, col := position(p.data, max(off-1, 0))
		msg := se.Error()
		if off >= 1 && off <= len(p.data) {
			if c := p.data[off-1]; c >= 0x80 || c < 0x20 && !isSpace(c) {
				msg = fmt.Sprintf("unexpected byte 0x%02x", c)
			}
		}
		return &fielderr.Error{Detail: fmt.Sprintf("not JSON: line %d, column %d: %s", line, col, msg)}
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return &fielderr.Error{Detail: "not JSON: unexpected end of input"}
	}
	return &fielderr.Error{Detail: "not JSON: " + err.Error(), Err: err}
}

// position returns the 1-based line and column of data[off].
func position(data []byte, off int) (int, int) {
	off = min(off, len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// DecodeEntries reads what `consul config read` prints: one JSON value, a stream of values
// (several commands' output one after another), or a JSON array of values (or a stream of
// arrays), decoding every object with decode, then validating with validate (when not nil)
// each one that decoded without a problem. Problems name the value when the stream holds
// more than one ("value 2: …") and the element of an array ("[3].Services[0]: …"); every
// problem is reported.
func DecodeEntries[T any](data []byte, fold bool, decode func(d *Decoder, x any, path string) T, validate func(T) error) ([]T, error) {
	values, err := ParseJSONStream(data)
	if err != nil {
		return nil, err
	}
	var out []T
	var errs []error
	for n, v := range values {
		d := &Decoder{Fold: fold}
		one := func(x any, path string) {
			before := len(d.errs)
			e := decode(d, x, path)
			if validate != nil && len(d.errs) == before {
				d.Add(fielderr.In(path, validate(e)))
			}
			out = append(out, e)
		}
		if list, ok := v.([]any); ok {
			for i, item := range list {
				one(item, Index("", i))
			}
		} else {
			one(v, "")
		}
		if len(values) > 1 {
			errs = append(errs, fielderr.In(fmt.Sprintf("value %d", n+1), d.Err()))
		} else {
			errs = append(errs, d.Errs()...)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
