package kube

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// Object is one Kubernetes-style object (or kind-less document) of a YAML or JSON
// stream, with where it was found.
type Object struct {
	// doc and item say where the object is: the document ("document 2", or "" for the only
	// document of a stream) and the List item path in it (nil for the document itself).
	// where() spells them out only for a message, so that Lists nested n deep cost O(n),
	// not the O(n²) of a path string per item.
	doc  string
	item *itemPath
	// Kind is the object's kind; "" for a document without one.
	Kind string
	// Fields are the object's fields, in document order.
	Fields strict.Fields
	// Err is set when the object cannot be read: its problems, reported instead.
	Err error
}

// itemPath is the path of a List item: items[index] of the List at parent (nil: the
// document).
type itemPath struct {
	parent *itemPath
	index  int
}

// String spells the path: "items[1].items[0]". It walks the path once and writes it in one
// pass, O(n) for an item of Lists nested n deep (spelling the parent's path first cost O(n²)).
func (p *itemPath) String() string {
	var indexes []int // from the innermost List out
	for q := p; q != nil; q = q.parent {
		indexes = append(indexes, q.index)
	}
	var b strings.Builder
	for i := len(indexes) - 1; i >= 0; i-- {
		if i < len(indexes)-1 {
			b.WriteByte('.')
		}
		b.WriteString("items[")
		b.WriteString(strconv.Itoa(indexes[i]))
		b.WriteByte(']')
	}
	return b.String()
}

// where names the object for a message: "document 2: items[3]", "items[3]", or "" for the
// only document of a stream.
func (o Object) Where() string { return JoinWhere(o.doc, o.item.String()) }

// meta returns metadata.namespace and metadata.name, "" where absent or not strings.
func (o Object) Meta() (namespace, name string) {
	m, _ := o.Fields.Value("metadata").(strict.Fields)
	namespace, _ = m.Value("namespace").(string)
	name, _ = m.Value("name").(string)
	return namespace, name
}

// id names the object as kubectl would: "ServiceEntry shop/api", "Namespace shop".
func (o Object) ID() string {
	ns, name := o.Meta()
	if name == "" {
		name = "(no name)"
	}
	if ns == "" {
		return o.Kind + " " + name
	}
	return o.Kind + " " + ns + "/" + name
}

// Stream is every object of a YAML or JSON stream, Lists unwrapped (what `kubectl get
// … -o yaml` prints; nested Lists too) in one pass over the parsed tree, with the empty
// documents counted. The items of a typed List (NamespaceList, as the API server writes
// one) that give neither apiVersion nor kind take the List's apiVersion and its kind
// without "List", as Kubernetes' decoder gives them; a List of kind List gives nothing.
// A document or list item that is not an object, a List whose items are not a list, and
// the problems the reader finds in a document outside its objects are errors in their
// places, each naming the document and item.
type Stream struct {
	// Objects are every object, in document order, with the problems in their places.
	Objects []Object
	// Lists are the Lists whose items are in Objects (their own fields read, items
	// included), in document order: for a caller that judges every document as kubectl
	// does, a List's apiVersion included.
	Lists []Object
	// Empty counts the empty documents, EmptyLists the Lists without items (what kubectl
	// prints when nothing matches).
	Empty, EmptyLists int
}

func (s *Stream) fail(err error) { s.Objects = append(s.Objects, Object{Err: err}) }

// ReadsFunc reports whether a loader reads the object o. twice reports whether the object's
// key at path was given twice: the reader keeps the first value, so a decision made on it
// (a Service's apiVersion, a ConfigMap's name) is in doubt, and the object must count as
// read, its problems kept.
type ReadsFunc func(o Object, twice func(path ...string) bool) bool

// Read reads the objects of data. A problem the reader finds inside an object (a key
// given twice, an ambiguous number) belongs to that object: it is the object's error when
// reads says the loader reads the object, and is dropped otherwise — what is odd in an
// object the loader skips is not the input's problem. A problem in an object's kind is the
// object's error whatever the kind reads as. A problem whose path the reader cut short
// (strict.MaxPathSteps), in Lists nested so deep that its path no longer says which item it
// is in, is the List's: it cannot be known not to be in an object the loader reads. One cut
// short at the item itself, saying which item but not where in it, may be in its kind, and
// refuses the item as a problem in its kind does.
func Read(data []byte, reads ReadsFunc) Stream {
	docs, err := strict.ParseYAML(data, "")
	s := Stream{}
	for i, doc := range docs {
		where := ""
		if len(docs) > 1 || err != nil {
			where = "document " + strconv.Itoa(i+1)
		}
		if doc.Value == nil && doc.Problems == nil {
			s.Empty++
			continue
		}
		s.add(doc.Value, where, doc.Problems, reads)
	}
	if err != nil {
		if fe, ok := err.(*fielderr.Error); ok && len(docs) == 0 {
			fe.Where = "" // the only document
		}
		s.fail(err)
	}
	return s
}

