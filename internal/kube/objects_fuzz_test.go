package kube

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/strict"
)

// refObject is what the reference reads of a stream: an object with where it is, or the
// text of the error that refused a value.
type refObject struct {
	Where, Kind string
	Fields      strict.Fields
	Err         string
}

// refRead is a literal reading of a stream's documents without problems: each document
// that is not empty is an object, a List's items (Lists within Lists too) are objects in
// their own right, with paths spelt as strings, and what is not an object is an error.
func refRead(docs []strict.Document) (out []refObject, empty, emptyLists int) {
	var walk func(x any, doc, item string)
	walk = func(x any, doc, item string) {
		at := doc
		if item != "" {
			if at != "" {
				at += ": "
			}
			at += item
		}
		prefix := ""
		if at != "" {
			prefix = at + ": "
		}
		f, ok := x.(strict.Fields)
		if !ok {
			what := "must be an object, got "
			if item == "" {
				what = "the document " + what
			}
			out = append(out, refObject{Err: prefix + what + strict.Describe(x)})
			return
		}
		kind := ""
		if k, has := f.Get("kind"); has {
			s, isString := k.(string)
			if !isString {
				out = append(out, refObject{Err: prefix + "kind: must be a string, got " + strict.Describe(k)})
				return
			}
			kind = s
		}
		if !strings.HasSuffix(kind, "List") {
			out = append(out, refObject{Where: at, Kind: kind, Fields: f})
			return
		}
		items := f.Value("items")
		list, isList := items.([]any)
		if items != nil && !isList {
			out = append(out, refObject{Err: prefix + "items: must be a list, got " + strict.Describe(items)})
			return
		}
		if len(list) == 0 {
			emptyLists++
		}
		for i, it := range list {
			sub := "items[" + strconv.Itoa(i) + "]"
			if item != "" {
				sub = item + "." + sub
			}
			walk(it, doc, sub)
		}
	}
	for i, d := range docs {
		doc := ""
		if len(docs) > 1 {
			doc = "document " + strconv.Itoa(i+1)
		}
		if d.Value == nil {
			empty++
			continue
		}
		walk(d.Value, doc, "")
	}
	return out, empty, emptyLists
}

// checkError fails unless every problem joined in err is a FieldError that says where it
// is (or is about the whole of the only document), and one saying what a value must be
// describes the value it carries.
func checkError(t *testing.T, err error) {
	t.Helper()
	for _, fe := range istiotest.PlacedProblems(t, err) {
		if strings.HasPrefix(fe.Detail, "must be ") || strings.HasPrefix(fe.Detail, "the document must be ") {
			if _, got, ok := strings.Cut(fe.Detail, ", got "); ok && got != strict.Describe(fe.Value) {
				t.Fatalf("%q carries the value %s", fe.Error(), strict.Describe(fe.Value))
			}
		}
	}
}

