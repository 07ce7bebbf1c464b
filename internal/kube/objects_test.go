package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/strict"
)

// lines spells a stream for comparison, one line per object: "where id" for an object that
// was read ("-" for the where of the only document), followed by " ! error" when the object
// carries problems; "refused: error" for what could not be read as an object.
func lines(s Stream) []string {
	var out []string
	for _, o := range s.Objects {
		if o.Fields == nil && o.Kind == "" {
			require.Error(nil, o.Err, "an object without fields must be an error")
			out = append(out, "refused: "+o.Err.Error())
			continue
		}
		where := o.Where()
		if where == "" {
			where = "-"
		}
		line := where + " " + o.ID()
		if o.Err != nil {
			line += " ! " + o.Err.Error()
		}
		out = append(out, line)
	}
	return out
}

func TestRead(t *testing.T) {
	tests := []struct {
		name              string
		in                string
		reads             ReadsFunc
		want              []string
		empty, emptyLists int
		lists             []string // where each List read is
	}{
		{name: "nothing", in: ""},
		{name: "only comments", in: "# nothing here\n"},
		{name: "empty documents", in: "---\n---\n", empty: 2},
		{name: "one object", in: "kind: Namespace\nmetadata: {name: shop}\n", want: []string{"- Namespace shop"}},
		{name: "namespaced object", in: "kind: ServiceEntry\nmetadata: {namespace: shop, name: api}\n", want: []string{"- ServiceEntry shop/api"}},
		{name: "no kind, no name", in: "meshConfig: {}\n", want: []string{"-  (no name)"}},
		{name: "JSON", in: `{"kind": "Namespace", "metadata": {"name": "a"}}`, want: []string{"- Namespace a"}},
		{name: "documents", in: "kind: A\n---\n---\nkind: B\nmetadata: {name: b}\n", empty: 1, want: []string{
			"document 1 A (no name)", "document 3 B b",
		}},
		{name: "List", in: "kind: List\nitems:\n- kind: Namespace\n  metadata: {name: a}\n- kind: ServiceEntry\n  metadata: {namespace: a, name: x}\n", want: []string{
			"items[0] Namespace a", "items[1] ServiceEntry a/x",
		}, lists: []string{""}},
		{name: "typed List in a stream", in: "kind: X\n---\nkind: NamespaceList\nitems:\n- kind: Namespace\n", want: []string{
			"document 1 X (no name)", "document 2: items[0] Namespace (no name)",
		}, lists: []string{"document 2"}},
		{name: "a typed List gives its items their type", in: "apiVersion: v1\nkind: NamespaceList\nitems:\n- metadata: {name: a}\n- {kind: '', apiVersion: '', metadata: {name: b}}\n- {kind: Service, metadata: {name: c}}\n- {apiVersion: v1, metadata: {name: d}}\n", want: []string{
			"items[0] Namespace a", "items[1] Namespace b", "items[2] Service c", "items[3]  d",
		}, lists: []string{""}},
		{name: "a List gives its items nothing", in: "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n", want: []string{"items[0]  a"}, lists: []string{""}},
		{name: "nested Lists", in: "kind: List\nitems:\n- kind: A\n- kind: List\n  items:\n  - kind: B\n  - kind: ConfigMapList\n    items: [{kind: C}]\n", want: []string{
			"items[0] A (no name)", "items[1].items[0] B (no name)", "items[1].items[1].items[0] C (no name)",
		}, lists: []string{"", "items[1]", "items[1].items[1]"}},
		{name: "empty Lists", in: "kind: List\nitems: []\n---\nkind: List\n---\nkind: List\nitems: null\n---\nkind: List\nitems: [{kind: List, items: []}]\n", emptyLists: 4, lists: []string{"document 1", "document 2", "document 3", "document 4", "document 4: items[0]"}},
		{name: "document not an object", in: "- a\n", want: []string{"refused: the document must be an object, got a list"}},
		{name: "scalar document in a stream", in: "kind: A\n---\nhello\n", want: []string{
			"document 1 A (no name)", `refused: document 2: the document must be an object, got the string "hello"`,
		}},
		{name: "item not an object", in: "kind: List\nitems: [3, null, {kind: A}]\n", want: []string{
			"refused: items[0]: must be an object, got the number 3", "refused: items[1]: must be an object, got null", "items[2] A (no name)",
		}, lists: []string{""}},
		{name: "items not a list", in: "---\nkind: List\nitems: {a: 1}\n", want: []string{"refused: items: must be a list, got an object"}},
		{name: "items not a list in a nested List", in: "kind: X\n---\nkind: List\nitems: [{kind: List, items: yes}]\n", want: []string{
			"document 1 X (no name)", `refused: document 2: items[0]: items: must be a list, got the string "yes"`,
		}, lists: []string{"document 2"}},
		{name: "kind not a string", in: "kind: 3\n", want: []string{"refused: kind: must be a string, got the number 3"}},
		{name: "kind not a string in a List", in: "kind: List\nitems: [{kind: [a]}]\n", want: []string{"refused: items[0]: kind: must be a string, got a list"}, lists: []string{""}},
		{name: "syntax error", in: "a: [b\n", want: []string{"refused: not YAML or JSON: line 1: did not find expected ',' or ']'"}},
		{name: "syntax error after one document", in: "kind: A\n---\na: [b\n", want: []string{
			"document 1 A (no name)", "refused: document 2: not YAML or JSON: line 2: did not find expected ',' or ']'",
		}},
		{name: "syntax error after documents", in: "kind: A\n---\nkind: B\n---\na: [b\n", want: []string{
			"document 1 A (no name)", "document 2 B (no name)", "refused: document 3: not YAML or JSON: line 4: did not find expected ',' or ']'",
		}},
		{name: "problem in an object read", reads: always, in: "kind: A\nx: 1\nx: 2\n", want: []string{"- A (no name) ! x: given twice (lines 2 and 3)"}},
		{name: "problem in an object skipped", reads: never, in: "kind: A\nx: 1\nx: 2\n", want: []string{"- A (no name)"}},
		{name: "ambiguous number in an object read", reads: always, in: "kind: A\nport: 012\n", want: []string{
			"- A (no name) ! port: 012 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it",
		}},
		{name: "kind given twice, skipped", reads: never, in: "kind: A\nkind: B\n", want: []string{"refused: kind: given twice (lines 1 and 2)"}},
		{name: "kind given twice in a List item", reads: never, in: "kind: List\nitems:\n- {kind: A, kind: B}\n", want: []string{
			"refused: items[0].kind: given twice (lines 3 and 3)",
		}, lists: []string{""}},
		{name: "ambiguous kind", reads: never, in: "kind: 012\n", want: []string{
			"refused: kind: 012 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it",
		}},
		{name: "problems go with their items", reads: func(o Object, _ func(...string) bool) bool { return o.Kind == "A" },
			in: "kind: B\n---\nkind: List\nitems:\n- {kind: A, x: 1, x: 2}\n- {kind: B, y: 1, y: 2}\n- kind: List\n  items:\n  - {kind: A, z: 1, z: 2}\n", want: []string{
				"document 1 B (no name)",
				"document 2: items[0] A (no name) ! document 2: items[0].x: given twice (lines 5 and 5)",
				"document 2: items[1] B (no name)",
				"document 2: items[2].items[0] A (no name) ! document 2: items[2].items[0].z: given twice (lines 9 and 9)",
			}, lists: []string{"document 2", "document 2: items[2]"}},
		{name: "a List's own problem refuses it", reads: never, in: "kind: List\nmetadata: {a: 1, a: 2}\nitems: [{kind: A}]\n", want: []string{
			"refused: metadata.a: given twice (lines 2 and 2)",
		}},
		{name: "items given twice", reads: never, in: "kind: List\nitems: [{kind: A}]\nitems: []\n", want: []string{
			"refused: items: given twice (lines 2 and 3)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := tt.reads
			if reads == nil {
				reads = always
			}
			s := Read([]byte(tt.in), reads)
			assert.Equal(t, tt.want, lines(s))
			assert.Equal(t, tt.empty, s.Empty, "empty documents")
			assert.Equal(t, tt.emptyLists, s.EmptyLists, "empty Lists")
			var lists []string
			for _, l := range s.Lists {
				lists = append(lists, l.Where())
			}
			assert.Equal(t, tt.lists, lists, "Lists")
		})
	}
}

