package visibility

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/report"
)

// ScopeExplanation says why a service has its scope.
type ScopeExplanation struct {
	Scope Scope `json:"scope"`
	// NamespaceUnknown is set when the namespace's labels were nil: Istio skips every config
	// for a service whose namespace it does not know, so the service is LOCAL.
	NamespaceUnknown bool `json:"namespaceUnknown,omitempty"`
	// Config is the index of the GLOBAL config that matched; -1 when none did (or none was
	// tried, for an unknown namespace).
	Config int `json:"config"`
	// Pattern is the host pattern that decided cluster-locality and ClusterLocal its
	// setting; Pattern is "" when none matches (not cluster-local). Setting is the index in
	// serviceSettings of the setting that gave Pattern its value; -1 when Pattern is one of
	// Istio's defaults, or "".
	Pattern      string `json:"pattern,omitempty"`
	Setting      int    `json:"setting"`
	ClusterLocal bool   `json:"clusterLocal"`
	// Dropped is the Istio default that would have made the host cluster-local, had a
	// clusterLocal: false setting not dropped it; nil when none would have.
	Dropped *DroppedDefault `json:"dropped,omitempty"`
	Reason  string          `json:"reason"`
}

// DroppedDefault is one of Istio's default cluster-local hosts and the setting that dropped
// it: serviceSettings[Setting].hosts[Host].
type DroppedDefault struct {
	Default string `json:"default"`
	Setting int    `json:"setting"`
	Host    int    `json:"host"`
}

// Explain says which config matched, and which host pattern — one of Istio's defaults or a
// setting — decided whether the host is cluster-local (or which setting dropped the default
// that would have). Its Scope is always Scope's.
func (s *Scoper) Explain(namespaceLabels, serviceLabels labels.Labels, host string) ScopeExplanation {
	e := ScopeExplanation{Scope: Local, Config: -1, Setting: -1}
	if s == nil || !s.enabled {
		e.Reason = "no serviceScopeConfigs: every service is LOCAL"
		return e
	}
	pattern, p, ok := s.local.match(host)
	if ok {
		e.Pattern, e.ClusterLocal, e.Setting = pattern, p.local, p.setting
	}
	local := ""
	switch {
	case ok:
		local = fmt.Sprintf("%s is %s (%s)", host, clusterLocalWord(p.local), s.local.source(pattern, p))
	default:
		local = host + " is not cluster-local (no pattern matches)"
	}
	if d, dropped := s.local.dropped(host, pattern); dropped && !e.ClusterLocal {
		e.Dropped = &DroppedDefault{Default: d.pattern, Setting: d.setting, Host: d.host}
		local += fmt.Sprintf("; %s would make it cluster-local, but serviceSettings[%d] host %s (clusterLocal: false) dropped it",
			d.source(s.local.disc), d.setting, d.by)
	}
	if !namespaceKnown(namespaceLabels) {
		e.NamespaceUnknown = true
		e.Reason = "the namespace is not known (no labels): Istio skips every serviceScopeConfig for a service whose namespace it has not seen, so it is LOCAL"
		return e
	}
	e.Config = s.global(namespaceLabels, serviceLabels)
	switch {
	case e.Config < 0:
		e.Reason = "no GLOBAL config matches both the namespace's and the service's labels: LOCAL by default"
	case e.ClusterLocal:
		e.Reason = fmt.Sprintf("serviceScopeConfigs[%d] makes it GLOBAL, but %s, and local wins", e.Config, local)
	default:
		e.Scope = Global
		e.Reason = fmt.Sprintf("serviceScopeConfigs[%d] (namespaces %s, services %s) makes it GLOBAL", e.Config, orAll(s.configs[e.Config].text[0]), orAll(s.configs[e.Config].text[1]))
		if e.Pattern != "" || e.Dropped != nil {
			e.Reason += "; " + local
		}
	}
	return e
}

func clusterLocalWord(local bool) string {
	if local {
		return "cluster-local"
	}
	return "not cluster-local"
}

func orAll(sel string) string {
	if sel == "" {
		return "all"
	}
	return sel
}

// LintScope reports the parts of c that cannot do what they seem to, in configuration
// order:
//
//   - ScopeLocalConfig: a LOCAL config, which never changes a scope;
//   - ScopeNeverMatches: a config whose selector's requirements contradict each other;
//   - ScopeSettingOverridden: a host pattern given again by a later setting, which wins;
//   - ScopeHostNeverMatches: a setting host (or the discovery address's) with an upper-case
//     letter or a trailing dot, which no Kubernetes Service's host matches;
//   - ScopeDefaultKept: a clusterLocal: false setting that looks as if it opened up one of
//     Istio's defaults without dropping it (the bare parent kube-system.svc.<domain>, a
//     wildcard covering a default, a default in another letter case, with a trailing dot or
//     without the cluster domain);
//   - ScopeDefaultDropped: a clusterLocal: false on one host under *.kube-system.svc.<domain>,
//     which drops that default for every host under it;
//   - ScopeDefaultStaysDropped: a clusterLocal: true under a default an earlier setting
//     dropped, which marks only its own hosts and does not bring the default back.
//
// A nil c has no findings.
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
	l := newLocalHosts(c.ServiceSettings, c.domain(), c.discovery())
	last := map[string]int{}
	for i, st := range c.ServiceSettings {
		for _, h := range st.Hosts {
			last[h] = i
		}
	}
	for i, st := range c.ServiceSettings {
		for j, h := range st.Hosts {
			at := fmt.Sprintf("serviceSettings[%d].hosts[%d]", i, j)
			if k := last[h]; k != i {
				out = append(out, report.New(at, ScopeSettingOverridden, "%s is given again by serviceSettings[%d], which wins", h, k))
			}
			if r := neverMatches(h); r != "" {
				out = append(out, report.New(at, ScopeHostNeverMatches, "%s %s: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service", h, r))
			}
			out = append(out, l.lintDefaults(at, i, j, h, st.Settings.ClusterLocal)...)
		}
	}
	if d := l.defaults[discoveryDefault]; d.setting < 0 {
		if r := neverMatches(d.pattern); r != "" {
			out = append(out, report.New("defaultConfig.discoveryAddress", ScopeHostNeverMatches,
				"%s makes %s cluster-local, which %s: hosts match exactly as written, so it matches no Kubernetes Service (istiod is shared like any other service)", l.disc, d.pattern, r))
		}
	}
	return out
}

