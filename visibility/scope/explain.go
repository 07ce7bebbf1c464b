package scope

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Explanation says why a service has its scope (Scoper.Explain).
type Explanation struct {
	// Scope is the service's scope, as Scoper.Scope gives it.
	Scope mesh.Scope `json:"scope"`
	// NamespaceUnknown is set when the namespace's labels were nil: Istio skips every config
	// for a service whose namespace it does not know, so the service is LOCAL.
	NamespaceUnknown bool `json:"namespaceUnknown,omitempty"`
	// Config is the index in serviceScopeConfigs of the GLOBAL config that matched; -1 when
	// none did (or none was tried: there are none, or the namespace is not known).
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
	// Reason says all of this in a sentence, for people.
	Reason string `json:"reason"`
}

// DroppedDefault is one of Istio's default cluster-local hosts and the setting that dropped
// it: serviceSettings[Setting].hosts[Host].
type DroppedDefault struct {
	Default string `json:"default"`
	Setting int    `json:"setting"`
	Host    int    `json:"host"`
}

// Explain says, for the arguments of Scope, which config matched, and which host pattern —
// one of Istio's defaults or a setting — decided whether the host is cluster-local (or which
// setting dropped the default that would have). Its Scope is always Scope's.
func (s *Scoper) Explain(namespaceLabels, serviceLabels labels.Labels, host string) Explanation {
	if s == nil {
		s = &Scoper{local: newLocalHosts(nil, inventory.DefaultDomain, mesh.DefaultDiscoveryAddress)}
	}
	e := Explanation{Scope: mesh.Local, Config: -1, Setting: -1}
	p, ok := s.local.match(host)
	if ok {
		e.Pattern, e.ClusterLocal, e.Setting = p.pattern, p.local, p.setting
	}
	local := ""
	switch {
	case ok:
		local = fmt.Sprintf("%s is %s (%s)", host, clusterLocalWord(p.local), s.local.source(p))
	default:
		local = host + " is not cluster-local (no pattern matches)"
	}
	if d, dropped := s.local.dropped(host, p.pattern); dropped && !e.ClusterLocal {
		e.Dropped = &DroppedDefault{Default: d.pattern, Setting: d.setting, Host: d.host}
		local += fmt.Sprintf("; %s would make it cluster-local, but serviceSettings[%d] host %s (clusterLocal: false) dropped it",
			d.source(s.local.disc), d.setting, d.by)
	}
	e.NamespaceUnknown = !namespaceKnown(namespaceLabels)
	if s.off {
		e.Reason = "istiod runs with " + mesh.AmbientMultiNetwork + "=false: it applies no serviceScopeConfigs, so every service is LOCAL"
		return e
	}
	if len(s.configs) == 0 {
		e.Reason = "no serviceScopeConfigs: every service is LOCAL"
		return e
	}
	if e.NamespaceUnknown {
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
		e.Scope = mesh.Global
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