// TestReadTypedList: the items a typed List gives their type get its apiVersion too, in
// front of their own fields; the others are left as written.
func TestReadTypedList(t *testing.T) {
	s := Read([]byte("apiVersion: networking.istio.io/v1\nkind: ServiceEntryList\nitems:\n- {metadata: {name: a}, kind: ''}\n- {metadata: {name: b}, apiVersion: v1}\n"), always)
	require.Len(t, s.Objects, 2)
	assert.Equal(t, "ServiceEntry", s.Objects[0].Kind)
	assert.Equal(t, []string{"apiVersion", "kind", "metadata"}, keys(s.Objects[0].Fields))
	assert.Equal(t, "networking.istio.io/v1", s.Objects[0].Fields.Value("apiVersion"))
	assert.Equal(t, "", s.Objects[1].Kind)
	assert.Equal(t, []string{"metadata", "apiVersion"}, keys(s.Objects[1].Fields))
}

func keys(f strict.Fields) []string {
	var out []string
	for _, m := range f {
		out = append(out, m.Key)
	}
	return out
}

// TestReadTwice holds the function a loader is given to ask whether a key was given twice:
// true only for a key at exactly that path, given twice (not for another problem there).
func TestReadTwice(t *testing.T) {
	tests := []struct {
		name string
		in   string
		path []string
		want bool
	}{
		{"name given twice", "kind: ConfigMap\nmetadata: {name: a, name: istio}\n", []string{"metadata", "name"}, true},
		{"metadata given twice", "kind: ConfigMap\nmetadata: {name: a}\nmetadata: {name: istio}\n", []string{"metadata"}, true},
		{"asked one level up", "kind: ConfigMap\nmetadata: {name: a, name: istio}\n", []string{"metadata"}, false},
		{"asked one level down", "kind: ConfigMap\nmetadata: {name: a}\nmetadata: {name: istio}\n", []string{"metadata", "name"}, false},
		{"another key given twice", "kind: ConfigMap\nmetadata: {name: a, namespace: x, namespace: y}\n", []string{"metadata", "name"}, false},
		{"another problem at the path", "kind: ConfigMap\nmetadata: {name: 012}\n", []string{"metadata", "name"}, false},
		{"in a List item", "kind: List\nitems:\n- kind: List\n  items:\n  - kind: ConfigMap\n    metadata: {name: a, name: istio}\n", []string{"metadata", "name"}, true},
		{"in another List item", "kind: List\nitems:\n- {kind: ConfigMap, metadata: {name: a}, x: 1, x: 2}\n- {kind: X, metadata: {name: a, name: b}}\n", []string{"metadata", "name"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []bool
			Read([]byte(tt.in), func(o Object, twice func(...string) bool) bool {
				if o.Kind == "ConfigMap" {
					asked = append(asked, twice(tt.path...))
				}
				return false
			})
			assert.Equal(t, []bool{tt.want}, asked)
		})
	}
}

