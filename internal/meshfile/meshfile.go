// Package meshfile finds the Istio mesh configuration in the files it is kept in — an
// IstioOperator (spec.meshConfig, spec.values.meshConfig), the istio ConfigMap (data.mesh,
// itself YAML), Helm values (meshConfig, values.meshConfig), a whole meshConfig, or a bare
// serviceEntryVisibility block — alone, in a multi-document stream or inside a List. It is
// the one reader of those shapes: visibility.LoadConfig reads the serviceEntryVisibility
// block through it, and mesh.Load every field meshscope uses.
//
// It also holds the names of the meshConfig fields meshscope reads, so that a key that
// misspells one of them, or one written in the wrong place, is told where it belongs.
package meshfile

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// Sentinel errors, exported by the packages that read mesh configuration.
var (
	// ErrNoMeshConfig: input holding no mesh configuration at all.
	ErrNoMeshConfig = errors.New("no mesh configuration")
	// ErrDuplicate: two places in the input configure the same thing.
	ErrDuplicate = errors.New("duplicate object")
)

// The names of the fields meshscope reads, camelCase first, then the snake_case alias
// protobuf accepts.
var (
	// The serviceEntryVisibility block and its own fields.
	BlockName       = []string{"serviceEntryVisibility", "service_entry_visibility"}
	DefaultVis      = []string{"defaultVisibility", "default_visibility"}
	Policies        = []string{"policies"}
	ApplyToSidecars = []string{"applyToSidecars", "apply_to_sidecars"}

	// The meshConfig fields besides the block.
	ScopeConfigs       = []string{"serviceScopeConfigs", "service_scope_configs"}
	Settings           = []string{"serviceSettings", "service_settings"}
	DefaultConfig      = []string{"defaultConfig", "default_config"}
	DiscoveryAddress   = []string{"discoveryAddress", "discovery_address"}
	RootNamespace      = []string{"rootNamespace", "root_namespace"}
	DefaultExport      = []string{"defaultServiceExportTo", "default_service_export_to"}
	DefaultVSExport    = []string{"defaultVirtualServiceExportTo", "default_virtual_service_export_to"}
	DefaultDRExport    = []string{"defaultDestinationRuleExportTo", "default_destination_rule_export_to"}
	DiscoverySelectors = []string{"discoverySelectors", "discovery_selectors"}
	OutboundPolicy     = []string{"outboundTrafficPolicy", "outbound_traffic_policy"}
)

// blockKeys are the block's own fields, every spelling.
var blockKeys = slices.Concat(DefaultVis, Policies, ApplyToSidecars)

// meshFields are the meshConfig fields meshscope reads besides the block.
var meshFields = [][]string{ScopeConfigs, Settings, DefaultConfig, RootNamespace, DefaultExport, DefaultVSExport, DefaultDRExport, DiscoverySelectors, OutboundPolicy}

// Doc is one mesh configuration found in a stream.
type Doc struct {
	// Object is the object it is in.
	Object kube.Object
	// Path is where it is in the object ("spec.meshConfig"; "" for the object itself).
	Path string
	// Value is the meshConfig object (strict.Fields; nil when null) or, Bare, the
	// serviceEntryVisibility block itself.
	Value any
	// Bare marks a bare serviceEntryVisibility block.
	Bare bool
}

// Where names the document's object for a message. It is spelt only for one: an item of
// Lists nested n deep has a path of O(n).
func (d Doc) Where() string { return d.Object.Where() }