// listFrame is a List whose items are being recorded, found in a document: its items, their
// paths and the reader's problems in each (by index, their paths from the document's root),
// depth steps of which lead to each item, and the index of the next item to record.
type listFrame struct {
	items  []any
	paths  []itemPath
	inItem map[int][]strict.Problem
	depth  int
	next   int
	typed  *typedList
}

// typedList is the type a typed List (NamespaceList, ServiceEntryList) gives those of its
// items that give neither apiVersion nor kind, as Kubernetes' decoder does (the API server
// writes a typed List's items without their type): the List's apiVersion, and its kind
// without "List".
type typedList struct{ apiVersion, kind string }

// typeOf returns the type list, a List, gives its items; nil for kind List.
func typeOf(list Object) *typedList {
	if list.Kind == "List" {
		return nil
	}
	v, _ := list.Fields.Value("apiVersion").(string)
	return &typedList{apiVersion: v, kind: strings.TrimSuffix(list.Kind, "List")}
}

// typed returns fields with t's apiVersion and kind when fields give neither (each absent
// or ""), and fields otherwise.
func (t *typedList) typed(fields strict.Fields) strict.Fields {
	if t == nil {
		return fields
	}
	for _, key := range []string{"apiVersion", "kind"} {
		if v, ok := fields.Get(key); ok && v != "" {
			return fields
		}
	}
	out := make(strict.Fields, 0, len(fields)+2)
	out = append(out, strict.Member{Key: "apiVersion", Value: t.apiVersion}, strict.Member{Key: "kind", Value: t.kind})
	for _, m := range fields {
		if m.Key != "apiVersion" && m.Key != "kind" {
			out = append(out, m)
		}
	}
	return out
}

// add records x, the value of document doc, unwrapping it if it is a List, and the Lists in
// it, in document order. problems are the reader's problems in x. The Lists being unwrapped
// wait on a stack of their own, one frame per List, rather than in nested calls, so that
// Lists nested n deep do not grow the goroutine's stack n frames deep (which the collector
// walks in every cycle). A List leaves the stack when its last item is taken, so the stack is
// no deeper than the Lists are nested, however many items they hold.
func (s *Stream) add(x any, doc string, problems []strict.Problem, reads ReadsFunc) {
	items, paths, inItem := s.one(x, doc, nil, nil, problems, 0, reads)
	if len(items) == 0 {
		return
	}
	stack := []listFrame{{items: items, paths: paths, inItem: inItem, depth: 2, typed: typeOf(s.Lists[len(s.Lists)-1])}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		x, item, problems, depth, typed := f.items[f.next], &f.paths[f.next], f.inItem[f.next], f.depth, f.typed
		if f.next++; f.next == len(f.items) { // its last item: the List is done with
			*f = listFrame{}
			stack = stack[:len(stack)-1]
		}
		items, paths, inItem := s.one(x, doc, item, typed, problems, depth, reads)
		if len(items) > 0 { // a List: its items come before the rest of the one it is in
			stack = append(stack, listFrame{items: items, paths: paths, inItem: inItem, depth: depth + 2, typed: typeOf(s.Lists[len(s.Lists)-1])})
		}
	}
}

// one records x, found at item of document doc, as add does, except that the items of a
// List are returned, with their paths and problems, for add to record (the List is the last
// of s.Lists). problems are the reader's problems in x, their paths from the document's
// root, depth steps of which lead to x; typed is the type the List x is an item of gives
// it, if any.
func (s *Stream) one(x any, doc string, item *itemPath, typed *typedList, problems []strict.Problem, depth int, reads ReadsFunc) ([]any, []itemPath, map[int][]strict.Problem) {
	fields, ok := x.(strict.Fields)
	if ok {
		fields = typed.typed(fields)
	}
	if !ok || problemAt(problems, depth, "kind") || cutShortAt(problems, depth) {
		if len(problems) > 0 { // the problems are why x is not an object, or not known
			s.fail(problemsIn(doc, problems))
			return nil, nil, nil
		}
		s.fail(fielderr.Newf(JoinWhere(doc, item.String()), "", x, "%s", mustBeObject(item, x)))
		return nil, nil, nil
	}
	o := Object{doc: doc, item: item, Fields: fields}
	if k, ok := fields.Get("kind"); ok {
		kind, isStr := k.(string)
		if !isStr {
			s.fail(fielderr.Newf(o.Where(), "kind", k, "must be a string, got %s", strict.Describe(k)))
			return nil, nil, nil
		}
		o.Kind = kind
	}
	if !IsList(o.Kind) {
		if len(problems) > 0 && reads(o, func(path ...string) bool { return givenTwiceAt(problems, depth, path) }) {
			o.Err = problemsIn(doc, problems)
		}
		s.Objects = append(s.Objects, o)
		return nil, nil, nil
	}
	// The problems of each item go with it; the List's own (outside its items) refuse it.
	var own []strict.Problem
	var inItem map[int][]strict.Problem
	for _, p := range problems {
		if len(p.Path) > depth+1 && p.Path[depth] == (strict.Step{Key: "items", Index: -1}) && p.Path[depth+1].Key == "" {
			if inItem == nil {
				inItem = map[int][]strict.Problem{}
			}
			inItem[p.Path[depth+1].Index] = append(inItem[p.Path[depth+1].Index], p)
		} else {
			own = append(own, p)
		}
	}
	if len(own) > 0 {
		s.fail(problemsIn(doc, own))
		return nil, nil, nil
	}
	raw := fields.Value("items")
	items, ok := raw.([]any)
	if !ok && raw != nil {
		s.fail(fielderr.Newf(o.Where(), "items", raw, "must be a list, got %s", strict.Describe(raw)))
		return nil, nil, nil
	}
	s.Lists = append(s.Lists, o)
	if len(items) == 0 {
		s.EmptyLists++
	}
	paths := make([]itemPath, len(items)) // one allocation per List
	for i := range paths {
		paths[i] = itemPath{parent: item, index: i}
	}
	s.Objects = slices.Grow(s.Objects, len(items))
	return items, paths, inItem
}