func TestObjectMetaAndID(t *testing.T) {
	tests := []struct {
		in              string
		namespace, name string
		id              string
	}{
		{"kind: ServiceEntry\nmetadata: {namespace: shop, name: api}\n", "shop", "api", "ServiceEntry shop/api"},
		{"kind: Namespace\nmetadata: {name: shop}\n", "", "shop", "Namespace shop"},
		{"kind: Service\nmetadata: {namespace: shop}\n", "shop", "", "Service shop/(no name)"},
		{"kind: Service\n", "", "", "Service (no name)"},
		{"kind: Service\nmetadata: [a]\n", "", "", "Service (no name)"},
		{"kind: Service\nmetadata: {namespace: 3, name: true}\n", "", "", "Service (no name)"},
		{"metadata: {name: a}\n", "", "a", " a"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s := Read([]byte(tt.in), always)
			require.Len(t, s.Objects, 1)
			o := s.Objects[0]
			require.NoError(t, o.Err)
			ns, name := o.Meta()
			assert.Equal(t, tt.namespace, ns)
			assert.Equal(t, tt.name, name)
			assert.Equal(t, tt.id, o.ID())
		})
	}
}

func TestJoinWhere(t *testing.T) {
	for _, tt := range []struct{ where, item, want string }{
		{"", "", ""},
		{"document 2", "", "document 2"},
		{"", "items[3]", "items[3]"},
		{"document 2", "items[3].items[0]", "document 2: items[3].items[0]"},
	} {
		assert.Equal(t, tt.want, JoinWhere(tt.where, tt.item), "%q + %q", tt.where, tt.item)
	}
}

