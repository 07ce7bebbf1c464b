package visibility

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/report"
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
type ScopeConfig struct {
	ServiceScopeConfigs []ServiceScope   `json:"serviceScopeConfigs,omitempty"`
	ServiceSettings     []ServiceSetting `json:"serviceSettings,omitempty"`
	// Domain is the cluster domain the default cluster-local hosts are under
	// (*.kube-system.svc.<domain>, kubernetes.default.svc.<domain>); "" means cluster.local.
	// It is not part of the mesh configuration.
	Domain string `json:"-"`
}

// ServiceScope makes the services its selectors both match GLOBAL, when Scope is GLOBAL. An
// absent or empty selector matches everything. A LOCAL config never changes anything: LOCAL
// is the default, and it never overrides a GLOBAL match.
type ServiceScope struct {
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	ServicesSelector  *metav1.LabelSelector `json:"servicesSelector,omitempty"`
	Scope             Scope                 `json:"scope,omitempty"`
}

// ServiceSetting marks its Hosts (exact, or "*."-prefixed) cluster-local or not.
type ServiceSetting struct {
	Settings ServiceSettingValues `json:"settings"`
	Hosts    []string             `json:"hosts,omitempty"`
}

// ServiceSettingValues are the settings of a ServiceSetting.
type ServiceSettingValues struct {
	ClusterLocal bool `json:"clusterLocal,omitempty"`
}

// Validate reports every problem in c, each with its path: invalid selectors and hosts that
// are not DNS names (optionally starting with "*."). A nil ScopeConfig is valid.
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
			if r := hostProblem(h); r != "" {
				errs = append(errs, &FieldError{Field: p.Child("hosts").Index(j).String(), Value: h, Detail: strconv.Quote(h) + " " + r})
			}
		}
	}
	if c.Domain != "" && (hostProblem(c.Domain) != "" || strings.HasPrefix(c.Domain, "*.")) {
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
	// patterns maps each host pattern to whether it is cluster-local, the later setting of
	// a pattern given twice winning, defaults included.
	patterns map[string]patternSetting
	enabled  bool
}

type compiledScope struct {
	ns, svc labels.Selector
	scope   Scope
	text    [2]string
}

type patternSetting struct {
	local   bool
	setting int // index in serviceSettings; -1 for a default
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
	s := &Scoper{enabled: true, patterns: map[string]patternSetting{}}
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
	for i, st := range c.ServiceSettings {
		for _, h := range st.Hosts {
			s.patterns[normalizeHost(h)] = patternSetting{st.Settings.ClusterLocal, i}
		}
	}
	domain := normalizeHost(c.Domain)
	if domain == "" {
		domain = defaultDomain
	}
	for _, d := range []string{"*.kube-system.svc." + domain, "kubernetes.default.svc." + domain} {
		if !s.openedUp(d) {
			if _, set := s.patterns[d]; !set {
				s.patterns[d] = patternSetting{true, -1}
			}
		}
	}
	return s, nil
}

