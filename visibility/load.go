package visibility

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// LoadConfig reads the ServiceEntry visibility configuration from YAML or JSON in any of the
// shapes it is kept in, alone, in a multi-document stream, or inside a List (what
// `kubectl get … -o yaml` prints):
//
//   - an IstioOperator: spec.meshConfig, or spec.values.meshConfig;
//   - the istio ConfigMap (named istio, or istio-<revision>), whose data.mesh holds the
//     meshConfig as YAML (kubectl get configmap istio -n istio-system -o yaml); other
//     ConfigMaps are skipped;
//   - Helm values: meshConfig, or values.meshConfig;
//   - a whole meshConfig ({serviceEntryVisibility: {...}, accessLogFile: ..., ...});
//   - a bare serviceEntryVisibility block ({defaultVisibility: NAMESPACE, policies: [...]}).
//
// Objects of other kinds are skipped, and at most one place may carry the block. The block
// itself is decoded strictly (see Config.UnmarshalJSON); errors name the document, the List
// item and the path from the object's root, such as
// "items[0]: spec.meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector".
// The fields of meshConfig other than serviceEntryVisibility are not checked, but a key or
// kind that looks like a misspelling of one that would carry the configuration
// (serviceEntryVisiblity, meshconfig, data.Mesh, kind: istiooperator) is an error, since it
// would silently leave the feature off, and so is a field of the block in meshConfig itself
// (defaultVisibility beside serviceEntryVisibility) or a misspelt one that would have made a
// bare block (defaultVisiblity). So is a key given twice.
//
// LoadConfig returns a nil *Config, and no error, when the input holds a mesh configuration
// without the block, or with serviceEntryVisibility: null (an empty value in YAML), as in
// Istio: the feature is not configured. Input that holds no mesh configuration at all —
// empty input, only objects of other kinds — is an error saying what it holds. LoadConfig
// validates what it decodes, so a returned Config compiles.
func LoadConfig(data []byte) (*Config, error) {
	return loadOne(data, "serviceEntryVisibility configuration", func(d meshDoc) (*Config, string, error) {
		if d.bare {
			block, misplaced := meshFieldsInBlock(d.value)
			c, loc, err := decodeChecked(block, d.path)
			if misplaced != nil {
				return nil, "", errors.Join(misplaced, err)
			}
			return c, loc, err
		}
		return fromMeshConfig(d.value, d.path)
	})
}