func TestIsList(t *testing.T) {
	for kind, want := range map[string]bool{
		"List": true, "NamespaceList": true, "ServiceEntryList": true,
		"": false, "list": false, "Listing": false, "Namespace": false, "ConfigMaplist": false,
	} {
		assert.Equal(t, want, IsList(kind), kind)
	}
}

func TestCheckKind(t *testing.T) {
	known := []string{"IstioOperator", "ConfigMap"}
	tests := []struct {
		in   string
		want string
	}{
		{"kind: IstioOperator\n", ""},
		{"meshConfig: {}\n", ""},
		{"kind: Deployment\n", ""},
		{"kind: istiooperator\n", `kind: unknown kind "istiooperator" (did you mean "IstioOperator"? as written, the object would be skipped)`},
		{"kind: Istio-Operator\n", `kind: unknown kind "Istio-Operator" (did you mean "IstioOperator"? as written, the object would be skipped)`},
		{"kind: ConfigMaps\n", `kind: unknown kind "ConfigMaps" (did you mean "ConfigMap"? as written, the object would be skipped)`},
		{"kind: List\nitems: [{kind: A}, {kind: ConfgMap}]\n", `items[1]: kind: unknown kind "ConfgMap" (did you mean "ConfigMap"? as written, the object would be skipped)`},
		{"kind: A\n---\nkind: configmap\n", `document 2: kind: unknown kind "configmap" (did you mean "ConfigMap"? as written, the object would be skipped)`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s := Read([]byte(tt.in), always)
			require.NotEmpty(t, s.Objects)
			err := CheckKind(s.Objects[len(s.Objects)-1], known)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
		})
	}
}

func TestDescribeKind(t *testing.T) {
	assert.Equal(t, "object without a kind", DescribeKind(Object{}))
	assert.Equal(t, "Namespace", DescribeKind(Object{Kind: "Namespace"}))
}

func TestStreamFound(t *testing.T) {
	tests := []struct {
		s       Stream
		skipped map[string]int
		want    string
	}{
		{Stream{}, nil, "found nothing: the input is empty"},
		{Stream{Empty: 1}, nil, "found an empty document"},
		{Stream{Empty: 3}, map[string]int{}, "found 3 empty documents"},
		{Stream{EmptyLists: 1}, nil, "found an empty List"},
		{Stream{EmptyLists: 2, Empty: 1}, nil, "found 2 empty Lists and an empty document"},
		{Stream{EmptyLists: 1, Empty: 2}, nil, "found an empty List and 2 empty documents"},
		{Stream{Empty: 5}, map[string]int{"Namespace": 2, "Deployment": 1, "object without a kind": 1}, "found 1 Deployment, 2 Namespace, 1 object without a kind"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.s.Found(tt.skipped))
	}
}
