package release

import "slices"

// Cause is one difference between Istio releases that changes what a proxy or ztunnel is
// given. Each cause has the first release that behaves the new way (Since); a Release says,
// per cause, which way it behaves (Release.Has).
type Cause string

// The causes, sidecar and gateway proxies' first, then ztunnel's.
const (
	// DestinationNamespace: where the service a VirtualService destination adds to a
	// sidecar comes from when the sidecar's namespace holds none of that host — 1.30 on,
	// with PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE (on by default, off under the
	// compatibilityVersion profiles 1.25–1.29): a Kubernetes Service of the host visible to
	// the namespace, else the oldest service; before, the alphabetically first namespace.
	DestinationNamespace Cause = "DestinationNamespace"
	// DefaultExportToLists: how the mesh's defaultServiceExportTo and
	// defaultVirtualServiceExportTo lists are read — 1.30.3 on, "*" makes objects without
	// their own exportTo public, else "~" hides them, else "." and every name are honoured;
	// before, a list holding "." made them private, else one holding "*" public, else they
	// were not indexed at all.
	DefaultExportToLists Cause = "DefaultExportToLists"
	// ListenerOrder: the order of an egress listener's candidate services — 1.30.3 on, the
	// services exported to the proxy's namespace (its own included) in creation order, then
	// the public ones; before, the namespace's private ones first, then those exported to it
	// by name, then the public ones.
	ListenerOrder Cause = "ListenerOrder"
	// SidecarExclusions: egress hosts "~ns/…", "~*/…", "~./…" exclude — 1.31 on; before,
	// Istio's validation refuses such a Sidecar.
	SidecarExclusions Cause = "SidecarExclusions"
	// ServiceEntryVisibility: meshConfig.serviceEntryVisibility exists — 1.31 on; before,
	// istiod drops the field without a word.
	ServiceEntryVisibility Cause = "ServiceEntryVisibility"
	// ExactHostListeners: a listener importing only exact hosts, none under "*/", takes per
	// namespace and host only the indexed service — 1.31 on; before, it scans every service
	// exported to the namespace.
	ExactHostListeners Cause = "ExactHostListeners"
	// ZtunnelCanonicalHost: among the services claiming a host, ztunnel takes the client's
	// own namespace's, then the canonical one (a Kubernetes Service, else the oldest
	// ServiceEntry) — 1.29 on; in 1.28 a Kubernetes Service hides every ServiceEntry of its
	// host, and otherwise, outside the client's namespace, the order ztunnel received them
	// decides.
	ZtunnelCanonicalHost Cause = "ZtunnelCanonicalHost"
	// ZtunnelRankedAddress: among the services claiming an address, ztunnel takes the
	// client's own namespace's, then the canonical one — 1.30 on; before, whichever it
	// received last.
	ZtunnelRankedAddress Cause = "ZtunnelRankedAddress"
	// ZtunnelCIDRs: a ServiceEntry address wider than one IP reaches ztunnel and matches
	// after the exact addresses — 1.30 on; before, istiod does not send ztunnel such a
	// ServiceEntry at all.
	ZtunnelCIDRs Cause = "ZtunnelCIDRs"
)

type causeSince struct {
	cause        Cause
	minor, patch int
}

// since is each cause's first release, in the order of the constants.
var since = []causeSince{
	{DestinationNamespace, 30, 0},
	{DefaultExportToLists, 30, 3},
	{ListenerOrder, 30, 3},
	{SidecarExclusions, 31, 0},
	{ServiceEntryVisibility, 31, 0},
	{ExactHostListeners, 31, 0},
	{ZtunnelCanonicalHost, 29, 0},
	{ZtunnelRankedAddress, 30, 0},
	{ZtunnelCIDRs, 30, 0},
}

// Causes returns every cause, in the order of the constants.
func Causes() []Cause {
	out := make([]Cause, len(since))
	for i, s := range since {
		out[i] = s.cause
	}
	return out
}

// Since returns the first release that behaves c's new way ("1.30.3"), "" for an unknown
// cause.
func (c Cause) Since() string {
	i := slices.IndexFunc(since, func(s causeSince) bool { return s.cause == c })
	if i < 0 {
		return ""
	}
	return Version{since[i].minor, since[i].patch}.String()
}

// has reports whether v behaves c's new way, flags aside.
func (v Version) has(c Cause) bool {
	for _, s := range since {
		if s.cause == c {
			return v.atLeast(s.minor, s.patch)
		}
	}
	return false
}

// Set is a set of causes. The zero Set is empty.
type Set uint16

// bit is c's member of a Set; 0 for an unknown cause.
func (c Cause) bit() Set {
	for i, s := range since {
		if s.cause == c {
			return 1 << i
		}
	}
	return 0
}

// SetOf returns the set of the causes cs.
func SetOf(cs ...Cause) Set {
	var s Set
	for _, c := range cs {
		s |= c.bit()
	}
	return s
}

// Has reports whether c is in s.
func (s Set) Has(c Cause) bool { return c.bit() != 0 && s&c.bit() != 0 }

// Causes returns the causes of s in the order of Causes; nil for none.
func (s Set) Causes() []Cause {
	var out []Cause
	for i, c := range since {
		if s&(1<<i) != 0 {
			out = append(out, c.cause)
		}
	}
	return out
}