// LoadOne reads the mesh configurations of data and returns what extract finds in them
// (with its path in the object): nil when none holds it, an error naming both places when
// two do (what names the thing in the message), and every problem of every document at once.
func LoadOne[T any](data []byte, what string, extract func(d Doc) (*T, string, error)) (*T, error) {
	docs, errs := Read(data)
	var found *T
	claims := Claims{}
	for _, d := range docs {
		c, loc, err := extract(d)
		if err != nil {
			errs = append(errs, fielderr.In(d.Where(), err))
			continue
		}
		if c == nil {
			continue
		}
		if err := claims.Claim(d, what, loc); err != nil {
			errs = append(errs, err)
			continue
		}
		found = c
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return found, nil
}

// Claims records, for each thing a stream's documents may set once only (named as a message
// names it), the first place that set it.
type Claims map[string]string

// Claim records that the document d sets what at path in its object. It returns nil the
// first time what is set, and afterwards an error at path naming the first place, wrapping
// ErrDuplicate; the first place stays the one recorded.
func (c Claims) Claim(d Doc, what, path string) error {
	if first, dup := c[what]; dup {
		return &fielderr.Error{Where: d.Where(), Field: path, Detail: "a second " + what + "; the first is at " + first, Err: ErrDuplicate}
	}
	c[what] = strict.At(d.Where()) + path
	return nil
}

// Read finds every mesh configuration of a stream, in the shapes the package describes,
// with the istio ConfigMap's data.mesh parsed. It returns the problems found on the way
// (near misses of a wrapper key or kind, a data.mesh that is not YAML), and an error for
// input holding no mesh configuration at all.
func Read(data []byte) ([]Doc, []error) {
	docs, _, errs := read(data, false)
	return docs, errs
}

// ReadAll is Read, and also returns what each install object of the stream (an
// IstioOperator, Helm values) says about the istiod it deploys (see Install), in stream
// order; a setting of the wrong type is among the problems.
func ReadAll(data []byte) ([]Doc, []Install, []error) { return read(data, true) }

// read is Read, and, when installs is set, ReadAll.
func read(data []byte, installs bool) ([]Doc, []Install, []error) {
	s := kube.Read(data, holdsMeshConfig)
	var (
		docs        []Doc
		found       []Install
		errs        []error
		meshObjects int
		skipped     = map[string]int{}
	)
	for _, o := range s.Objects {
		if o.Err != nil {
			errs = append(errs, o.Err)
			continue
		}
		srcs, err := sources(o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if srcs == nil {
			skipped[kube.DescribeKind(o)]++
			continue
		}
		meshObjects++
		if installs {
			var d strict.Decoder
			if in, ok := readInstall(&d, o); ok {
				found = append(found, in)
			}
			if err := d.Err(); err != nil {
				errs = append(errs, fielderr.In(o.Where(), err))
			}
		}
		for _, src := range srcs {
			mc, err := src.resolve()
			if err != nil {
				errs = append(errs, fielderr.In(o.Where(), err))
				continue
			}
			docs = append(docs, Doc{Object: o, Path: src.path, Value: mc, Bare: src.bare})
		}
	}
	if meshObjects == 0 && len(errs) == 0 {
		errs = append(errs, &fielderr.Error{Detail: fmt.Sprintf("no mesh configuration: %s; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig", s.Found(skipped)), Err: ErrNoMeshConfig})
	}
	return docs, found, errs
}

// holdsMeshConfig reports whether o is an object Read reads (a problem in any other object
// is not the mesh configuration's). A ConfigMap whose name, which decides, was given twice
// counts as read.
func holdsMeshConfig(o kube.Object, twice func(path ...string) bool) bool {
	srcs, err := sources(o)
	return srcs != nil || err != nil || o.Kind == "ConfigMap" && (twice("metadata") || twice("metadata", "name"))
}

// source is one place in an object that holds mesh configuration.
type source struct {
	value any    // the meshConfig (or, bare, the block itself)
	path  string // where it is in the object
	bare  bool   // value is a bare serviceEntryVisibility block
	yaml  bool   // value is a string of YAML (the ConfigMap's data.mesh)
}

// sources returns the places in o that hold mesh configuration; nil when o holds none
// (another kind of object), and an error for a near miss that would silently hold none.
func sources(o kube.Object) ([]source, error) {
	if err := kube.CheckKind(o, []string{"IstioOperator", "ConfigMap"}); err != nil {
		return nil, err
	}
	switch o.Kind {
	case "IstioOperator":
		spec, err := objectAt(o, o.Fields.Value("spec"), "spec")
		if err != nil || spec == nil {
			return []source{}, err
		}
		var out []source
		if mc, ok := spec.Get("meshConfig"); ok {
			out = append(out, source{value: mc, path: "spec.meshConfig"})
		}
		values, err := objectAt(o, spec.Value("values"), "spec.values")
		if err != nil {
			return nil, err
		}
		if mc, ok := values.Get("meshConfig"); ok {
			out = append(out, source{value: mc, path: "spec.values.meshConfig"})
		}
		if err := errors.Join(nearMiss(o, spec, "spec", "meshConfig"), nearMiss(o, values, "spec.values", "meshConfig")); err != nil {
			return nil, err
		}
		return append([]source{}, out...), nil
	case "ConfigMap":
		_, name := o.Meta()
		if name != "istio" && !strings.HasPrefix(name, "istio-") {
			return nil, nil
		}
		data, err := objectAt(o, o.Fields.Value("data"), "data")
		if err != nil {
			return nil, err
		}
		if mesh, ok := data.Get("mesh"); ok {
			return []source{{value: mesh, path: "data.mesh", yaml: true}}, nil
		}
		return nil, nearMiss(o, data, "data", "mesh")
	case "":
	default:
		return nil, nil // another kind of object
	}
	// Without a kind: Helm values, a meshConfig, or a bare block.
	if mc, ok := o.Fields.Get("meshConfig"); ok {
		return []source{{value: mc, path: "meshConfig"}}, nil
	}
	values, err := objectAt(o, o.Fields.Value("values"), "values")
	if err != nil {
		return nil, err
	}
	if mc, ok := values.Get("meshConfig"); ok {
		return []source{{value: mc, path: "values.meshConfig"}}, nil
	}
	if err := errors.Join(nearMiss(o, o.Fields, "", "meshConfig"), nearMiss(o, values, "values", "meshConfig")); err != nil {
		return nil, err
	}
	for _, k := range blockKeys {
		if o.Fields.Has(k) {
			return []source{{value: o.Fields, bare: true}}, nil
		}
	}
	return []source{{value: o.Fields}}, nil
}

// objectAt returns x, the field at path of o, as an object; nil for an absent one.
func objectAt(o kube.Object, x any, path string) (strict.Fields, error) {
	if x == nil {
		return nil, nil
	}
	m, ok := x.(strict.Fields)
	if !ok {
		return nil, &fielderr.Error{Where: o.Where(), Field: path, Value: x, Detail: "must be an object, got " + strict.Describe(x)}
	}
	return m, nil
}

// nearMiss reports a key of m (at path in o) that misspells want.
func nearMiss(o kube.Object, m strict.Fields, path, want string) error {
	if m.Has(want) {
		return nil
	}
	var errs []error
	for _, k := range m.SortedKeys() {
		if strict.Close(k, []string{want}) != "" {
			errs = append(errs, &fielderr.Error{Where: o.Where(), Field: strict.Display(path), Value: k,
				Detail: fmt.Sprintf("unknown field %q (did you mean %q? as written, the mesh configuration is not read)", k, want)})
		}
	}
	return errors.Join(errs...)
}

// resolve returns the source's meshConfig object (the bare block itself for a bare source),
// parsing the ConfigMap's data.mesh; nil for an empty data.mesh.
func (src source) resolve() (any, error) {
	mc := src.value
	if !src.yaml {
		return mc, nil
	}
	s, ok := mc.(string)
	if !ok {
		return nil, &fielderr.Error{Field: src.path, Value: mc, Detail: "must be a string holding the meshConfig YAML, got " + strict.Describe(mc)}
	}
	docs, err := strict.ParseYAML([]byte(s), src.path)
	if err != nil {
		return nil, fielderr.In(src.path, err)
	}
	switch {
	case len(docs) > 1:
		return nil, &fielderr.Error{Field: src.path, Detail: fmt.Sprintf("holds %d YAML documents; the meshConfig is one", len(docs))}
	case len(docs) == 0:
		return nil, nil
	case docs[0].Err != nil:
		return nil, docs[0].Err
	}
	return docs[0].Value, nil
}

// Block returns the serviceEntryVisibility block of a document and its path: for a bare
// block the document itself (without the meshConfig fields written beside it, each of which
// is a problem: the file is a meshConfig with the block out of its place); for a meshConfig
// its serviceEntryVisibility, found false when absent or null ("not configured", as in
// Istio). It reports the keys of a meshConfig that would leave the feature off as written: a
// misspelt serviceEntryVisibility, a field of the block in meshConfig itself, a misspelt
// field of a bare block.
func Block(d Doc) (block any, path string, found bool, err error) {
	if d.Bare {
		o, ok := d.Value.(strict.Fields)
		if !ok {
			return d.Value, "", true, nil
		}
		var errs []error
		rest := make(strict.Fields, 0, len(o))
		for _, m := range o {
			if slices.ContainsFunc(meshFields, func(names []string) bool { return slices.Contains(names, m.Key) }) {
				errs = append(errs, &fielderr.Error{Field: m.Key, Detail: fmt.Sprintf("a field of meshConfig, not of serviceEntryVisibility: a file that holds both is a meshConfig, with the block under its name (meshConfig: {serviceEntryVisibility: {policies: …}, %s: …})", m.Key)})
				continue
			}
			rest = append(rest, m)
		}
		return rest, "", true, errors.Join(errs...)
	}
	mc := d.Value
	if mc == nil {
		return nil, "", false, nil
	}
	var dec strict.Decoder
	o, ok := dec.Object(mc, d.Path)
	if !ok {
		return nil, "", false, dec.Err()
	}
	for _, k := range mc.(strict.Fields).SortedKeys() {
		switch {
		case slices.Contains(BlockName, k):
		case looksLike(k, BlockName[0]):
			dec.Errorf(d.Path, "unknown field %q (did you mean %q? as written, the feature stays off)", k, BlockName[0])
		case slices.Contains(blockKeys, k):
			// The block's fields in meshConfig itself, which has none of them.
			dec.Errorf(d.Path, "unknown field %q: it is a field of serviceEntryVisibility (as written, the feature stays off)", k)
		default:
			// A misspelt field of a bare block, read as a meshConfig without the block.
			if s := strict.Suggest(k, blockKeys); s != "" {
				dec.Errorf(d.Path, "unknown field %q (did you mean %q, a field of serviceEntryVisibility? as written, the feature stays off)", k, s)
			}
		}
	}
	block, bp, ok := o.Get(BlockName...)
	if err := dec.Err(); err != nil {
		return nil, "", false, err
	}
	return block, bp, ok, nil
}

// NearMisses reports, into d, the keys of the object x (at path) that misspell one of the
// fields named: each a list of spellings, the first canonical. The object has other fields,
// which are not judged.
func NearMisses(d *strict.Decoder, x any, path string, fields ...[]string) {
	m, _ := x.(strict.Fields)
	for _, k := range m.SortedKeys() {
		for _, names := range fields {
			if !slices.Contains(names, k) && strict.Close(k, names[:1]) != "" && !slices.ContainsFunc(fields, func(n []string) bool { return slices.Contains(n, k) }) {
				d.Errorf(path, "unknown field %q (did you mean %q? as written, it is ignored)", k, names[0])
			}
		}
	}
}

// looksLike reports whether key is a plausible misspelling of want: equal but for case,
// separators, or up to three edits.
func looksLike(key, want string) bool {
	return strict.Suggest(key, []string{want}) != "" || strict.EditDistance(strings.ToLower(key), strings.ToLower(want)) <= 3
}
