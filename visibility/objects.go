package visibility

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// kubeObject is one Kubernetes-style object (or kind-less document) of a YAML or JSON
// stream, with where it was found.
type kubeObject struct {
	// doc and item say where the object is: the document ("document 2", or "" for the only
	// document of a stream) and the List item path in it (nil for the document itself).
	// where() spells them out only for a message, so that Lists nested n deep cost O(n),
	// not the O(n²) of a path string per item.
	doc    string
	item   *itemPath
	kind   string
	fields strict.Fields
	err    error // set instead of the rest when the object could not be read
}

// itemPath is the path of a List item: items[index] of the List at parent (nil: the
// document).
type itemPath struct {
	parent *itemPath
	index  int
}

// String spells the path: "items[1].items[0]".
func (p *itemPath) String() string {
	if p == nil {
		return ""
	}
	return strict.Index(strict.Child(p.parent.String(), "items"), p.index)
}

// where names the object for a message: "document 2: items[3]", "items[3]", or "" for the
// only document of a stream.
func (o kubeObject) where() string { return joinWhere(o.doc, o.item.String()) }

// meta returns metadata.namespace and metadata.name, "" where absent or not strings.
func (o kubeObject) meta() (namespace, name string) {
	m, _ := o.fields.Value("metadata").(strict.Fields)
	namespace, _ = m.Value("namespace").(string)
	name, _ = m.Value("name").(string)
	return namespace, name
}

// id names the object as kubectl would: "ServiceEntry shop/api", "Namespace shop".
func (o kubeObject) id() string {
	ns, name := o.meta()
	if name == "" {
		name = "(no name)"
	}
	if ns == "" {
		return o.kind + " " + name
	}
	return o.kind + " " + ns + "/" + name
}

// objects reads every object of a YAML or JSON stream, unwrapping Lists (what `kubectl get
// … -o yaml` prints; nested Lists too) in one pass over the parsed tree. Documents that are
// empty are counted in empty. A document or list item that is not an object, a List whose
// items are not a list, and every problem in a document's content are returned as errors,
// each naming the document and item.
type objectStream struct {
	objects []kubeObject // in document order, with the problems in their places
	empty   int          // empty documents
}

func (s *objectStream) fail(err error) { s.objects = append(s.objects, kubeObject{err: err}) }

func readObjects(data []byte) objectStream {
	docs, err := strict.ParseYAML(data)
	var s objectStream
	for i, doc := range docs {
		where := ""
		if len(docs) > 1 || err != nil {
			where = "document " + strconv.Itoa(i+1)
		}
		if doc.Err != nil {
			s.fail(strict.Prefix(strict.At(where), doc.Err))
			continue
		}
		if doc.Value == nil {
			s.empty++
			continue
		}
		s.add(doc.Value, where, nil)
	}
	if err != nil {
		if fe, ok := err.(*FieldError); ok && len(docs) == 0 {
			fe.Where = "" // the only document
		}
		s.fail(err)
	}
	return s
}

// add records x, found at item of document doc, unwrapping it if it is a List.
func (s *objectStream) add(x any, doc string, item *itemPath) {
	fields, ok := x.(strict.Fields)
	if !ok {
		s.fail(problem(joinWhere(doc, item.String()), "", x, "%s", mustBeObject(item, x)))
		return
	}
	o := kubeObject{doc: doc, item: item, fields: fields}
	if k, ok := fields.Get("kind"); ok {
		kind, isStr := k.(string)
		if !isStr {
			s.fail(problem(o.where(), "kind", k, "must be a string, got %s", strict.Describe(k)))
			return
		}
		o.kind = kind
	}
	if !isList(o.kind) {
		s.objects = append(s.objects, o)
		return
	}
	raw := fields.Value("items")
	items, ok := raw.([]any)
	if !ok && raw != nil {
		s.fail(problem(o.where(), "items", raw, "must be a list, got %s", strict.Describe(raw)))
		return
	}
	paths := make([]itemPath, len(items)) // one allocation per List
	s.objects = slices.Grow(s.objects, len(items))
	for i, x := range items {
		paths[i] = itemPath{parent: item, index: i}
		s.add(x, doc, &paths[i])
	}
}

func mustBeObject(item *itemPath, x any) string {
	if item == nil {
		return "the document must be an object, got " + strict.Describe(x)
	}
	return "must be an object, got " + strict.Describe(x)
}

func joinWhere(where, itemPath string) string {
	switch {
	case where == "":
		return itemPath
	case itemPath == "":
		return where
	}
	return where + ": " + itemPath
}

// isList reports whether kind is a list of objects: List, or a typed list such as
// NamespaceList (what the API server returns).
func isList(kind string) bool { return strings.HasSuffix(kind, "List") }

// checkKind reports a kind that is a near miss of one of the kinds the loader reads
// (istiooperator, ServiceEntries): skipping it as another kind would silently drop it.
func checkKind(o kubeObject, known []string) error {
	if o.kind == "" || slices.Contains(known, o.kind) {
		return nil
	}
	if c := strict.Close(o.kind, known); c != "" {
		return problem(o.where(), "kind", o.kind, "unknown kind %q (did you mean %q? as written, the object would be skipped)", o.kind, c)
	}
	return nil
}

// found describes what a stream held, for an error saying it held nothing the loader
// reads: "found 2 Namespace, 1 Deployment", "found an empty document", "found nothing".
func (s objectStream) found(skipped map[string]int) string {
	if len(skipped) == 0 {
		switch {
		case s.empty == 1:
			return "found an empty document"
		case s.empty > 1:
			return fmt.Sprintf("found %d empty documents", s.empty)
		}
		return "found nothing: the input is empty"
	}
	parts := make([]string, 0, len(skipped))
	for _, k := range slices.Sorted(maps.Keys(skipped)) {
		parts = append(parts, fmt.Sprintf("%d %s", skipped[k], k))
	}
	return "found " + strings.Join(parts, ", ")
}

// describeKind names an object's kind for found: its kind, or "object without a kind".
func describeKind(o kubeObject) string {
	if o.kind == "" {
		return "object without a kind"
	}
	return o.kind
}
