package meshfile

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// seeds are mesh configuration files in every shape, and near misses of them.
var seeds = []string{
	"",
	"kind: Namespace\nmetadata: {name: a}\n",
	"apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata: {name: installed-state, namespace: istio-system}\nspec:\n  profile: default\n  meshConfig:\n    accessLogFile: /dev/stdout\n    rootNamespace: istio-config\n    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n      policies:\n      - visibility: PUBLIC\n        matchingRules:\n        - namespaceSelector: {matchLabels: {team: platform}}\n  values:\n    global: {istioNamespace: istio-system}\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |-\n    defaultConfig:\n      discoveryAddress: istiod.istio-system.svc:15012\n    serviceEntryVisibility:\n      applyToSidecars: true\n  meshNetworks: 'networks: {}'\n",
	"apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: istio-ca-root-cert}\n  data: {root-cert.pem: x}\n- kind: ConfigMap\n  metadata: {name: istio-1-24}\n  data: {mesh: 'rootNamespace: a'}\n",
	"meshConfig:\n  serviceEntryVisibility: {defaultVisibility: NONE}\n",
	"values:\n  meshConfig:\n    discoverySelectors:\n    - matchLabels: {istio-discovery: enabled}\n",
	"defaultVisibility: NAMESPACE\npolicies:\n- visibility: PUBLIC\n  matchingRules: [{namespaceSelector: {}}]\n",
	"rootNamespace: x\ndefault_visibility: NONE\n",
	"serviceEntryVisiblity: {}\ndefaultVisibility: NONE\nserviceEntryVisibility: {}\n",
	`{"meshConfig": {"service_entry_visibility": {"policies": []}, "serviceEntryVisibility": null}}`,
	"kind: istiooperator\nspec: {meshconfig: {}}\n---\nkind: IstioOperator\nspec: {values: 3}\n",
	"kind: ConfigMap\nmetadata: {name: istio, name: other}\ndata: {mesh: \"a: 1\\na: 2\\n---\\n\"}\n",
	"kind: IstioOperator\nspec:\n  meshConfig: {rootNamespace: a}\n  values: {meshConfig: {rootNamespace: b}}\n---\nmeshConfig: 3\n",
	"- 1\n---\nkind: List\nitems: [3]\n",
	"kind: ConfigMap\nmetadata: {name: istiod}\ndata: {mesh: 'rootNamespace: a'}\n---\nmeshConfig: {}\n",
}

// meshPaths are the places Read finds a meshConfig in.
var meshPaths = []string{"", "spec.meshConfig", "spec.values.meshConfig", "data.mesh", "meshConfig", "values.meshConfig"}

// refDoc is where the reference finds a mesh configuration.
type refDoc struct {
	where, path string
	bare        bool
}

// refSources is a literal reading of where the mesh configuration of an object is, for an
// object without near misses or values of the wrong type: the meshConfigs of an
// IstioOperator, the data.mesh of the istio ConfigMap, and for an object without a kind its
// meshConfig, its values.meshConfig, or the object itself (a bare block when it has a field
// of the block). mesh reports whether the object is one that holds mesh configuration.
func refSources(o kube.Object) (docs []refDoc, mesh bool) {
	field := func(x any, path string) (any, bool) {
		for _, k := range strings.Split(path, ".") {
			f, _ := x.(strict.Fields)
			v, ok := f.Get(k)
			if !ok {
				return nil, false
			}
			x = v
		}
		return x, true
	}
	add := func(path string, bare bool) { docs = append(docs, refDoc{o.Where(), path, bare}) }
	switch o.Kind {
	case "IstioOperator":
		for _, p := range []string{"spec.meshConfig", "spec.values.meshConfig"} {
			if _, ok := field(o.Fields, p); ok {
				add(p, false)
			}
		}
		return docs, true
	case "ConfigMap":
		_, name := o.Meta()
		if _, ok := field(o.Fields, "data.mesh"); ok && (name == "istio" || strings.HasPrefix(name, "istio-")) {
			add("data.mesh", false)
			return docs, true
		}
		return nil, false
	case "":
		for _, p := range []string{"meshConfig", "values.meshConfig"} {
			if _, ok := field(o.Fields, p); ok {
				add(p, false)
				return docs, true
			}
		}
		add("", slices.ContainsFunc(o.Fields, func(m strict.Member) bool { return slices.Contains(blockKeys, m.Key) }))
		return docs, true
	}
	return nil, false
}

// checkErrors fails unless every problem is a FieldError naming its place — but for the
// only document as a whole and input holding no mesh configuration, which is the only
// problem then.
func checkErrors(t *testing.T, docs []Doc, errs []error) {
	t.Helper()
	for _, err := range errs {
		if errors.Is(err, ErrNoMeshConfig) {
			if len(errs) != 1 || len(docs) != 0 || !strings.HasPrefix(err.Error(), "no mesh configuration: found ") {
				t.Fatalf("%q beside %d documents and %d problems", err, len(docs), len(errs))
			}
			continue
		}
		istiotest.PlacedProblems(t, err)
	}
}

