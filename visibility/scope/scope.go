package scope

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// FieldError is the one structured error type of meshscope's packages: every error New
// returns is a *FieldError or several joined, each naming the field as the mesh
// configuration (mesh.Config.Validate) or the inventory (inventory.Inventory.Validate)
// spells it.
type FieldError = fielderr.Error

// Finding is one result of Lint, in the one shape every lint of meshscope reports:
// Path (the field it is about, as a meshConfig spells it: "serviceSettings[0].hosts[2]"),
// Code (one of the codes below), Level (the code's: note, warning or error) and Message.
// String renders it as a report line:
//
//	NOTE ScopeLocalConfig serviceScopeConfigs[0]: a LOCAL config changes nothing: LOCAL is the default and never overrides a GLOBAL match
type Finding = report.Finding

// Scoper decides the scope of Kubernetes Services: which ones a cluster shares with the
// other clusters of a multicluster mesh. It is built by New, immutable and safe for
// concurrent use. New keeps nothing of the mesh configuration and copies what it needs of
// the inventory, and what a Scoper returns is the caller's.
//
// A nil *Scoper is the Scoper of New(nil, nil): every service LOCAL, no services.
type Scoper struct {
	release  mesh.Release
	off      bool // istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=false: no config applies
	configs  []compiledScope
	local    localHosts
	services []Scoped  // the inventory's Kubernetes Services, by namespace and name
	findings []Finding // Lint's
}

type compiledScope struct {
	ns, svc labels.Selector
	scope   mesh.Scope
	text    [2]string // the selectors as strings, for explanations
}

// Scoped is a Kubernetes Service of a Scoper's inventory with its scope.
type Scoped struct {
	Service inventory.ServiceRef `json:"service"`
	// Host is the host the scope was decided for: <name>.<namespace>.svc.<cluster domain>,
	// as Istio names a Kubernetes Service.
	Host  string     `json:"host"`
	Scope mesh.Scope `json:"scope"`
	// Reason says why, as Explain says it; for a service whose namespace the inventory does
	// not have, it names the namespace.
	Reason string `json:"reason"`
}

