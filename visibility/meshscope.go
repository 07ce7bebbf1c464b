package visibility

import (
	"errors"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// defaultRootNamespace is the mesh's root namespace when the configuration names none: the
// namespace whose namespace-wide Sidecar is every other namespace's default.
const defaultRootNamespace = "istio-system"

// MeshScope is the mesh configuration that decides a sidecar's view besides
// serviceEntryVisibility: meshConfig.rootNamespace, meshConfig.defaultServiceExportTo and
// meshConfig.discoverySelectors. The zero MeshScope (and a nil *MeshScope) is Istio's
// default: root namespace istio-system, services exported to every namespace, every
// namespace discovered.
type MeshScope struct {
	// RootNamespace is where the mesh-wide default Sidecar lives; "" means istio-system.
	RootNamespace string `json:"rootNamespace,omitempty"`
	// DefaultServiceExportTo is the exportTo of every service that declares none; nil means
	// ["*"]. It has the form of a ServiceEntry's exportTo.
	DefaultServiceExportTo []string `json:"defaultServiceExportTo,omitempty"`
	// DiscoverySelectors, when there are any, limit what istiod sees to the namespaces whose
	// labels match one of them: the Services, ServiceEntries and Sidecars of every other
	// namespace do not exist for it — the root namespace's included. An empty selector {}
	// matches every namespace; a namespace without a Namespace object matches none.
	DiscoverySelectors []metav1.LabelSelector `json:"discoverySelectors,omitempty"`
}

// The field names, camelCase first, then the snake_case spelling protobuf also accepts.
var (
	rootNamespaceName  = []string{"rootNamespace", "root_namespace"}
	defaultExportName  = []string{"defaultServiceExportTo", "default_service_export_to"}
	discoverySelectors = []string{"discoverySelectors", "discovery_selectors"}
)

// LoadMeshScope reads the mesh scope from every shape LoadConfig reads (an IstioOperator,
// the istio ConfigMap, Helm values, a meshConfig; alone, in a List or a stream), as strictly:
// a key given twice, a misspelt rootNamespace, defaultServiceExportTo or discoverySelectors
// (as written, the field would be ignored), an unknown field in a selector, a value of the
// wrong type, an invalid exportTo or selector is an error naming its path. A mesh
// configuration that sets none of the three fields gives the defaults (the zero
// MeshScope); input holding no mesh configuration at all is an error, and so are two places
// that set them.
func LoadMeshScope(data []byte) (*MeshScope, error) {
	m, err := loadOne(data, "mesh scope (rootNamespace, defaultServiceExportTo, discoverySelectors)", func(d meshDoc) (*MeshScope, string, error) {
		if d.bare || d.value == nil {
			return nil, "", nil // a bare serviceEntryVisibility block sets none of them
		}
		return meshScopeFrom(d.value, d.path)
	})
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = &MeshScope{}
	}
	return m, nil
}

// meshScopeFrom extracts the mesh scope from a meshConfig object at path; nil when it sets
// none of the fields.
func meshScopeFrom(mc any, path string) (*MeshScope, string, error) {
	var d strict.Decoder
	o, ok := d.Object(mc, path)
	if !ok {
		return nil, "", d.Err()
	}
	all := slices.Concat(rootNamespaceName, defaultExportName, discoverySelectors)
	for _, k := range sortedFieldNames(mc) {
		if slices.Contains(all, k) {
			continue
		}
		if c := strict.Close(k, []string{rootNamespaceName[0], defaultExportName[0], discoverySelectors[0]}); c != "" {
			d.Errorf(path, "unknown field %q (did you mean %q? as written, it is ignored)", k, c)
		}
	}
	m, found := decodeMeshScopeFields(&d, o)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	if !found {
		return nil, "", nil
	}
	if errs := m.problems(path); len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	return m, strict.Display(path), nil
}

// decodeMeshScopeFields reads the three fields of o; found says whether any is set.
func decodeMeshScopeFields(d *strict.Decoder, o strict.Object) (*MeshScope, bool) {
	m := &MeshScope{}
	found := false
	if v, p, ok := o.Get(rootNamespaceName...); ok {
		found, m.RootNamespace = true, d.String(v, p)
	}
	if v, p, ok := o.Get(defaultExportName...); ok {
		found, m.DefaultServiceExportTo = true, d.Strings(v, p)
	}
	if v, p, ok := o.Get(discoverySelectors...); ok {
		found = true
		for i, item := range d.List(v, p) {
			at := strict.Index(p, i)
			if item == nil {
				d.Errorf(at, "a discovery selector may not be null")
				continue
			}
			if s := decodeSelector(d, item, at); s != nil {
				m.DiscoverySelectors = append(m.DiscoverySelectors, *s)
			}
		}
	}
	return m, found
}

// UnmarshalJSON decodes a MeshScope strictly, in camelCase or snake_case: an unknown field
// (with a "did you mean" hint), a field given twice, a value of the wrong type is an error
// naming its path. It does not validate; see Validate.
func (m *MeshScope) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, func(d *strict.Decoder, x any, path string) *MeshScope {
		o, ok := d.Object(x, path)
		if !ok {
			return &MeshScope{}
		}
		o.Check(slices.Concat(rootNamespaceName, defaultExportName, discoverySelectors)...)
		m, _ := decodeMeshScopeFields(d, o)
		return m
	})
	if err != nil {
		return err
	}
	*m = *got
	return nil
}

// Validate reports every problem in m, each with its path: a root namespace that is not a
// namespace name, an invalid defaultServiceExportTo (the form of a ServiceEntry's exportTo),
// an invalid discovery selector. A nil MeshScope is valid.
func (m *MeshScope) Validate() error { return errors.Join(m.problems("")...) }

func (m *MeshScope) problems(path string) []error {
	if m == nil {
		return nil
	}
	var errs []error
	if m.RootNamespace != "" {
		if r := names.Label(m.RootNamespace); r != "" {
			errs = append(errs, problem("", strict.Child(path, "rootNamespace"), m.RootNamespace, "%q %s", m.RootNamespace, r))
		}
	}
	for _, e := range checkExportTo(nil, strict.Child(path, "defaultServiceExportTo"), "", m.DefaultServiceExportTo, meshList) {
		errs = append(errs, e)
	}
	for i := range m.DiscoverySelectors {
		errs = append(errs, selectorProblems(&m.DiscoverySelectors[i], pathOf(strict.Index(strict.Child(path, "discoverySelectors"), i)))...)
	}
	return errs
}

// rootNamespace is the root namespace, istio-system when unset.
func (m *MeshScope) rootNamespace() string {
	if m == nil || m.RootNamespace == "" {
		return defaultRootNamespace
	}
	return m.RootNamespace
}

// discovery decides which namespaces istiod discovers.
type discovery struct {
	selectors []labels.Selector // none: every namespace
}

func (m *MeshScope) discovery() discovery {
	if m == nil || len(m.DiscoverySelectors) == 0 {
		return discovery{}
	}
	var d discovery
	for i := range m.DiscoverySelectors {
		s, err := metav1.LabelSelectorAsSelector(&m.DiscoverySelectors[i])
		if err != nil {
			continue // Validate refused it
		}
		d.selectors = append(d.selectors, s)
	}
	return d
}

// discovered reports whether a namespace with these labels (nil: no Namespace object) is
// discovered.
func (d discovery) discovered(nsLabels map[string]string, known bool) bool {
	if len(d.selectors) == 0 {
		return true
	}
	if !known {
		return false
	}
	for _, s := range d.selectors {
		if s.Matches(labels.Set(nsLabels)) {
			return true
		}
	}
	return false
}