// openedUp reports whether a clusterLocal: false setting names the default pattern d or a
// host under it, which keeps Istio from adding the default.
func (s *Scoper) openedUp(d string) bool {
	under := strings.TrimPrefix(d, "*.")
	for p, st := range s.patterns {
		if st.local {
			continue
		}
		if p == d || p == under || strings.HasSuffix(p, "."+under) {
			return true
		}
	}
	return false
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
// specific matching pattern (an exact host, else the longest matching wildcard) marking it
// cluster-local keeps it Local whatever the configs say. Nil labels are empty label sets.
func (s *Scoper) Scope(namespaceLabels, serviceLabels labels.Labels, host string) Scope {
	if s == nil || !s.enabled {
		return Local
	}
	if s.global(namespaceLabels, serviceLabels) < 0 {
		return Local
	}
	if local, _ := s.clusterLocal(host); local {
		return Local
	}
	return Global
}

// global returns the index of the first GLOBAL config matching both label sets, or -1.
func (s *Scoper) global(ns, svc labels.Labels) int {
	if ns == nil {
		ns = labels.Set{}
	}
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

// clusterLocal returns whether host is cluster-local and the pattern that says so ("" when
// no pattern matches).
func (s *Scoper) clusterLocal(host string) (bool, string) {
	h := normalizeHost(host)
	if st, ok := s.patterns[h]; ok {
		return st.local, h
	}
	for i := 0; i < len(h); i++ {
		if h[i] == '.' {
			if st, ok := s.patterns["*."+h[i+1:]]; ok {
				return st.local, "*." + h[i+1:]
			}
		}
	}
	return false, ""
}

// ScopeExplanation says why a service has its scope.
type ScopeExplanation struct {
	Scope Scope `json:"scope"`
	// Config is the index of the GLOBAL config that matched; -1 when none did.
	Config int `json:"config"`
	// Pattern is the host pattern that decided cluster-locality, and ClusterLocal its
	// setting; Pattern is "" when none matches (not cluster-local).
	Pattern      string `json:"pattern,omitempty"`
	ClusterLocal bool   `json:"clusterLocal"`
	Reason       string `json:"reason"`
}

// Explain says which config matched and which host pattern made the service local.
func (s *Scoper) Explain(namespaceLabels, serviceLabels labels.Labels, host string) ScopeExplanation {
	e := ScopeExplanation{Scope: Local, Config: -1}
	if s == nil || !s.enabled {
		e.Reason = "no serviceScopeConfigs: every service is LOCAL"
		return e
	}
	e.Config = s.global(namespaceLabels, serviceLabels)
	e.ClusterLocal, e.Pattern = s.clusterLocal(host)
	switch {
	case e.Config < 0:
		e.Reason = "no GLOBAL config matches both the namespace's and the service's labels: LOCAL by default"
	case e.ClusterLocal:
		e.Reason = fmt.Sprintf("serviceScopeConfigs[%d] makes it GLOBAL, but %s is cluster-local (%s), and local wins", e.Config, normalizeHost(host), s.patternSource(e.Pattern))
	default:
		e.Scope = Global
		e.Reason = fmt.Sprintf("serviceScopeConfigs[%d] (namespaces %s, services %s) makes it GLOBAL", e.Config, orAll(s.configs[e.Config].text[0]), orAll(s.configs[e.Config].text[1]))
		if e.Pattern != "" {
			e.Reason += fmt.Sprintf("; %s is not cluster-local (%s)", e.Pattern, s.patternSource(e.Pattern))
		}
	}
	return e
}

func (s *Scoper) patternSource(p string) string {
	st := s.patterns[p]
	if st.setting < 0 {
		return "Istio's default for " + p
	}
	return fmt.Sprintf("serviceSettings[%d] host %s", st.setting, p)
}

func orAll(sel string) string {
	if sel == "" {
		return "all"
	}
	return sel
}

// LintScope reports the parts of c that can never change a scope: configs whose selectors
// contradict themselves, LOCAL configs, and settings overridden by a later setting of the
// same host pattern (codes ScopeNeverMatches, ScopeLocalConfig, ScopeSettingOverridden); in
// configuration order. A nil c has no findings.
func LintScope(c *ScopeConfig) []Finding {
	if c == nil {
		return nil
	}
	var out []Finding
	for i, sc := range c.ServiceScopeConfigs {
		p := fmt.Sprintf("serviceScopeConfigs[%d]", i)
		if cmpScope(sc.Scope) == Local {
			out = append(out, report.New(p, ScopeLocalConfig, "a LOCAL config changes nothing: LOCAL is the default and never overrides a GLOBAL match"))
			continue
		}
		for _, sel := range []struct {
			name string
			ls   *metav1.LabelSelector
		}{{"namespaceSelector", sc.NamespaceSelector}, {"servicesSelector", sc.ServicesSelector}} {
			compiled, err := selectorOf(sel.ls)
			if err == nil && contradicts(selectorReqs(compiled)) {
				out = append(out, report.New(p+"."+sel.name, ScopeNeverMatches, "its requirements contradict each other: the config never matches"))
			}
		}
	}
	last := map[string]int{}
	for i, st := range c.ServiceSettings {
		for _, h := range st.Hosts {
			last[normalizeHost(h)] = i
		}
	}
	for i, st := range c.ServiceSettings {
		for j, h := range st.Hosts {
			if k := last[normalizeHost(h)]; k != i {
				out = append(out, report.New(fmt.Sprintf("serviceSettings[%d].hosts[%d]", i, j), ScopeSettingOverridden,
					"%s is given again by serviceSettings[%d], which wins", h, k))
			}
		}
	}
	return out
}

// ScopeChange is a Kubernetes Service (Key) whose scope changes from Before to After.
type ScopeChange = Change[ServiceRef, Scope, struct{}]

// DiffScope compares two scope configurations over an inventory: every Kubernetes Service
// that becomes shared with the other clusters, or stops being shared, sorted by namespace
// and name. Either Scoper may be nil (every service LOCAL).
func DiffScope(before, after *Scoper, inv Inventory) []ScopeChange {
	var out []ScopeChange
	for _, s := range inv.Services {
		if s.Kind != KubernetesService || len(s.Hosts) == 0 {
			continue
		}
		ns, svc := labels.Set(inv.Namespaces[s.Namespace]), labels.Set(s.Labels)
		b, a := before.Scope(ns, svc, s.Hosts[0]), after.Scope(ns, svc, s.Hosts[0])
		if b != a {
			out = append(out, ScopeChange{Key: s.Ref(), Before: b, After: a})
		}
	}
	slices.SortFunc(out, func(x, y ScopeChange) int {
		return cmp.Or(strings.Compare(x.Key.Namespace, y.Key.Namespace), strings.Compare(x.Key.Name, y.Key.Name))
	})
	return out
}