// neverMatches says why a host pattern matches no Kubernetes Service host: an upper-case
// letter or a trailing dot; "" when it may match.
func neverMatches(h string) string {
	switch {
	case strings.HasSuffix(h, "."):
		return "ends with a dot"
	case strings.ToLower(h) != h:
		return "has an upper-case letter"
	}
	return ""
}

// nearDefault says how host h misses the default pattern it seems meant for — by letter
// case, a trailing dot, or leaving out the cluster domain — or "" when it does not.
func nearDefault(h, pattern, domain string) string {
	meant := func(x string) bool {
		if strings.HasPrefix(pattern, "*.") {
			return x == pattern || strings.HasSuffix(x, pattern[1:])
		}
		return x == pattern
	}
	if meant(h) {
		return ""
	}
	var why []string
	x := h
	if t := strings.TrimSuffix(x, "."); t != x {
		x, why = t, append(why, "ends with a dot")
	}
	if l := strings.ToLower(x); l != x {
		x, why = l, append(why, "has upper-case letters")
	}
	if !meant(x) && domain != "" && meant(x+"."+domain) {
		x, why = x+"."+domain, append(why, "leaves out the cluster domain ."+domain)
	}
	if !meant(x) {
		return ""
	}
	return strings.Join(why, " and ")
}

// lintDefaults reports what setting i's host j, h, does to Istio's defaults that it does not
// seem to (see LintScope).
func (l *localHosts) lintDefaults(at string, i, j int, h string, local bool) []Finding {
	var out []Finding
	var kept []string
	for _, d := range l.defaults {
		switch {
		case !local && d.setting == i && d.host == j && d.wildcard() && h != d.pattern:
			out = append(out, report.New(at, ScopeDefaultDropped,
				"clusterLocal: false on %s drops %s for every host under it, not only for this one: no host ending in %s is cluster-local by default any more",
				h, d.source(l.disc), d.pattern[1:]))
		case !local && d.setting < 0 && (h == strings.TrimPrefix(d.pattern, "*.") && d.wildcard() || covers(h, d.pattern)):
			kept = append(kept, d.pattern)
		case local && d.setting >= 0 && d.setting < i && d.wildcard() && h != d.pattern && d.droppedBy(h):
			out = append(out, report.New(at, ScopeDefaultStaysDropped,
				"%s is cluster-local again, but serviceSettings[%d] host %s dropped %s, which stays dropped: the other hosts ending in %s are not cluster-local",
				h, d.setting, d.by, d.source(l.disc), d.pattern[1:]))
		}
	}
	if !local {
		for _, d := range l.defaults {
			if why := nearDefault(h, d.pattern, l.domain); d.setting < 0 && why != "" {
				out = append(out, report.New(at, ScopeDefaultKept,
					"clusterLocal: false on %s does not drop %s: it %s, and Istio compares hosts as written, so the default stays cluster-local",
					h, d.source(l.disc), why))
			}
		}
	}
	if len(kept) > 0 {
		out = append(out, report.New(at, ScopeDefaultKept,
			"clusterLocal: false on %s does not drop Istio's default %s: only a host equal to an exact default, or ending in what follows a wildcard default's *, drops it, so it stays cluster-local",
			h, strings.Join(kept, ", ")))
	}
	return out
}

// ScopeChange is a Kubernetes Service (Key) whose scope changes from Before to After.
type ScopeChange = Change[ServiceRef, Scope, struct{}]

// DiffScope compares two scope configurations over an inventory: every Kubernetes Service
// that becomes shared with the other clusters, or stops being shared, sorted by namespace
// and name. Either Scoper may be nil (every service LOCAL). A service whose namespace the
// inventory does not have is LOCAL under both, as in Istio (see Scoper.Scope).
func DiffScope(before, after *Scoper, inv Inventory) []ScopeChange {
	var out []ScopeChange
	for _, s := range inv.Services {
		if s.Kind != KubernetesService || len(s.Hosts) == 0 {
			continue
		}
		ns, svc := namespaceLabels(inv, s.Namespace), labels.Set(s.Labels)
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

// namespaceLabels returns the labels of namespace ns in inv for Scoper.Scope: nil when the
// inventory has no such namespace (not known), else its labels (an empty set for a namespace
// without any).
func namespaceLabels(inv Inventory, ns string) labels.Labels {
	l, ok := inv.Namespaces[ns]
	switch {
	case !ok:
		return nil
	case l == nil:
		return labels.Set{}
	}
	return labels.Set(l)
}
