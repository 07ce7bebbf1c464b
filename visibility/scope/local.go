package scope

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Cluster-local hosts, as Istio computes them from meshConfig.serviceSettings.
//
// A setting marks its hosts cluster-local (clusterLocal: true) or not. A host pattern is an
// exact host or a wildcard: "*" followed by what every matching host ends with
// (*.shop.svc.cluster.local, *-canary.shop.svc.cluster.local, or * alone). Patterns match
// exactly as written: Istio folds no case and keeps a trailing dot, so
// Web.Shop.svc.cluster.local matches no Kubernetes Service (whose host is lower case). For a
// service's host the exact pattern decides, else the longest matching wildcard, and for a
// pattern given twice the later setting wins.
//
// Istio adds three defaults, each cluster-local: *.kube-system.svc.<domain>,
// kubernetes.default.svc.<domain>, and the host of defaultConfig.discoveryAddress (by default
// istiod.istio-system.svc:15012, so istiod.istio-system.svc.<domain>; .<domain> is appended
// when the host does not already end with <domain>). While it reads the settings in order, a
// clusterLocal: false setting drops a default when one of its hosts equals an exact default,
// or, for the wildcard default *.X, ends with .X — so kube-system.svc.<domain> (the bare
// parent) drops nothing, while a.kube-system.svc.<domain> drops the whole wildcard. A dropped
// default stays dropped, even when a later setting marks one of its hosts cluster-local
// again. The defaults that remain are put in after every setting, over a setting of exactly
// the same pattern.

// The kinds of Istio's default cluster-local hosts.
const (
	kubeSystemDefault = iota // *.kube-system.svc.<domain>
	kubernetesDefault        // kubernetes.default.svc.<domain>
	discoveryDefault         // the host of defaultConfig.discoveryAddress
)

// clusterDefault is one of Istio's default cluster-local hosts, and which setting dropped
// it (setting -1: kept).
type clusterDefault struct {
	pattern       string
	kind          int
	setting, host int    // the serviceSettings entry, and its host, that dropped it
	by            string // that host
}

// wildcard reports whether the default is a wildcard pattern.
func (d clusterDefault) wildcard() bool { return strings.HasPrefix(d.pattern, "*") }

// droppedBy reports whether a clusterLocal: false setting of host h drops the default: h is
// the default itself, or, for a wildcard default, h ends with what follows its "*".
func (d clusterDefault) droppedBy(h string) bool {
	return h == d.pattern || d.wildcard() && strings.HasSuffix(h, d.pattern[1:])
}

// source names the default, for explanations and findings.
func (d clusterDefault) source(discovery string) string {
	if d.kind == discoveryDefault {
		return fmt.Sprintf("Istio's default %s (the host of defaultConfig.discoveryAddress %s)", d.pattern, discovery)
	}
	return "Istio's default " + d.pattern
}

// clusterDefaults returns Istio's default cluster-local hosts for a cluster domain and a
// discovery address (host:port, already checked), none dropped.
func clusterDefaults(domain, discovery string) []clusterDefault {
	host, _, _ := net.SplitHostPort(discovery)
	if !strings.HasSuffix(host, domain) { // as Istio checks it: a plain suffix, no dot required
		host += "." + domain
	}
	return []clusterDefault{
		{pattern: "*.kube-system.svc." + domain, kind: kubeSystemDefault, setting: -1, host: -1},
		{pattern: inventory.ServiceHost("kubernetes", "default", domain), kind: kubernetesDefault, setting: -1, host: -1},
		{pattern: host, kind: discoveryDefault, setting: -1, host: -1},
	}
}

// patternSetting is a host pattern's cluster-locality and where it comes from: a setting and
// the index of the host in it, or (setting -1) the default of that index in defaults.
type patternSetting struct {
	pattern       string // the pattern itself, "*" included
	local         bool
	setting, host int
}

// localHosts are the cluster-local host patterns of a compiled scope configuration.
type localHosts struct {
	specific map[string]patternSetting // exact hosts
	wildcard map[string]patternSetting // wildcards, by what follows the "*"
	lengths  []int                     // the lengths of wildcard's keys, longest first
	defaults []clusterDefault
	disc     string // the discovery address the defaults came from
	domain   string // the cluster domain
}

// newLocalHosts computes the patterns as Istio does (see above) from the settings, for a
// cluster domain and a discovery address.
func newLocalHosts(settings []mesh.ServiceSetting, domain, discovery string) localHosts {
	l := localHosts{specific: map[string]patternSetting{}, wildcard: map[string]patternSetting{},
		defaults: clusterDefaults(domain, discovery), disc: discovery, domain: domain}
	for i, st := range settings {
		if !st.Settings.ClusterLocal {
			for j, h := range st.Hosts {
				for k := range l.defaults {
					if d := &l.defaults[k]; d.setting < 0 && d.droppedBy(h) {
						d.setting, d.host, d.by = i, j, h
					}
				}
			}
		}
		for j, h := range st.Hosts {
			l.put(patternSetting{h, st.Settings.ClusterLocal, i, j})
		}
	}
	for k, d := range l.defaults {
		if d.setting < 0 {
			l.put(patternSetting{d.pattern, true, -1, k})
		}
	}
	seen := map[int]bool{}
	for s := range l.wildcard {
		if !seen[len(s)] {
			seen[len(s)] = true
			l.lengths = append(l.lengths, len(s))
		}
	}
	slices.Sort(l.lengths)
	slices.Reverse(l.lengths)
	return l
}

func (l *localHosts) put(p patternSetting) {
	if strings.HasPrefix(p.pattern, "*") {
		l.wildcard[p.pattern[1:]] = p
	} else {
		l.specific[p.pattern] = p
	}
}

// match returns the pattern that decides whether host is cluster-local, with its setting;
// ok is false when none matches (not cluster-local). An exact pattern comes first, then the
// longest wildcard whose suffix host ends with; a wildcard host is matched as Istio matches
// one, by what follows its "*". It does not allocate.
func (l *localHosts) match(host string) (p patternSetting, ok bool) {
	needle := host
	if strings.HasPrefix(host, "*") {
		needle = host[1:]
	} else if p, ok := l.specific[host]; ok {
		return p, true
	}
	for _, n := range l.lengths {
		if n > len(needle) {
			continue
		}
		if p, ok := l.wildcard[needle[len(needle)-n:]]; ok {
			return p, true
		}
	}
	return patternSetting{}, false
}

// dropped returns the most specific dropped default that would have matched host, if it is
// more specific than the pattern that does match (pattern, "" for none) or is that pattern
// (a clusterLocal: false on the default's own host both matches and drops it).
func (l *localHosts) dropped(host, pattern string) (clusterDefault, bool) {
	var best clusterDefault
	found := false
	for _, d := range l.defaults {
		if d.setting < 0 || !hosts.Covers(d.pattern, host) {
			continue
		}
		if !found || hosts.MoreSpecific(d.pattern, best.pattern) {
			best, found = d, true
		}
	}
	if !found || pattern != "" && best.pattern != pattern && !hosts.MoreSpecific(best.pattern, pattern) {
		return clusterDefault{}, false
	}
	return best, true
}

// source names where a pattern's setting comes from.
func (l *localHosts) source(p patternSetting) string {
	if p.setting < 0 {
		return l.defaults[p.host].source(l.disc)
	}
	return fmt.Sprintf("serviceSettings[%d] host %s", p.setting, p.pattern)
}
