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
// first, a Kubernetes Service replacing a ServiceEntry and services of one namespace merging
// their ports — with no preference for the gateway's own namespace and no services added by
// VirtualService destinations. Rules are the DestinationRules the gateway gets, as for a
// sidecar (its labels choose among workload-selected ones). Listeners is empty: a gateway's
// routes come from the VirtualServices bound to its Gateway resources, which the view does
// not model.
//
// istiod hands a gateway its namespace's default sidecar scope instead when a sidecar proxy
// of that namespace without a Sidecar was scoped first on the same push (and no mesh-wide
// default Sidecar exists): then the gateway gets what such a sidecar gets. Where that
// differs from the gateway's own view, Notes holds a GatewayScopeOrderDependent finding
// naming the hosts that differ.
func (v *View) Gateway(namespace string, workload labels.Set) Proxy {
	out := Proxy{Services: []Service{}, Listeners: []Listener{}}
	got := &receivedSet{}
	var in []importedService
	for _, list := range [][]int32{v.exportedTo[namespace], v.public} {
		for _, id := range list {
			in = append(in, importedService{id, v.inv[v.svcs[id].svc].Ports})
		}
	}
	v.apply(in, got, "")
	out = v.finish(out, got, namespace, workload)
	if note := v.gatewayOrderNote(namespace, out); note != nil {
		out.Notes = append(out.Notes, *note)
	}
	return out
}

// gatewayOrderNote says, for a gateway of namespace n whose own view is gw, where the view
// istiod hands it when a sidecar of n connected first differs. That happens when there is
// no mesh-wide default Sidecar and a sidecar of n can be without a Sidecar of its own: no
// Sidecar of n applies to every workload (one without a selector, or with an empty one).
// That sidecar's scope — every service exported to n, as a sidecar gets them — is then n's
// default, and gateways of n get it. nil when the two agree or the case cannot arise.
func (v *View) gatewayOrderNote(n string, gw Proxy) *Finding {
	if v.rootDefault != nil || slices.ContainsFunc(v.sidecars[n], func(sc *inventory.Sidecar) bool { return len(sc.WorkloadSelector) == 0 }) {
		return nil
	}
	sc := v.proxyWith(nil, n, nil)
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
