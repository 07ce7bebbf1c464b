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

	"github.com/meshscope/meshscope/internal/fielderr"
	"go.yaml.in/yaml/v3"
)

// Document is one document of a YAML stream.
type Document struct {
	// Value is the document's content as generic values; nil for an empty document. Where
	// a problem is, the value is left out (a key given twice keeps its first value).
	Value any
	// Line is the line the document's content starts on.
	Line int
	// Err holds the problems found in the document's content (keys given twice, numbers that
	// cannot be read exactly, unsupported tags), each naming its path; nil when there are none.
	Err error
	// Problems are the same problems, each with where it is in Value, in document order.
	Problems []Problem
}

// ParseYAML parses a stream of YAML documents (JSON is read as YAML). A document separator
// line may carry the document's first content ("--- {kind: List}"), and a %YAML directive
// is accepted. Scalars resolve as in YAML 1.2 (yes and no stay strings); a plain number with
// a leading zero, which YAML 1.1 readers take as octal, is refused as ambiguous. A syntax
// error ends the stream: it is returned, naming the document it is in and its line, with
// the documents read before it.
//
// What kubectl, Helm and people write — block YAML and JSON — is read directly; a document
// holding what only a full YAML parser reads (anchors, aliases, tags, complex keys) is read
// by yaml.v3, that document alone. Either way the answer is yaml.v3's, problems included.
//
// root is where the stream is held when it is a field of another document, such as the
// istio ConfigMap's data.mesh: problems name their paths under it. It is "" for a file.
func ParseYAML(data []byte, root string) ([]Document, error) {
	if docs, _, ok := parseStream(data, root); ok {
		return docs, nil
	}
	return parseNodes(data, root)
}

// parseNodes is ParseYAML by way of yaml.v3's node tree: any YAML, with line numbers for
// the problems.
func parseNodes(data []byte, root string) ([]Document, error) {
	docs, err := parseSegment(data, len(data), root, 0)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if len(docs) > 0 && strings.HasSuffix(msg, "did not find expected <document start>") {
			msg = fmt.Sprintf("data after the end of document %d (a second JSON value, or text after the document without a --- line)", len(docs))
		}
		return docs, &fielderr.Error{Where: "document " + strconv.Itoa(len(docs)+1), Detail: "not YAML or JSON: " + msg}
	}
	return docs, nil
}

// parseSegment reads the documents of seg with yaml.v3: a whole stream, or the part of one
// that starts on line lines+1 (the line numbers of the documents and their problems count
// from there), its problems' paths under root. size is the whole stream's size, which
// bounds what aliases may expand to. It returns yaml.v3's error as it gives it, with the
// documents read before it.
func parseSegment(seg []byte, size int, root string, lines int) ([]Document, error) {
	dec := yaml.NewDecoder(bytes.NewReader(acceptDirective(seg)))
	var docs []Document
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err == io.EOF {
			return docs, nil
		} else if err != nil {
			return docs, err
		}
		c := converter{budget: 10*size + 1000, lines: lines, root: root}
		var v any
		if len(n.Content) > 0 {
			v = c.convert(n.Content[0], 0)
		}
		docs = append(docs, Document{Value: v, Line: n.Line + lines, Err: errors.Join(errs(c.problems)...), Problems: c.problems})
	}
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
		if i == 0 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // after a byte-order mark
		}
		if bytes.HasPrefix(line, []byte("%YAML 1.")) && len(line) > 8 && line[8] >= '0' && line[8] <= '9' {
			line[8] = '1'
		}
		i += end + 1
	}
	return out
}

type converter struct {
	problems []Problem
	budget   int    // values an alias may still expand to
	lines    int    // lines before the part of the stream being read
	root     string // the stream's root, for problems' paths
	path     []Step // where the node being converted is
}

// fail records a problem at the node being converted.
func (c *converter) fail(format string, args ...any) any {
	c.problems = append(c.problems, failure(c.root, c.path, fmt.Sprintf(format, args...)))
	return nil
}

// child converts n, the value of step in the node being converted.
func (c *converter) child(n *yaml.Node, step Step, depth int) any {
	c.path = append(c.path, step)
	v := c.convert(n, depth)
	c.path = c.path[:len(c.path)-1]
	return v
}

// line is the line of n in the stream.
func (c *converter) line(n *yaml.Node) int { return n.Line + c.lines }

// convert converts the node n at the converter's path, depth levels down.
func (c *converter) convert(n *yaml.Node, depth int) any {
	if c.budget--; c.budget < 0 {
		if c.budget == -1 {
			return c.fail("aliases expand to more values than the input can hold")
		}
		return nil
	}
	if depth >= MaxDepth {
		return c.fail("nested more than %d levels deep", MaxDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.convert(n.Alias, depth+1)
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, item := range n.Content {
			list[i] = c.child(item, Step{Index: i}, depth+1)
		}
		return list
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return c.fail("unsupported YAML node")
}

func (c *converter) mapping(n *yaml.Node, depth int) any {
	obj := builder{f: make(Fields, 0, len(n.Content)/2)}
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
			c.fail("line %d: a key must be a string, got a %s", c.line(kn), kindName(kn.Kind))
			continue
		}
		k := kn.Value
		if obj.has(k) {
			c.path = append(c.path, Step{Key: k, Index: -1})
			c.problems = append(c.problems, givenTwice(c.root, c.path, firstLine(n, k)+c.lines, c.line(kn)))
			c.path = c.path[:len(c.path)-1]
			continue
		}
		obj.add(k, c.child(vn, Step{Key: k, Index: -1}, depth+1))
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
			v, ok := c.child(s, Step{Key: "<<", Index: -1}, depth+1).(Fields)
			if !ok {
				c.fail("line %d: a merge key (<<) must name a mapping", c.line(s))
				continue
			}
			for _, f := range v {
				obj.add(f.Key, f.Value) // a key already there stays
			}
		}
	}
	return obj.fields()
}

// firstLine returns the line of the first key k of the mapping n.
func firstLine(n *yaml.Node, k string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		if kn.Kind == yaml.AliasNode {
			kn = kn.Alias
		}
		if kn.Kind == yaml.ScalarNode && kn.Tag != "!!merge" && kn.Value == k {
			return kn.Line
		}
	}
	return 0
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

func (c *converter) scalar(n *yaml.Node) any {
	v, ok, err := scalarValue(n.Tag, n.Value)
	switch {
	case !ok:
		return c.fail("line %d: unsupported YAML tag %q", c.line(n), n.Tag)
	case err != nil:
		return c.fail("%s", err)
	}
	return v
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
