package ambient

import (
	"net/netip"
	"slices"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// What ztunnel is given and how it chooses differ by release (the index answers for
// mesh.Config.Release; each difference is a mesh.Cause):
//
//   - ServiceEntryVisibility (1.31): before, istiod does not know serviceEntryVisibility, so
//     every entry is PUBLIC (the index compiles mesh.Config.AppliedVisibility).
//   - ZtunnelCanonicalHost (1.29): in 1.28 istiod sends ztunnel none of the ServiceEntries of
//     a host a Kubernetes Service has (ambient services.go, DedupedServiceEntriesInfo), so
//     the Kubernetes Service answers every client; otherwise ztunnel's DNS proxy
//     (dns/server.rs find_server) takes the client's own namespace's entry, else the first
//     in the order it received them: when the host's entries span several namespaces, the
//     inventory does not determine the answer. From 1.29 istiod marks one entry per host
//     canonical (a Kubernetes Service, else the oldest) and ztunnel takes the client's own
//     namespace's, then the canonical one (state/service.rs find_best_match).
//   - ZtunnelRankedAddress (1.30): up to 1.29 ztunnel keeps one service per address, the one
//     it received last (state/service.rs by_vip), whatever the client's namespace: when
//     several entries claim an address, the inventory does not determine the answer. From
//     1.30 it keeps every one and takes the client's own namespace's, else the canonical one.
//   - ZtunnelCIDRs (1.30): up to 1.29 istiod sends ztunnel no ServiceEntry holding an
//     address wider than one IP (ambient helpers.go parseCidrOrIP: "only single IP CIDR is
//     allowed"), so none of its hosts or addresses exist there; from 1.30 the prefix reaches
//     ztunnel and matches after the exact addresses (own namespace, then the longest prefix,
//     then the canonical entry); from 1.31 only visible entries count.
//
// 1.28.0, whose DNS proxy answered a wildcard host reached through a search domain with a
// CNAME, is not modelled (mesh.Config.Validate refuses it).

// undetermined is the answer of a set whose release leaves the choice among its entries to
// the order ztunnel received them in.
const undetermined int32 = -2

// Release returns the release the index answers for (mesh.Config.Release of its
// configuration): what an output names on its first line.
func (ix *Index) Release() mesh.Release {
	if ix == nil {
		return mesh.Release{}
	}
	return ix.release
}

// delivered reports whether istiod sends ztunnel entry i at all under the index's release.
func (ix *Index) delivered(i int32) bool { return ix.absent == nil || !ix.absent[i] }

// absentFor returns, for release r, which services of inv istiod never sends ztunnel (nil
// when it sends them all): up to 1.29, ServiceEntries holding an address wider than one IP;
// in 1.28 also those every host of which a Kubernetes Service has.
func absentFor(r mesh.Release, inv *inventory.Inventory) []bool {
	if r.Has(mesh.ZtunnelCIDRs) {
		return nil
	}
	var k8sHosts map[string]bool
	if !r.Has(mesh.ZtunnelCanonicalHost) {
		k8sHosts = map[string]bool{}
		for i := range inv.Services {
			if s := &inv.Services[i]; s.Kind == inventory.KubernetesService {
				for _, h := range s.Hosts {
					k8sHosts[hosts.Normalize(h)] = true
				}
			}
		}
	}
	var absent []bool
	for i := range inv.Services {
		s := &inv.Services[i]
		if s.Kind != inventory.ServiceEntry {
			continue
		}
		cidr := slices.ContainsFunc(s.Addresses, func(p netip.Prefix) bool { return !p.IsSingleIP() })
		hidden := k8sHosts != nil && len(s.Hosts) > 0 && !slices.ContainsFunc(s.Hosts, func(h string) bool { return !k8sHosts[hosts.Normalize(h)] })
		if cidr || hidden {
			if absent == nil {
				absent = make([]bool, len(inv.Services))
			}
			absent[i] = true
		}
	}
	return absent
}

// absentReason says why istiod does not send ztunnel entry i.
func (ix *Index) absentReason(i int32) string {
	s := &ix.services[i]
	if slices.ContainsFunc(s.Addresses, func(p netip.Prefix) bool { return !p.IsSingleIP() }) {
		return "not sent to ztunnel: Istio " + ix.release.Version() + " sends no ServiceEntry holding an address wider than one IP (from 1.30 it does)"
	}
	return "not sent to ztunnel: in Istio 1.28 a Kubernetes Service hides every ServiceEntry of its host, and a Kubernetes Service has every host of this one"
}

// prefersOwn reports whether, under the index's release, a client's own namespace's entry
// answers first among the entries of a set of kind: not for an address before 1.30 (ztunnel
// keeps one service per address), nor in 1.28 for a host a Kubernetes Service has (istiod
// sends no ServiceEntry of it).
func (ix *Index) prefersOwn(all []int32, kind setKind) bool {
	switch {
	case kind == addressSet && ix.oldAddress:
		return false
	case kind == hostSet && ix.oldHost:
		return !ix.hasKubernetesService(all)
	}
	return true
}

// hasKubernetesService reports whether a set's entries (in rank order: Kubernetes Services
// first) hold a delivered Kubernetes Service.
func (ix *Index) hasKubernetesService(all []int32) bool {
	for _, i := range all {
		if ix.services[i].Kind != inventory.KubernetesService {
			return false
		}
		if ix.delivered(i) {
			return true
		}
	}
	return false
}

// canonicalFor returns the entry of a set of kind (all, in rank order) that a client without
// an entry of its own gets under the index's release, given the one the newest release
// gives: in 1.28, for a host, the Kubernetes Service, else the one entry when the host's
// entries are all of one namespace, else undetermined; before 1.30, for an address, the one
// entry claiming it, else undetermined.
func (ix *Index) canonicalFor(newest int32, all []int32, kind setKind) int32 {
	switch {
	case kind == hostSet && ix.oldHost:
		if ix.hasKubernetesService(all) {
			return newest // the Kubernetes Service comes first in rank order
		}
		return ix.onlyChoice(all, func(a, b int32) bool { return ix.services[a].Namespace == ix.services[b].Namespace })
	case kind == addressSet && ix.oldAddress:
		return ix.onlyChoice(all, func(a, b int32) bool { return a == b })
	}
	return newest
}

// onlyChoice returns the first delivered entry of all when every delivered entry is the same
// as it (by same), -1 when none is delivered, else undetermined.
func (ix *Index) onlyChoice(all []int32, same func(a, b int32) bool) int32 {
	first := int32(-1)
	for _, i := range all {
		switch {
		case !ix.delivered(i):
		case first < 0:
			first = i
		case !same(first, i):
			return undetermined
		}
	}
	return first
}

// Outcome is a lookup's answer with how sure it is: the service that answers (Found), none
// (the query goes upstream, the traffic passes through), or, where the release leaves the
// choice to the order ztunnel received the candidates in, none of them for certain:
// Undetermined lists them.
type Outcome struct {
	Service inventory.Service `json:"service,omitzero"`
	Found   bool              `json:"found"`
	// Undetermined are the services one of which answers, which one the inventory does not
	// determine (Found is false).
	Undetermined []inventory.ServiceRef `json:"undetermined,omitempty"`
}

// AnswerHost is LookupHost, saying when the answer is not determined by the inventory (see
// ExplainHost for why).
func (ix *Index) AnswerHost(client, host string) Outcome {
	e, _ := ix.lookupHost(client, host)
	if e != undetermined {
		return ix.answerOf(e)
	}
	return Outcome{Undetermined: ix.ExplainHost(client, host).Undetermined}
}

// AnswerAddress is LookupAddress, saying when the answer is not determined by the inventory
// (see ExplainAddress for why).
func (ix *Index) AnswerAddress(client string, addr netip.Addr) Outcome {
	e := ix.lookupAddress(client, addr)
	if e != undetermined {
		return ix.answerOf(e)
	}
	return Outcome{Undetermined: ix.ExplainAddress(client, addr).Undetermined}
}

// answerOf is the outcome of entry e, or none for -1.
func (ix *Index) answerOf(e int32) Outcome {
	if e < 0 {
		return Outcome{}
	}
	return Outcome{Service: ix.services[e], Found: true}
}

// undeterminedReason says why a level's answer is not determined, under the index's
// release.
func (ix *Index) undeterminedReason(l level) string {
	if l.addr {
		return "Istio " + ix.release.Version() + ": ztunnel keeps one service per address, the one it received last, so which of these answers is not determined by the inventory (from 1.30 the client's own namespace's, else the canonical one)"
	}
	return "Istio " + ix.release.Version() + ": outside the client's namespace ztunnel takes the first of these in the order it received them, which the inventory does not determine (from 1.29 the canonical one: a Kubernetes Service, else the oldest)"
}

// undeterminedAmong returns the delivered entries of a level that one answers, as
// references.
func (ix *Index) undeterminedAmong(l level) []inventory.ServiceRef {
	var out []inventory.ServiceRef
	for _, i := range ix.t.all(l.set) {
		if ix.delivered(i) {
			out = append(out, ix.services[i].Ref())
		}
	}
	return out
}