// loadOne reads the mesh configurations of data and returns what extract finds in them
// (with its path in the object): nil when none holds it, an error naming both places when
// two do, and every problem of every document at once.
func loadOne[T any](data []byte, what string, extract func(d meshDoc) (*T, string, error)) (*T, error) {
	docs, errs := readMeshConfigs(data)
	var found *T
	where := ""
	for _, d := range docs {
		c, loc, err := extract(d)
		if err != nil {
			errs = append(errs, inObject(d.where(), err))
			continue
		}
		if c == nil {
			continue
		}
		if found != nil {
			errs = append(errs, &FieldError{Where: d.where(), Field: loc, Detail: "a second " + what + "; the first is at " + where, Err: ErrDuplicate})
			continue
		}
		found, where = c, strict.At(d.where())+loc
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return found, nil
}

func inObject(where string, err error) error { return fielderr.In(where, err) }

// meshDoc is one mesh configuration found in a stream: the meshConfig object (nil when
// null; for a bare serviceEntryVisibility block, the block), the object it is in, and its
// path in the object.
type meshDoc struct {
	obj   kubeObject
	path  string
	value any
	bare  bool
}

// where names the document's object for a message. It is spelt only for one: an item of
// Lists nested n deep has a path of O(n) (see kubeObject).
func (d meshDoc) where() string { return d.obj.where() }

// readMeshConfigs finds every mesh configuration of a stream, in the shapes LoadConfig
// describes, with the istio ConfigMap's data.mesh parsed: the one walker LoadConfig and
// LoadScope share. It returns the problems found on the way (near misses of a wrapper key
// or kind, a data.mesh that is not YAML), and an error for input holding no mesh
// configuration at all.
func readMeshConfigs(data []byte) ([]meshDoc, []error) {
	s := readObjects(data, holdsMeshConfig)
	var (
		docs        []meshDoc
		errs        []error
		meshObjects int
		skipped     = map[string]int{}
	)
	for _, o := range s.objects {
		if o.err != nil {
			errs = append(errs, o.err)
			continue
		}
		srcs, err := meshSources(o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if srcs == nil {
			skipped[describeKind(o)]++
			continue
		}
		meshObjects++
		for _, src := range srcs {
			mc, err := src.resolve()
			if err != nil {
				errs = append(errs, inObject(o.where(), err))
				continue
			}
			docs = append(docs, meshDoc{obj: o, path: src.path, value: mc, bare: src.bare})
		}
	}
	if meshObjects == 0 && len(errs) == 0 {
		errs = append(errs, &FieldError{Detail: fmt.Sprintf("no mesh configuration: %s; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig", s.found(skipped)), Err: ErrNoMeshConfig})
	}
	return docs, errs
}

// holdsMeshConfig reports whether o is an object readMeshConfigs reads (a problem in any
// other object is not the mesh configuration's). A ConfigMap whose name, which decides, was
// given twice counts as read.
func holdsMeshConfig(o kubeObject, twice func(path ...string) bool) bool {
	srcs, err := meshSources(o)
	return srcs != nil || err != nil || o.kind == "ConfigMap" && (twice("metadata") || twice("metadata", "name"))
}

// meshSource is one place in an object that holds mesh configuration.
type meshSource struct {
	value any    // the meshConfig (or, bare, the block itself)
	path  string // where it is in the object
	bare  bool   // value is a bare serviceEntryVisibility block
	yaml  bool   // value is a string of YAML (the ConfigMap's data.mesh)
}

// meshSources returns the places in o that hold mesh configuration; nil when o holds none
// (another kind of object), and an error for a near miss that would silently hold none.
func meshSources(o kubeObject) ([]meshSource, error) {
	if err := checkKind(o, []string{"IstioOperator", "ConfigMap"}); err != nil {
		return nil, err
	}
	switch o.kind {
	case "IstioOperator":
		spec, err := objectAt(o, o.fields.Value("spec"), "spec")
		if err != nil || spec == nil {
			return []meshSource{}, err
		}
		var out []meshSource
		if mc, ok := spec.Get("meshConfig"); ok {
			out = append(out, meshSource{value: mc, path: "spec.meshConfig"})
		}
		values, err := objectAt(o, spec.Value("values"), "spec.values")
		if err != nil {
			return nil, err
		}
		if mc, ok := values.Get("meshConfig"); ok {
			out = append(out, meshSource{value: mc, path: "spec.values.meshConfig"})
		}
		if err := errors.Join(nearMiss(o, spec, "spec", "meshConfig"), nearMiss(o, values, "spec.values", "meshConfig")); err != nil {
			return nil, err
		}
		return append([]meshSource{}, out...), nil
	case "ConfigMap":
		_, name := o.meta()
		if name != "istio" && !strings.HasPrefix(name, "istio-") {
			return nil, nil
		}
		data, err := objectAt(o, o.fields.Value("data"), "data")
		if err != nil {
			return nil, err
		}
		if mesh, ok := data.Get("mesh"); ok {
			return []meshSource{{value: mesh, path: "data.mesh", yaml: true}}, nil
		}
		return nil, nearMiss(o, data, "data", "mesh")
	case "":
	default:
		return nil, nil // another kind of object
	}
	// Without a kind: Helm values, a meshConfig, or a bare block.
	if mc, ok := o.fields.Get("meshConfig"); ok {
		return []meshSource{{value: mc, path: "meshConfig"}}, nil
	}
	values, err := objectAt(o, o.fields.Value("values"), "values")
	if err != nil {
		return nil, err
	}
	if mc, ok := values.Get("meshConfig"); ok {
		return []meshSource{{value: mc, path: "values.meshConfig"}}, nil
	}
	if err := errors.Join(nearMiss(o, o.fields, "", "meshConfig"), nearMiss(o, values, "values", "meshConfig")); err != nil {
		return nil, err
	}
	for _, k := range blockKeys {
		if o.fields.Has(k) {
			return []meshSource{{value: o.fields, bare: true}}, nil
		}
	}
	return []meshSource{{value: o.fields}}, nil
}

// objectAt returns x, the field at path of o, as an object; nil for an absent one.
func objectAt(o kubeObject, x any, path string) (strict.Fields, error) {
	if x == nil {
		return nil, nil
	}
	m, ok := x.(strict.Fields)
	if !ok {
		return nil, problem(o.where(), path, x, "must be an object, got %s", strict.Describe(x))
	}
	return m, nil
}

// nearMiss reports a key of m (at path in o) that misspells want.
func nearMiss(o kubeObject, m strict.Fields, path, want string) error {
	if m.Has(want) {
		return nil
	}
	var errs []error
	for _, k := range m.SortedKeys() {
		if strict.Close(k, []string{want}) != "" {
			errs = append(errs, problem(o.where(), strict.Display(path), k, "unknown field %q (did you mean %q? as written, the mesh configuration is not read)", k, want))
		}
	}
	return errors.Join(errs...)
}

var (
	blockKeys = []string{defVis, defVisSnake, pols, apply, applySnake}
	blockName = []string{"serviceEntryVisibility", "service_entry_visibility"}
)

// resolve returns the source's meshConfig object (the bare block itself for a bare source),
// parsing the ConfigMap's data.mesh; nil for an empty data.mesh.
func (src meshSource) resolve() (any, error) {
	mc := src.value
	if !src.yaml {
		return mc, nil
	}
	s, ok := mc.(string)
	if !ok {
		return nil, problem("", src.path, mc, "must be a string holding the meshConfig YAML, got %s", strict.Describe(mc))
	}
	docs, err := strict.ParseYAMLAt([]byte(s), src.path)
	if err != nil {
		return nil, fielderr.In(src.path, err)
	}
	switch {
	case len(docs) > 1:
		return nil, problem("", src.path, nil, "holds %d YAML documents; the meshConfig is one", len(docs))
	case len(docs) == 0:
		return nil, nil
	case docs[0].Err != nil:
		return nil, docs[0].Err
	}
	return docs[0].Value, nil
}

// sortedFieldNames returns the keys of a decoded object, sorted; none for anything else.
func sortedFieldNames(x any) []string {
	m, _ := x.(strict.Fields)
	return m.SortedKeys()
}

// fromMeshConfig extracts serviceEntryVisibility from a meshConfig object at path. A null
// meshConfig, and a null block, mean "not configured".
func fromMeshConfig(mc any, path string) (*Config, string, error) {
	if mc == nil {
		return nil, "", nil
	}
	var d strict.Decoder
	o, ok := d.Object(mc, path)
	if !ok {
		return nil, "", d.Err()
	}
	for _, k := range mc.(strict.Fields).SortedKeys() {
		switch {
		case k == blockName[0] || k == blockName[1]:
		case looksLike(k, blockName[0]):
			d.Errorf(path, "unknown field %q (did you mean %q? as written, the feature stays off)", k, blockName[0])
		case slices.Contains(blockKeys, k):
			// The block's fields in meshConfig itself, which has none of them.
			d.Errorf(path, "unknown field %q: it is a field of serviceEntryVisibility (as written, the feature stays off)", k)
		default:
			// A misspelt field of a bare block, read as a meshConfig without the block.
			if s := strict.Suggest(k, blockKeys); s != "" {
				d.Errorf(path, "unknown field %q (did you mean %q, a field of serviceEntryVisibility? as written, the feature stays off)", k, s)
			}
		}
	}
	block, bp, ok := o.Get(blockName...)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", nil // absent, or null as Istio reads it
	}
	return decodeChecked(block, bp)
}

// meshFieldsInBlock finds fields of meshConfig (service scope, the sidecar view's) beside a
// bare serviceEntryVisibility block: such a file is a meshConfig with the block out of its
// place, and each field would otherwise be only "unknown". It returns the block without
// them, and an error naming each.
func meshFieldsInBlock(block any) (any, error) {
	o, ok := block.(strict.Fields)
	if !ok {
		return block, nil
	}
	var errs []error
	rest := make(strict.Fields, 0, len(o))
	for _, m := range o {
		if slices.ContainsFunc([][]string{scopeConfigsName, settingsName, defaultConfName, rootNamespaceName, defaultExportName, discoverySelectors},
			func(names []string) bool { return slices.Contains(names, m.Key) }) {
			errs = append(errs, problem("", m.Key, nil, "a field of meshConfig, not of serviceEntryVisibility: a file that holds both is a meshConfig, with the block under its name (meshConfig: {serviceEntryVisibility: {policies: …}, %s: …})", m.Key))
			continue
		}
		rest = append(rest, m)
	}
	return rest, errors.Join(errs...)
}

// decodeChecked decodes a block at path and validates it, naming paths from the document root.
func decodeChecked(block any, path string) (*Config, string, error) {
	var d strict.Decoder
	c := decodeConfig(&d, block, path)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	var root *field.Path
	if path != "" {
		parts := strings.Split(path, ".")
		root = field.NewPath(parts[0], parts[1:]...)
	}
	if errs := c.problems(root); len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	where := path
	if where == "" {
		where = "the top level"
	}
	return c, where, nil
}

// looksLike reports whether key is a plausible misspelling of want: equal but for case,
// separators, or up to three edits.
func looksLike(key, want string) bool {
	return strict.Suggest(key, []string{want}) != "" || strict.EditDistance(strings.ToLower(key), strings.ToLower(want)) <= 3
}