// New validates m (m.Validate) and inv (inv.Validate), reporting every problem of both at
// once, and compiles the scope settings of m — serviceScopeConfigs, serviceSettings and
// defaultConfig.discoveryAddress — with the cluster domain of inv (inv.ClusterDomain), and
// decides the scope of each of inv's Kubernetes Services (see Services).
//
// A nil m is Istio's default mesh configuration: no serviceScopeConfigs, so every service
// is LOCAL. istiod applies serviceScopeConfigs only with AMBIENT_ENABLE_MULTI_NETWORK=true:
// when m's release sets the flag false (mesh.Config.PilotEnv, read from the install), every
// service is LOCAL; when it sets it true, or does not say, the Scoper answers what the
// configuration does once the flag is on (see the package documentation). A nil inv is an empty inventory in the domain cluster.local. A Kubernetes
// Service of inv whose Hosts name another host than the one Istio gives it,
// <name>.<namespace>.svc.<cluster domain>, is an error naming both: the scope would be
// decided for a host the cluster does not have.
func New(m *mesh.Config, inv *inventory.Inventory) (*Scoper, error) {
	errs := fielderr.Split(m.Validate())
	if err := inv.Validate(); err != nil {
		errs = append(errs, fielderr.Split(err)...)
	} else {
		errs = append(errs, hostProblems(inv)...) // of a valid inventory, so each problem once
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s := &Scoper{release: m.Release()}
	if on, set := s.release.FlagSet(mesh.AmbientMultiNetwork); set && !on {
		s.off = true
	}
	var settings []mesh.ServiceSetting
	if m != nil {
		for i, sc := range m.ServiceScopeConfigs {
			ns, err := selectorOf(sc.NamespaceSelector, i, "namespaceSelector")
			if err != nil {
				return nil, err
			}
			svc, err := selectorOf(sc.ServicesSelector, i, "servicesSelector")
			if err != nil {
				return nil, err
			}
			s.configs = append(s.configs, compiledScope{ns: ns, svc: svc, scope: cmpScope(sc.Scope), text: [2]string{ns.String(), svc.String()}})
		}
		settings = m.ServiceSettings
	}
	s.local = newLocalHosts(settings, inv.ClusterDomain(), m.Discovery())
	s.findings = s.lint(settings)
	s.services = s.scopeServices(inv)
	return s, nil
}

// hostProblems reports the Kubernetes Services of inv with a host other than the one Istio
// gives them.
func hostProblems(inv *inventory.Inventory) []error {
	if inv == nil {
		return nil
	}
	var errs []error
	domain := inv.ClusterDomain()
	for i := range inv.Services {
		svc := &inv.Services[i]
		if svc.Kind != inventory.KubernetesService || len(svc.Hosts) == 0 {
			continue
		}
		want := inventory.ServiceHost(svc.Name, svc.Namespace, domain)
		for j, h := range svc.Hosts {
			if hosts.Normalize(h) != hosts.Normalize(want) {
				problem := fielderr.Root(fielderr.GoValue).Child("hosts").Index(j).Problemf(h,
					"%s is not the host Istio gives the Service, %s (<name>.<namespace>.svc.<cluster domain>)", strconv.Quote(h), want)
				where := fmt.Sprintf("%s (%s %s/%s)", fielderr.Root(fielderr.GoValue).Child("services").Index(i), svc.Kind, svc.Namespace, svc.Name)
				errs = append(errs, fielderr.In(where, problem))
			}
		}
	}
	return errs
}

// scopeServices decides the scope of every Kubernetes Service of inv, sorted by namespace
// and name.
func (s *Scoper) scopeServices(inv *inventory.Inventory) []Scoped {
	if inv == nil {
		return nil
	}
	domain := inv.ClusterDomain()
	var out []Scoped
	for i := range inv.Services {
		svc := &inv.Services[i]
		if svc.Kind != inventory.KubernetesService {
			continue
		}
		host := inventory.ServiceHost(svc.Name, svc.Namespace, domain)
		e := s.Explain(namespaceLabels(inv, svc.Namespace), labels.Set(svc.Labels), host)
		if e.NamespaceUnknown && len(s.configs) > 0 {
			e.Reason = "namespace " + svc.Namespace + " is not in the inventory: Istio skips every serviceScopeConfig for a service whose namespace it does not know, so it is LOCAL"
		}
		out = append(out, Scoped{Service: svc.Ref(), Host: host, Scope: e.Scope, Reason: e.Reason})
	}
	slices.SortFunc(out, func(a, b Scoped) int { return compareRefs(a.Service, b.Service) })
	return out
}

// compareRefs orders Kubernetes Services by namespace, then name.
func compareRefs(a, b inventory.ServiceRef) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// namespaceLabels returns the labels of namespace ns in inv for Scoper.Scope: nil when the
// inventory has no such namespace (not known), else its labels (an empty set for a namespace
// without any).
func namespaceLabels(inv *inventory.Inventory, ns string) labels.Labels {
	l, ok := inv.Namespaces[ns]
	switch {
	case !ok:
		return nil
	case l == nil:
		return labels.Set{}
	}
	return labels.Set(l)
}

func cmpScope(s mesh.Scope) mesh.Scope {
	if s == mesh.Global {
		return mesh.Global
	}
	return mesh.Local
}

// selectorOf converts a selector of serviceScopeConfigs[i]; nil (absent) matches
// everything.
func selectorOf(ls *metav1.LabelSelector, i int, name string) (labels.Selector, error) {
	if ls == nil {
		return labels.Everything(), nil
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil { // mesh.Config.Validate refuses such a selector first: not expected; report, don't panic
		return nil, fielderr.Root(fielderr.Object).Child("serviceScopeConfigs").Index(i).Child(name).Problem(nil, err.Error())
	}
	return s, nil
}

// Services returns every Kubernetes Service of the Scoper's inventory with its scope,
// sorted by namespace and name: GLOBAL for those the cluster shares with the other
// clusters, LOCAL for the rest (ServiceEntries are not scoped). A service whose namespace
// the inventory does not have is LOCAL, as Istio skips every config for it (see Scope). The
// caller owns the slice.
func (s *Scoper) Services() []Scoped {
	if s == nil {
		return nil
	}
	return slices.Clone(s.services)
}

// Scope returns the scope of the Kubernetes Service with the given labels, in a namespace
// with the given labels, whose host is host: GLOBAL when some GLOBAL config's selectors both
// match and the host is not cluster-local; LOCAL otherwise. Local wins: the host's most
// specific matching pattern (an exact host, else the longest matching wildcard; Istio's
// defaults included, see the package documentation) marking it cluster-local keeps it
// LOCAL whatever the configs say. Scope does not allocate.
//
// Nil namespaceLabels — a nil interface, or a nil labels.Set, as a lookup of a missing
// namespace gives — mean that the namespace is not known: the service is LOCAL, as Istio
// skips every config for a service whose Namespace object it has not seen. A namespace
// without labels is labels.Set{}. Nil serviceLabels are an empty label set.
func (s *Scoper) Scope(namespaceLabels, serviceLabels labels.Labels, host string) mesh.Scope {
	if s == nil || s.off || len(s.configs) == 0 || !namespaceKnown(namespaceLabels) {
		return mesh.Local
	}
	if s.global(namespaceLabels, serviceLabels) < 0 {
		return mesh.Local
	}
	if p, ok := s.local.match(host); ok && p.local {
		return mesh.Local
	}
	return mesh.Global
}

// namespaceKnown reports whether l stands for a namespace's labels rather than for a
// namespace that is not known (nil, or a nil labels.Set).
func namespaceKnown(l labels.Labels) bool {
	if l == nil {
		return false
	}
	set, isSet := l.(labels.Set)
	return !isSet || set != nil
}

// global returns the index of the first GLOBAL config matching both label sets, or -1.
func (s *Scoper) global(ns, svc labels.Labels) int {
	if svc == nil {
		svc = labels.Set(nil) // an empty set, without allocating
	}
	for i, c := range s.configs {
		if c.scope == mesh.Global && c.ns.Matches(ns) && c.svc.Matches(svc) {
			return i
		}
	}
	return -1
}

// Release returns the release the Scoper answers for (mesh.Config.Release of its mesh
// configuration), with AMBIENT_ENABLE_MULTI_NETWORK when the configuration sets it: what an
// output names on its first line.
func (s *Scoper) Release() mesh.Release {
	if s == nil {
		return mesh.Release{}
	}
	return s.release
}
