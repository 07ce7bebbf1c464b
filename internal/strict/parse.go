package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// The generic values the parsers produce and the Decoder walks: map[string]any for an
// object, []any for a list, string, bool, nil, and json.Number for a number, whose text is
// kept so that integers up to 2^64-1 are read exactly.

// ErrGivenTwice is the sentinel of a key given twice in one object.
var ErrGivenTwice = errors.New("key given twice")

// MaxDepth is how deeply objects and lists may nest; deeper input is refused rather than
// risking the stack on hostile input.
const MaxDepth = 10000

// ParseJSON parses one JSON value strictly: a key given twice in one object is an error
// naming its path, so is any data after the value. Numbers are json.Number.
func ParseJSON(data []byte) (any, error) {
	p := newJSONParser(data)
	v, err := p.value(nil, 0)
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
// than one. Empty input is an error.
func ParseJSONStream(data []byte) ([]any, error) {
	p := newJSONParser(data)
	var out []any
	var dupes [][]error // per value
	for n := 1; p.dec.More(); n++ {
		start := int(p.dec.InputOffset())
		v, err := p.value(nil, 0)
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
		return nil, &fielderr.Error{Detail: "no JSON value: the input is empty"}
	}
	var errs []error
	for i, d := range dupes {
		if len(out) > 1 {
			errs = append(errs, Prefix(fmt.Sprintf("value %d: ", i+1), errors.Join(d...)))
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
}

func newJSONParser(data []byte) *jsonParser {
	p := &jsonParser{data: data}
	p.dec = json.NewDecoder(bytes.NewReader(data))
	p.dec.UseNumber()
	return p
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

// pathSeg is one step of a path, kept on the stack while parsing and rendered only for a
// message.
type pathSeg struct {
	parent *pathSeg
	key    string
	index  int // -1 for a key, rawPath for a root written as it is
}

const rawPath = -2

func (s *pathSeg) String() string {
	if s == nil {
		return ""
	}
	if s.index == rawPath {
		return s.key
	}
	parent := s.parent.String()
	if s.index >= 0 {
		return Index(parent, s.index)
	}
	return Field(parent, s.key)
}

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

func (p *jsonParser) value(path *pathSeg, depth int) (any, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, errSyntax
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= MaxDepth {
		return nil, fielderr.New(Display(path.String()), nil, fmt.Sprintf("nested more than %d levels deep", MaxDepth), nil)
	}
	if d == '[' {
		list := []any{}
		for i := 0; p.dec.More(); i++ {
			v, err := p.value(&pathSeg{path, "", i}, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, errSyntax
		}
		return list, nil
	}
	obj := map[string]any{}
	for p.dec.More() {
		kt, err := p.dec.Token()
		if err != nil {
			return nil, errSyntax
		}
		k := kt.(string)
		seg := &pathSeg{path, k, -1}
		v, err := p.value(seg, depth+1)
		if err != nil {
			return nil, err
		}
		if _, dup := obj[k]; dup {
			p.dupes = append(p.dupes, fielderr.New(seg.String(), k, "given twice", ErrGivenTwice))
			continue
		}
		obj[k] = v
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, errSyntax
	}
	return obj, nil
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

// Document is one document of a YAML stream.
type Document struct {
	// Value is the document's content as generic values; nil for an empty document.
	Value any
	// Line is the line the document's content starts on.
	Line int
	// Err holds the problems found in the document's content (keys given twice, numbers that
	// cannot be read exactly, unsupported tags), each naming its path; nil when there are none.
	Err error
}

// ParseYAML parses a stream of YAML documents (JSON is read as YAML). A document separator
// line may carry the document's first content ("--- {kind: List}"), and a %YAML directive
// is accepted. Scalars resolve as in YAML 1.2 (yes and no stay strings); a plain number with
// a leading zero, which YAML 1.1 readers take as octal, is refused as ambiguous. A syntax
// error ends the stream: it is returned, naming the document it is in and its line, with
// the documents read before it.
func ParseYAML(data []byte) ([]Document, error) { return ParseYAMLAt(data, "") }

// ParseYAMLAt is ParseYAML for a stream held in a field of another document, such as the
// istio ConfigMap's data.mesh: problems name their paths under root.
func ParseYAMLAt(data []byte, root string) ([]Document, error) {
	var top *pathSeg
	if root != "" {
		top = &pathSeg{key: root, index: rawPath}
	}
	dec := yaml.NewDecoder(bytes.NewReader(acceptDirective(data)))
	var docs []Document
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err == io.EOF {
			break
		} else if err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			if len(docs) > 0 && strings.HasSuffix(msg, "did not find expected <document start>") {
				msg = fmt.Sprintf("data after the end of document %d (a second JSON value, or text after the document without a --- line)", len(docs))
			}
			return docs, &fielderr.Error{Where: "document " + strconv.Itoa(len(docs)+1), Detail: "not YAML or JSON: " + msg}
		}
		c := converter{budget: 10*len(data) + 1000}
		var v any
		if len(n.Content) > 0 {
			v = c.convert(n.Content[0], top, 0)
		}
		docs = append(docs, Document{Value: v, Line: n.Line, Err: errors.Join(c.errs...)})
	}
	return docs, nil
}

// acceptDirective rewrites "%YAML 1.2" directive lines as "%YAML 1.1": the parser knows only
// 1.1, and the document means the same to it either way.
func acceptDirective(data []byte) []byte {
	if !bytes.Contains(data, []byte("%YAML 1.")) {
		return data
	}
	out := bytes.Clone(data)
	for i := 0; i < len(out); {
		end := bytes.IndexByte(out[i:], '\n')
		if end < 0 {
			end = len(out) - i
		}
		line := out[i : i+end]
		if bytes.HasPrefix(line, []byte("%YAML 1.")) && len(line) > 8 && line[8] >= '0' && line[8] <= '9' {
			line[8] = '1'
		}
		i += end + 1
	}
	return out
}

type converter struct {
	errs   []error
	budget int // values an alias may still expand to
}

func (c *converter) fail(path *pathSeg, format string, args ...any) any {
	c.errs = append(c.errs, fielderr.New(Display(path.String()), nil, fmt.Sprintf(format, args...), nil))
	return nil
}

func (c *converter) convert(n *yaml.Node, path *pathSeg, depth int) any {
	if c.budget--; c.budget < 0 {
		if c.budget == -1 {
			return c.fail(path, "aliases expand to more values than the input can hold")
		}
		return nil
	}
	if depth >= MaxDepth {
		return c.fail(path, "nested more than %d levels deep", MaxDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.convert(n.Alias, path, depth+1)
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, item := range n.Content {
			list[i] = c.convert(item, &pathSeg{path, "", i}, depth+1)
		}
		return list
	case yaml.MappingNode:
		return c.mapping(n, path, depth)
	case yaml.ScalarNode:
		return c.scalar(n, path)
	}
	return c.fail(path, "unsupported YAML node")
}

func (c *converter) mapping(n *yaml.Node, path *pathSeg, depth int) any {
	obj := make(map[string]any, len(n.Content)/2)
	line := make(map[string]int, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.Tag == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		if kn.Kind == yaml.AliasNode {
			kn = kn.Alias
		}
		if kn.Kind != yaml.ScalarNode {
			c.fail(path, "line %d: a key must be a string, got a %s", kn.Line, kindName(kn.Kind))
			continue
		}
		k := kn.Value
		seg := &pathSeg{path, k, -1}
		if first, dup := line[k]; dup {
			c.errs = append(c.errs, fielderr.New(seg.String(), k, fmt.Sprintf("given twice (lines %d and %d)", first, kn.Line), ErrGivenTwice))
			continue
		}
		line[k] = kn.Line
		obj[k] = c.convert(vn, seg, depth+1)
	}
	// Merge keys (<<), as YAML 1.1 readers such as kubectl apply them: keys written in the
	// mapping win, then earlier merged mappings.
	for _, m := range merges {
		if m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, s := range sources {
			v, ok := c.convert(s, &pathSeg{path, "<<", -1}, depth+1).(map[string]any)
			if !ok {
				c.fail(path, "line %d: a merge key (<<) must name a mapping", s.Line)
				continue
			}
			for k, x := range v {
				if _, ok := obj[k]; !ok {
					obj[k] = x
				}
			}
		}
	}
	return obj
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "value"
}

func (c *converter) scalar(n *yaml.Node, path *pathSeg) any {
	switch n.Tag {
	case "!!str", "!!timestamp":
		return n.Value
	case "!!null":
		return nil
	case "!!bool":
		return strings.EqualFold(n.Value, "true")
	case "!!int":
		num, err := yamlInt(n.Value)
		if err != nil {
			return c.fail(path, "%s", err)
		}
		return num
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return c.fail(path, "%s is not a finite number", n.Value)
		}
		if json.Valid([]byte(n.Value)) {
			return json.Number(n.Value)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return c.fail(path, "line %d: unsupported YAML tag %q", n.Line, n.Tag)
}

// yamlInt reads a YAML integer as the decimal json.Number it stands for, exactly, whatever
// its size.
func yamlInt(s string) (json.Number, error) {
	t := strings.ReplaceAll(s, "_", "")
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimLeft(t, "+-")
	base := 10
	switch {
	case len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'):
		base, t = 16, t[2:]
	case len(t) > 2 && t[0] == '0' && (t[1] == 'o' || t[1] == 'O'):
		base, t = 8, t[2:]
	case len(t) > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B'):
		base, t = 2, t[2:]
	case len(t) > 1 && t[0] == '0':
		return "", fmt.Errorf("%s is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it", s)
	}
	if base == 10 {
		if neg {
			return json.Number("-" + t), nil
		}
		return json.Number(t), nil
	}
	u, err := strconv.ParseUint(t, base, 64)
	if err != nil {
		return "", fmt.Errorf("%s is out of range (at most %d)", s, uint64(math.MaxUint64))
	}
	if neg {
		return json.Number("-" + strconv.FormatUint(u, 10)), nil
	}
	return json.Number(strconv.FormatUint(u, 10)), nil
}

// DecodeEntries reads what `consul config read` prints: one JSON value, a stream of values
// (several commands' output one after another), or a JSON array of values (or a stream of
// arrays), decoding every object with decode. Problems name the value when the stream holds
// more than one ("value 2: …") and the element of an array ("[3].Services[0]: …"); every
// problem is reported.
func DecodeEntries[T any](data []byte, fold bool, decode func(d *Decoder, x any, path string) T) ([]T, error) {
	values, err := ParseJSONStream(data)
	if err != nil {
		return nil, err
	}
	var out []T
	var errs []error
	for n, v := range values {
		d := &Decoder{Fold: fold}
		if list, ok := v.([]any); ok {
			for i, item := range list {
				out = append(out, decode(d, item, Index("", i)))
			}
		} else {
			out = append(out, decode(d, v, ""))
		}
		if len(values) > 1 {
			errs = append(errs, Prefix(fmt.Sprintf("value %d: ", n+1), d.Err()))
		} else {
			errs = append(errs, d.Errs()...)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