// FuzzRead reads any input twice, for a loader that reads every object and for one that
// reads none, and checks: every error is a FieldError naming its place; the two readings
// find the same objects, the second without the problems of objects it skips; a document
// holding a problem is never read without an error naming it (reading everything); what
// is read of input without problems is what the literal reference reads.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"",
		"---\n---\n",
		"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {team: a}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- apiVersion: networking.istio.io/v1\n  kind: ServiceEntry\n  metadata: {namespace: a, name: api}\n  spec:\n    hosts: [api.example.com]\n    exportTo: [\".\"]\nkind: List\n",
		`{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "a"}}, {"kind": "NamespaceList", "items": []}]}`,
		"kind: A\n---\nkind: List\nitems:\n- kind: List\n  items: [{kind: B}, 3, null]\n---\n- a\n",
		"kind: List\nitems: {a: 1}\n",
		"kind: [x]\n---\nkind: 012\n",
		"kind: List\nmetadata: {a: 1, a: 2}\nitems: [{kind: A}]\n",
		"kind: List\nitems:\n- {kind: ConfigMap, metadata: {name: a, name: istio}}\n- {kind: A, x: 1, x: 2}\n",
		"kind: A\n---\na: [b\n",
		"base: &b {kind: A}\nother: *b\n",
		"kind: A\nspec: !!binary aGk=\n",
		"--- {kind: List, items: [{kind: A}]}\n",
		nestLists(33, `{"kind":"A","kind":"B"}`),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		docs, parseErr := strict.ParseYAML([]byte(in), "")
		all := Read([]byte(in), always)
		none := Read([]byte(in), never)

		if len(all.Objects) != len(none.Objects) || all.Empty != none.Empty || all.EmptyLists != none.EmptyLists {
			t.Fatalf("the readings differ: %d and %d objects", len(all.Objects), len(none.Objects))
		}
		for i, a := range all.Objects {
			n := none.Objects[i]
			checkError(t, a.Err)
			checkError(t, n.Err)
			if a.Where() != n.Where() || a.Kind != n.Kind || !reflect.DeepEqual(a.Fields, n.Fields) {
				t.Fatalf("object %d differs: %q %q and %q %q", i, a.Where(), a.Kind, n.Where(), n.Kind)
			}
			if n.Err != nil && (a.Err == nil || a.Err.Error() != n.Err.Error()) {
				t.Fatalf("object %d: an error only when skipped, or another: %v, then %v", i, a.Err, n.Err)
			}
			if a.Err == nil || (n.Err == nil && a.Fields != nil) {
				if a.Fields == nil || IsList(a.Kind) {
					t.Fatalf("object %d read without fields, or a List read as an object: %q", i, a.Kind)
				}
				if k, _ := a.Fields.Value("kind").(string); k != a.Kind {
					t.Fatalf("object %d: kind %q, field %q", i, a.Kind, k)
				}
			}
		}

		// No problem the parser finds goes unreported by a loader that reads everything.
		var texts []string
		for _, o := range all.Objects {
			if o.Err != nil {
				texts = append(texts, o.Err.Error())
			}
		}
		named := func(prefix string) bool {
			for _, s := range texts {
				if strings.HasPrefix(s, prefix) {
					return true
				}
			}
			return false
		}
		if parseErr != nil && !named("") {
			t.Fatalf("the syntax error %v is not reported", parseErr)
		}
		for i, d := range docs {
			prefix := ""
			if len(docs) > 1 || parseErr != nil {
				prefix = "document " + strconv.Itoa(i+1) + ": "
			}
			if d.Problems != nil && !named(prefix) {
				t.Fatalf("the problems of document %d are not reported: %v", i+1, d.Err)
			}
		}

		if parseErr != nil {
			return
		}
		for _, d := range docs {
			if d.Problems != nil {
				return
			}
		}
		if diff := againstReference(docs, all); diff != "" {
			t.Fatal(diff)
		}
	})
}

// againstReference says how s, read from docs, differs from the reference's reading; ""
// when it does not.
func againstReference(docs []strict.Document, s Stream) string {
	ref, empty, emptyLists := refRead(docs)
	var got []refObject
	for _, o := range s.Objects {
		if o.Err != nil {
			got = append(got, refObject{Err: o.Err.Error()})
			continue
		}
		got = append(got, refObject{Where: o.Where(), Kind: o.Kind, Fields: o.Fields})
	}
	// reflect, not go-cmp: go-cmp's diff of slices costs time exponential in how deeply
	// Lists nest.
	if len(ref) != len(got) {
		return fmt.Sprintf("Read reads %d objects, the reference %d:\n%+v\n%+v", len(got), len(ref), got, ref)
	}
	for i := range ref {
		if !reflect.DeepEqual(ref[i], got[i]) {
			return fmt.Sprintf("object %d: Read reads %+v, the reference %+v", i, got[i], ref[i])
		}
	}
	if empty != s.Empty || emptyLists != s.EmptyLists {
		return fmt.Sprintf("empty documents and Lists: %d, %d; the reference counts %d, %d", s.Empty, s.EmptyLists, empty, emptyLists)
	}
	return ""
}

// TestReadAgreesWithReference compares Read with the reference on a stream of every shape
// the reference knows, so that a normal test run does beyond the fuzz seeds.
func TestReadAgreesWithReference(t *testing.T) {
	in := "kind: A\n---\n---\nkind: List\nitems:\n- {kind: B, metadata: {name: b}}\n- kind: NamespaceList\n  items: []\n- kind: List\n  items: [{kind: C}, 3, [x]]\n- {kind: List, items: yes}\n- {kind: {a: 1}}\n- {kind: ConfigMapList}\n---\n[]\n"
	docs, err := strict.ParseYAML([]byte(in), "")
	require.NoError(t, err)
	s := Read([]byte(in), always)
	require.Len(t, s.Objects, 8)
	assert.Equal(t, 1, s.Empty)
	assert.Equal(t, 2, s.EmptyLists)
	assert.Empty(t, againstReference(docs, s))
}
