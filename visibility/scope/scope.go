package visibility

import (
	"errors"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Scope says whether a Kubernetes Service is shared with the other clusters of a
// multicluster mesh (Global) or stays in its own cluster (Local).
type Scope string

// The scopes. The zero value "" means Local.
const (
	Local  Scope = "LOCAL"
	Global Scope = "GLOBAL"
)

// ScopeConfig is meshConfig.serviceScopeConfigs and meshConfig.serviceSettings: label
// selectors and host patterns that decide which Kubernetes Services a cluster shares with
// the other clusters of the mesh. ServiceEntries are not scoped.
//
// Istio reads serviceScopeConfigs only when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true
// (off by default); without it every service is LOCAL whatever the configuration says.
//
// json.Unmarshal decodes it as strictly as LoadScope reads it (see UnmarshalJSON); Domain and
// DiscoveryAddress are not part of its JSON.
type ScopeConfig struct {
	ServiceScopeConfigs []ServiceScope   `json:"serviceScopeConfigs,omitempty"`
	ServiceSettings     []ServiceSetting `json:"serviceSettings,omitempty"`
	// Domain is the cluster domain the default cluster-local hosts are under
	// (*.kube-system.svc.<domain>, kubernetes.default.svc.<domain>); "" means cluster.local.
	// It is not part of the mesh configuration.
	Domain string `json:"-"`
	// DiscoveryAddress is meshConfig.defaultConfig.discoveryAddress (host:port), whose host
	// Istio makes cluster-local; "" means Istio's default, istiod.istio-system.svc:15012.
	// LoadScope reads it from the same mesh configuration.
	DiscoveryAddress string `json:"-"`
}

// ServiceScope makes the services its selectors both match GLOBAL, when Scope is GLOBAL. An
// absent or empty selector matches everything. A LOCAL config never changes anything: LOCAL
// is the default, and it never overrides a GLOBAL match.
type ServiceScope struct {
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	ServicesSelector  *metav1.LabelSelector `json:"servicesSelector,omitempty"`
	Scope             Scope                 `json:"scope,omitempty"`
}

// ServiceSetting marks its Hosts cluster-local or not. A host is exact, or a wildcard: "*"
// then what the hosts it matches end with (*.shop.svc.cluster.local, *-canary.example.com,
// or "*" alone, every host). Hosts match exactly as written, without folding case or
// dropping a trailing dot, as in Istio.
type ServiceSetting struct {
	Settings ServiceSettingValues `json:"settings"`
	Hosts    []string             `json:"hosts,omitempty"`
}

// ServiceSettingValues are the settings of a ServiceSetting.
type ServiceSettingValues struct {
	ClusterLocal bool `json:"clusterLocal,omitempty"`
}

// Validate reports every problem in c, each with its path: invalid selectors, an unknown
// scope, hosts Istio refuses (a DNS name whose first label may be a wildcard label: "*", or
// "*" then label characters), a discovery address that is not host:port, and a domain that
// is not a DNS name. A nil ScopeConfig is valid.
func (c *ScopeConfig) Validate() error { return errors.Join(c.problems(nil)...) }

func (c *ScopeConfig) problems(root *field.Path) []error {
	if c == nil {
		return nil
	}
	var errs []error
	for i, s := range c.ServiceScopeConfigs {
		p := child(root, "serviceScopeConfigs").Index(i)
		if s.NamespaceSelector != nil {
			errs = append(errs, selectorProblems(s.NamespaceSelector, p.Child("namespaceSelector"))...)
		}
		if s.ServicesSelector != nil {
			errs = append(errs, selectorProblems(s.ServicesSelector, p.Child("servicesSelector"))...)
		}
		if s.Scope != "" && s.Scope != Local && s.Scope != Global {
			errs = append(errs, fromField(field.NotSupported(p.Child("scope"), string(s.Scope), []string{string(Local), string(Global)})))
		}
	}
	for i, s := range c.ServiceSettings {
		p := child(root, "serviceSettings").Index(i)
		for j, h := range s.Hosts {
			if r := patternProblem(h); r != "" {
				errs = append(errs, &FieldError{Field: p.Child("hosts").Index(j).String(), Value: h, Detail: strconv.Quote(h) + " " + r})
			}
		}
	}
	if a := c.DiscoveryAddress; a != "" {
		if r := discoveryProblem(a); r != "" {
			errs = append(errs, &FieldError{Field: "DiscoveryAddress", Value: a, Detail: strconv.Quote(a) + " " + r})
		}
	}
	if c.Domain != "" && domainProblem(c.Domain) != "" {
		errs = append(errs, &FieldError{Field: "Domain", Value: c.Domain, Detail: strconv.Quote(c.Domain) + " is not a DNS name"})
	}
	return errs
}

// pathOf turns a dotted path into a field path; nil for "".
func pathOf(path string) *field.Path {
	if path == "" {
		return nil
	}
	parts := strings.Split(path, ".")
	return field.NewPath(parts[0], parts[1:]...)
}

// Scoper decides the scope of Kubernetes Services. It is built by CompileScope, immutable
// and safe for concurrent use. CompileScope keeps nothing of the ScopeConfig, and what a
// Scoper returns is the caller's.
type Scoper struct {
	configs []compiledScope
	local   localHosts
	enabled bool
}

type compiledScope struct {
	ns, svc labels.Selector
	scope   Scope
	text    [2]string
}

// CompileScope validates c and compiles it. A nil c gives the Scoper that makes every
// service LOCAL.
func CompileScope(c *ScopeConfig) (*Scoper, error) {
	if c == nil {
		return &Scoper{}, nil
	}
	if errs := c.problems(nil); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s := &Scoper{enabled: true}
	for _, sc := range c.ServiceScopeConfigs {
		ns, err := selectorOf(sc.NamespaceSelector)
		if err != nil {
			return nil, err
		}
		svc, err := selectorOf(sc.ServicesSelector)
		if err != nil {
			return nil, err
		}
		s.configs = append(s.configs, compiledScope{ns: ns, svc: svc, scope: cmpScope(sc.Scope), text: [2]string{ns.String(), svc.String()}})
	}
	s.local = newLocalHosts(c.ServiceSettings, c.domain(), c.discovery())
	return s, nil
}

// domain returns the cluster domain, defaulted.
func (c *ScopeConfig) domain() string {
	if d := normalizeHost(c.Domain); d != "" {
		return d
	}
	return defaultDomain
}

// discovery returns the discovery address, defaulted.
func (c *ScopeConfig) discovery() string {
	if c.DiscoveryAddress != "" {
		return c.DiscoveryAddress
	}
	return defaultDiscoveryAddress
}

func cmpScope(s Scope) Scope {
	if s == Global {
		return Global
	}
	return Local
}

// selectorOf converts a selector; nil (absent) matches everything.
func selectorOf(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// Scope returns the scope of the Kubernetes Service with the given labels, in a namespace
// with the given labels, whose host is host: Global when some GLOBAL config's selectors both
// match and the host is not cluster-local; Local otherwise. Local wins: the host's most
// specific matching pattern (an exact host, else the longest matching wildcard; Istio's
// defaults included, see ScopeConfig) marking it cluster-local keeps it Local whatever the
// configs say.
//
// Nil namespaceLabels — a nil interface, or a nil labels.Set, as a lookup of a missing
// namespace gives — mean that the namespace is not known: the service is Local, as Istio
// skips every config for a service whose Namespace object it has not seen. A namespace
// without labels is labels.Set{}. Nil serviceLabels are an empty label set.
func (s *Scoper) Scope(namespaceLabels, serviceLabels labels.Labels, host string) Scope {
	if s == nil || !s.enabled || !namespaceKnown(namespaceLabels) {
		return Local
	}
	if s.global(namespaceLabels, serviceLabels) < 0 {
		return Local
	}
	if _, p, ok := s.local.match(host); ok && p.local {
		return Local
	}
	return Global
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
		svc = labels.Set{}
	}
	for i, c := range s.configs {
		if c.scope == Global && c.ns.Matches(ns) && c.svc.Matches(svc) {
			return i
		}
	}
	return -1
}