// problemAt reports whether one of problems is at the field key of the value depth steps
// down their paths.
func problemAt(problems []strict.Problem, depth int, key string) bool {
	return slices.ContainsFunc(problems, func(p strict.Problem) bool {
		return len(p.Path) == depth+1 && p.Path[depth] == strict.Step{Key: key, Index: -1}
	})
}

// cutShortAt reports whether one of problems has a path the reader cut short
// (strict.MaxPathSteps) at or above the value depth steps down, so that where in the value
// it is, in its kind or not, is not known.
func cutShortAt(problems []strict.Problem, depth int) bool {
	return slices.ContainsFunc(problems, func(p strict.Problem) bool {
		return len(p.Path) == strict.MaxPathSteps && len(p.Path) <= depth
	})
}

// givenTwiceAt reports whether one of problems is the key at path, in the value depth steps
// down their paths, given twice.
func givenTwiceAt(problems []strict.Problem, depth int, path []string) bool {
	return slices.ContainsFunc(problems, func(p strict.Problem) bool {
		if len(p.Path) != depth+len(path) || !errors.Is(p.Err, strict.ErrGivenTwice) {
			return false
		}
		for i, k := range path {
			if p.Path[depth+i] != (strict.Step{Key: k, Index: -1}) {
				return false
			}
		}
		return true
	})
}

// problemsIn is the reader's problems, found in document doc, as one error; each names its
// path from the document's root, as when the document is refused whole.
func problemsIn(doc string, problems []strict.Problem) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p.Err
	}
	return fielderr.In(doc, errors.Join(errs...))
}

func mustBeObject(item *itemPath, x any) string {
	if item == nil {
		return "the document must be an object, got " + strict.Describe(x)
	}
	return "must be an object, got " + strict.Describe(x)
}

func JoinWhere(where, itemPath string) string {
	switch {
	case where == "":
		return itemPath
	case itemPath == "":
		return where
	}
	return where + ": " + itemPath
}

// IsList reports whether kind is a list of objects: List, or a typed list such as
// NamespaceList (what the API server returns).
func IsList(kind string) bool { return strings.HasSuffix(kind, "List") }

// CheckKind reports a kind that is a near miss of one of the kinds the loader reads
// (istiooperator, ServiceEntries): skipping it as another kind would silently drop it.
func CheckKind(o Object, known []string) error {
	if o.Kind == "" || slices.Contains(known, o.Kind) {
		return nil
	}
	if c := strict.Close(o.Kind, known); c != "" {
		return fielderr.Newf(o.Where(), "kind", o.Kind, "unknown kind %q (did you mean %q? as written, the object would be skipped)", o.Kind, c)
	}
	return nil
}

// found describes what a stream held, for an error saying it held nothing the loader
// reads: "found 2 Namespace, 1 Deployment", "found an empty List and 2 empty documents",
// "found nothing".
func (s Stream) Found(skipped map[string]int) string {
	if len(skipped) == 0 {
		var parts []string
		for _, c := range []struct {
			n           int
			one, plural string
		}{{s.EmptyLists, "an empty List", "empty Lists"}, {s.Empty, "an empty document", "empty documents"}} {
			switch {
			case c.n == 1:
				parts = append(parts, c.one)
			case c.n > 1:
				parts = append(parts, fmt.Sprintf("%d %s", c.n, c.plural))
			}
		}
		if len(parts) == 0 {
			return "found nothing: the input is empty"
		}
		return "found " + strings.Join(parts, " and ")
	}
	parts := make([]string, 0, len(skipped))
	for _, k := range slices.Sorted(maps.Keys(skipped)) {
		parts = append(parts, fmt.Sprintf("%d %s", skipped[k], k))
	}
	return "found " + strings.Join(parts, ", ")
}

// DescribeKind names an object's kind for found: its kind, or "object without a kind".
func DescribeKind(o Object) string {
	if o.Kind == "" {
		return "object without a kind"
	}
	return o.Kind
}
