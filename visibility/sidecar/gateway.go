package sidecar

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Gateway returns what an ingress or egress gateway in namespace with the workload labels
// workload receives, as istiod scopes a gateway: Sidecar resources never apply (in the root
// namespace neither), whatever their workloadSelector; exportTo (and
// defaultServiceExportTo), discovery selectors and serviceEntryVisibility (with
// applyToSidecars) act as for a sidecar of the namespace; and per host the first candidate
// wins — the services exported to the namespace by name, then the public ones, each oldest
// first (up to 1.30.2 the namespace's own private ones first: ListenerOrder), a Kubernetes
// Service replacing a ServiceEntry and services of one namespace merging their ports — with
// no preference for the gateway's own namespace and no services added by VirtualService
// destinations. Rules are the DestinationRules the gateway gets, as for a
// sidecar (its labels choose among workload-selected ones). Listeners is empty: a gateway's
// routes come from the VirtualServices bound to its Gateway resources, which the view does
// not model.
//
// istiod hands a gateway its namespace's default sidecar scope instead when a sidecar proxy
// of that namespace without a Sidecar was scoped first on the same push (and no mesh-wide
// default Sidecar exists): then the gateway gets what such a sidecar gets. Where that
// differs from the gateway's own view, Notes holds a GatewayScopeOrderDependent finding
// naming the hosts that differ.
//
// ExplainGatewayHost, LintGateways, GatewayClasses and DiffGateways answer for gateways what
// ExplainHost, Lint, Classes and Diff answer for sidecars.
func (v *View) Gateway(namespace string, workload labels.Set) Proxy {
	out := v.proxyOf(gatewayKind, nil, namespace, workload)
	if note := v.gatewayOrderNote(namespace, out); note != nil {
		out.Notes = append(out.Notes, *note)
	}
	return out
}

// proxyOf is the view of a proxy of kind k in namespace with labels workload, to which the
// Sidecar sc applies (nil: none).
func (v *View) proxyOf(k kind, sc *inventory.Sidecar, namespace string, workload labels.Set) Proxy {
	var rec record
	v.build(&rec, k, sc, namespace, workload, nil, nil)
	return v.spell(&rec)
}

// gatewayOrderNote says, for a gateway of namespace n whose own view is gw, where the view
// istiod hands it when a sidecar of n connected first differs. That happens when there is
// no mesh-wide default Sidecar and a sidecar of n can be without a Sidecar of its own: no
// Sidecar of n applies to every workload (one without a selector, or with an empty one).
// That sidecar's scope — every service exported to n, as a sidecar gets them — is then n's
// default, and gateways of n get it. nil when the two agree or the case cannot arise.
func (v *View) gatewayOrderNote(n string, gw Proxy) *Finding {
	if v.sidecars.rootDefault != nil || slices.ContainsFunc(v.sidecars.byNS[n], func(sc *inventory.Sidecar) bool { return len(sc.WorkloadSelector) == 0 }) {
		return nil
	}
	sc := v.proxyOf(sidecarKind, nil, n, nil)
	var differ []string
	mine := map[string]Service{}
	for _, s := range gw.Services {
		mine[s.Host] = s
	}
	for _, s := range sc.Services {
		if g, ok := mine[s.Host]; !ok || !sameService(g, s) {
			differ = append(differ, s.Host)
		}
		delete(mine, s.Host)
	}
	for h := range mine {
		differ = append(differ, h)
	}
	if len(differ) == 0 {
		return nil
	}
	slices.Sort(differ)
	f := report.New("namespace "+n, GatewayScopeOrderDependent, "when a sidecar proxy of %s without a Sidecar connects to istiod before this gateway, istiod hands the gateway that sidecar's scope, and what the gateway gets differs for %s: %s",
		n, plural(len(differ), "host", "hosts"), strings.Join(differ, ", "))
	return &f
}

// LintGateways reports, per class of gateways (GatewayClasses), what istiod resolves
// surprisingly for a gateway, reading each class's view: a service of the gateway's own
// namespace, exported there, that the gateway does not get because another namespace's
// service of its host came first (GatewayOwnServiceOutranked: a sidecar of the namespace
// gets its own), and a view that changes when a sidecar of the namespace connects to istiod
// first (GatewayScopeOrderDependent, the note Gateway carries). A finding lists every class
// it holds for; sorted by path. What the configuration itself gets wrong — Sidecars,
// DestinationRules, hosts — is Lint's.
func (v *View) LintGateways() []Finding {
	fs := classFindings{who: "gateways"}
	x := &v.services
	for _, c := range v.GatewayClasses() {
		var rec record
		v.build(&rec, gatewayKind, nil, c.Namespace, c.Workload, nil, nil)
		for _, lr := range rec.listeners {
			for _, is := range lr.imported {
				s, host := x.service(is.id), x.svcs[is.id].host
				got := rec.got.get(x.svcs[is.id].rank)
				if s.Namespace != c.Namespace || x.service(got.id).Namespace == c.Namespace {
					continue
				}
				fs.note(s.Ref().String(), GatewayOwnServiceOutranked, fmt.Sprintf("is exported to its namespace, but a gateway of %s gets %s from %s: a gateway takes the first service of a host it meets (those exported to %s by name, then the public ones, each oldest first; a Kubernetes Service replacing a ServiceEntry) and prefers no namespace, where a sidecar of %s without a Sidecar of its own gets this one",
					c.Namespace, host, x.ref(got.id), c.Namespace, c.Namespace), c)
			}
		}
		if note := v.gatewayOrderNote(c.Namespace, v.spell(&rec)); note != nil {
			fs.note(note.Path, note.Code, note.Message, c)
		}
	}
	out := fs.findings()
	slices.SortFunc(out, report.Compare)
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sameService reports whether two answers for a host are the same service with the same
// ports.
func sameService(a, b Service) bool {
	return a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name && slices.Equal(a.Ports, b.Ports)
}
