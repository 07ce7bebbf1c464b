package scope

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// The codes of Lint, each with its level.
var (
	// ScopeNeverMatches (warning): a config whose selector's requirements contradict each
	// other (app in (a) and app in (b)), so it never matches.
	ScopeNeverMatches = report.NewCode("ScopeNeverMatches", report.Warning)
	// ScopeLocalConfig (note): a LOCAL config, which never changes a scope: LOCAL is the
	// default and never overrides a GLOBAL match.
	ScopeLocalConfig = report.NewCode("ScopeLocalConfig", report.Note)
	// ScopeSettingOverridden (note): a host pattern given again by a later setting, which
	// wins.
	ScopeSettingOverridden = report.NewCode("ScopeSettingOverridden", report.Note)
	// ScopeHostNeverMatches (error): a serviceSettings host, or the host of
	// defaultConfig.discoveryAddress, with an upper-case letter or a trailing dot. Istio
	// matches hosts exactly as written and a Kubernetes Service's host is lower case without
	// a trailing dot, so the pattern matches no service: Web.Shop.svc.cluster.local never
	// makes web.shop.svc.cluster.local cluster-local.
	ScopeHostNeverMatches = report.NewCode("ScopeHostNeverMatches", report.Error)
	// ScopeDefaultKept (warning): a clusterLocal: false setting that looks as if it opened
	// up one of Istio's default cluster-local hosts but does not drop it: the bare parent
	// kube-system.svc.<domain>, a wildcard such as *.svc.<domain> that covers a default, or
	// a near miss of a default: in another letter case, with a trailing dot, or without the
	// cluster domain (kubernetes.default.svc). Only a host equal to an exact default, or
	// ending in .kube-system.svc.<domain> for the wildcard default, drops it.
	ScopeDefaultKept = report.NewCode("ScopeDefaultKept", report.Warning)
	// ScopeDefaultDropped (warning): a clusterLocal: false on one host under
	// *.kube-system.svc.<domain> (a.kube-system.svc.<domain>), which drops that default for
	// every kube-system host, not only for the one named.
	ScopeDefaultDropped = report.NewCode("ScopeDefaultDropped", report.Warning)
	// ScopeDefaultStaysDropped (warning): a clusterLocal: true on a host under
	// *.kube-system.svc.<domain> after an earlier setting dropped that default: the default
	// stays dropped, and only the hosts this setting names are cluster-local again.
	ScopeDefaultStaysDropped = report.NewCode("ScopeDefaultStaysDropped", report.Warning)
)

// Lint reports the parts of the scope settings that cannot do what they seem to, in
// configuration order, each at its path in the meshConfig:
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
// Lint reads the configuration alone (with the inventory's cluster domain), not the
// inventory's services. The mesh configuration of New(nil, …) has no findings, nor has a
// nil Scoper. The caller owns the slice.
func (s *Scoper) Lint() []Finding {
	if s == nil {
		return nil
	}
	return slices.Clone(s.findings)
}

// lint computes Lint's findings from the compiled configs and the settings they came with.
func (s *Scoper) lint(settings []mesh.ServiceSetting) []Finding {
	var out []Finding
	for i, c := range s.configs {
		p := func() fielderr.Path { return fielderr.Root(fielderr.Object).Child("serviceScopeConfigs").Index(i) } // spelt for a finding only
		if c.scope == mesh.Local {
			out = append(out, report.New(p().String(), ScopeLocalConfig, "a LOCAL config changes nothing: LOCAL is the default and never overrides a GLOBAL match"))
			continue
		}
		for _, sel := range []struct {
			name string
			s    labels.Selector
		}{{"namespaceSelector", c.ns}, {"servicesSelector", c.svc}} {
			if kube.Contradict(kube.RequirementsOf(sel.s)) {
				out = append(out, report.New(p().Child(sel.name).String(), ScopeNeverMatches, "its requirements contradict each other: the config never matches"))
			}
		}
	}
	l := &s.local
	last := map[string]int{}
	for i, st := range settings {
		for _, h := range st.Hosts {
			last[h] = i
		}
	}
	for i, st := range settings {
		for j, h := range st.Hosts {
			at := func() string {
				return fielderr.Root(fielderr.Object).Child("serviceSettings").Index(i).Child("hosts").Index(j).String()
			} // for a finding only
			if k := last[h]; k != i {
				out = append(out, report.New(at(), ScopeSettingOverridden, "%s is given again by serviceSettings[%d], which wins", h, k))
			}
			if r := neverMatches(h); r != "" {
				out = append(out, report.New(at(), ScopeHostNeverMatches, "%s %s: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service", h, r))
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
// seem to (see Lint).
func (l *localHosts) lintDefaults(at func() string, i, j int, h string, local bool) []Finding {
	var out []Finding
	var kept []string
	for _, d := range l.defaults {
		switch {
		case !local && d.setting == i && d.host == j && d.wildcard() && h != d.pattern:
			out = append(out, report.New(at(), ScopeDefaultDropped,
				"clusterLocal: false on %s drops %s for every host under it, not only for this one: no host ending in %s is cluster-local by default any more",
				h, d.source(l.disc), d.pattern[1:]))
		case !local && d.setting < 0 && (h == strings.TrimPrefix(d.pattern, "*.") && d.wildcard() || hosts.Covers(h, d.pattern)):
			kept = append(kept, d.pattern)
		case local && d.setting >= 0 && d.setting < i && d.wildcard() && h != d.pattern && d.droppedBy(h):
			out = append(out, report.New(at(), ScopeDefaultStaysDropped,
				"%s is cluster-local again, but serviceSettings[%d] host %s dropped %s, which stays dropped: the other hosts ending in %s are not cluster-local",
				h, d.setting, d.by, d.source(l.disc), d.pattern[1:]))
		}
	}
	if !local {
		for _, d := range l.defaults {
			if why := nearDefault(h, d.pattern, l.domain); d.setting < 0 && why != "" {
				out = append(out, report.New(at(), ScopeDefaultKept,
					"clusterLocal: false on %s does not drop %s: it %s, and Istio compares hosts as written, so the default stays cluster-local",
					h, d.source(l.disc), why))
			}
		}
	}
	if len(kept) > 0 {
		out = append(out, report.New(at(), ScopeDefaultKept,
			"clusterLocal: false on %s does not drop Istio's default %s: only a host equal to an exact default, or ending in what follows a wildcard default's *, drops it, so it stays cluster-local",
			h, strings.Join(kept, ", ")))
	}
	return out
}