// FuzzRead reads any input and checks that every problem names its place, that every
// document found is what its object holds at its path (data.mesh parsed), and that input
// read without problems is found where the literal reference finds it.
func FuzzRead(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		docs, errs := Read([]byte(in))
		checkErrors(t, docs, errs)
		for _, d := range docs {
			if d.Object.Err != nil || !slices.Contains(meshPaths, d.Path) || (d.Bare && d.Path != "") {
				t.Fatalf("document at %q, path %q (bare %v), error %v", d.Where(), d.Path, d.Bare, d.Object.Err)
			}
			var want any = d.Object.Fields
			if d.Path != "" {
				for _, k := range strings.Split(d.Path, ".") {
					want = want.(strict.Fields).Value(k)
				}
			}
			if d.Path == "data.mesh" {
				parsed, err := strict.ParseYAML([]byte(want.(string)), d.Path)
				if err != nil || len(parsed) > 1 {
					t.Fatalf("data.mesh read despite %v, %d documents", err, len(parsed))
				}
				want = nil
				if len(parsed) == 1 {
					want = parsed[0].Value
				}
			}
			if !reflect.DeepEqual(want, d.Value) {
				t.Fatalf("%s at %s: the object holds %v, the document %v", d.Where(), d.Path, want, d.Value)
			}
		}
		if len(errs) > 0 && !errors.Is(errs[0], ErrNoMeshConfig) {
			return
		}

		var ref []refDoc
		mesh := false
		for _, o := range kube.Read([]byte(in), func(kube.Object, func(...string) bool) bool { return false }).Objects {
			if o.Err != nil {
				t.Fatalf("%v is not among the problems %v", o.Err, errs)
			}
			d, m := refSources(o)
			ref, mesh = append(ref, d...), mesh || m
		}
		var got []refDoc
		for _, d := range docs {
			got = append(got, refDoc{d.Where(), d.Path, d.Bare})
		}
		if !reflect.DeepEqual(ref, got) {
			t.Fatalf("Read finds %+v, the reference %+v", got, ref)
		}
		if mesh == (len(errs) > 0) {
			t.Fatalf("the reference finds mesh configuration: %v; Read says %v", mesh, errs)
		}
	})
}

// refBlockProblem reports whether Block reports the key k of a meshConfig: a misspelling of
// serviceEntryVisibility, a field of the block, or a misspelling of one.
func refBlockProblem(k string) bool {
	if slices.Contains(BlockName, k) {
		return false
	}
	return strict.Suggest(k, BlockName[:1]) != "" || strict.EditDistance(strings.ToLower(k), strings.ToLower(BlockName[0])) <= 3 ||
		slices.Contains(blockKeys, k) || strict.Suggest(k, blockKeys) != ""
}

// FuzzBlock takes the block of every mesh configuration of any input and checks it against
// what the document holds: a bare block less the meshConfig fields beside it, one problem
// for each of those; for a meshConfig, the block under its name at its path, or a problem
// at the meshConfig's path for each key the reference says leaves the feature off.
func FuzzBlock(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		docs, _ := Read([]byte(in))
		for _, d := range docs {
			block, path, found, err := Block(d)
			problems := fielderr.Split(err)
			for _, e := range problems {
				fe, ok := e.(*fielderr.Error)
				if !ok || fe.Where != "" || fe.Field == "" {
					t.Fatalf("%T %q is not a FieldError with a field", e, e)
				}
			}
			if d.Bare {
				var rest strict.Fields
				var fields []string
				for _, m := range d.Value.(strict.Fields) {
					if slices.ContainsFunc(meshFields, func(names []string) bool { return slices.Contains(names, m.Key) }) {
						fields = append(fields, m.Key)
						continue
					}
					rest = append(rest, m)
				}
				var got []string
				for _, e := range problems {
					got = append(got, e.(*fielderr.Error).Field)
				}
				if !found || path != "" || len(block.(strict.Fields)) != len(rest) || (len(rest) > 0 && !reflect.DeepEqual(block, rest)) || !slices.Equal(got, fields) {
					t.Fatalf("bare block %v: %v at %q (found %v), problems at %q; want %v and problems at %q", d.Value, block, path, found, got, rest, fields)
				}
				continue
			}
			mc, isObject := d.Value.(strict.Fields)
			if d.Value == nil || !isObject {
				if found || block != nil || path != "" || (d.Value == nil) != (err == nil) {
					t.Fatalf("meshConfig %v: %v at %q (found %v), %v", d.Value, block, path, found, err)
				}
				continue
			}
			var bad []string
			for _, k := range mc.SortedKeys() {
				if refBlockProblem(k) {
					bad = append(bad, k)
				}
			}
			spellings := 0
			for _, n := range BlockName {
				if mc.Has(n) {
					spellings++
				}
			}
			if want := len(bad) + max(spellings-1, 0); len(problems) != want {
				t.Fatalf("meshConfig %v: %d problems, want %d (keys %q, %d spellings): %v", mc, len(problems), want, bad, spellings, err)
			}
			for _, e := range problems {
				if e.(*fielderr.Error).Field != strict.Display(d.Path) {
					t.Fatalf("problem %q is not at %q", e, d.Path)
				}
			}
			if err != nil {
				if found || block != nil {
					t.Fatalf("a block found despite %v", err)
				}
				continue
			}
			var want any
			for _, n := range BlockName {
				if v, ok := mc.Get(n); ok {
					want = v
				}
			}
			if found != (want != nil) || !reflect.DeepEqual(block, want) || (found && path != strict.Child(d.Path, BlockName[0])) {
				t.Fatalf("meshConfig %v: %v at %q (found %v), want %v", mc, block, path, found, want)
			}
		}
	})
}
