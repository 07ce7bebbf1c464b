package sidecar

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// withVisibility returns a copy of m (nil: the defaults) with serviceEntryVisibility c.
func withVisibility(m *mesh.Config, c *visibility.Config) *mesh.Config {
	out := &mesh.Config{}
	if m != nil {
		*out = *m
	}
	out.Visibility = c
	return out
}

// se is a ServiceEntry of hosts, age hours after t0.
func se(ns, name string, age int, hosts []string) inventory.Service {
	return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: hosts, CreationTime: t0.Add(time.Duration(age) * time.Hour)}
}

// dumpInventory spells a random configuration for a failure message: the mesh settings the
// views read and the inventory, as JSON.
func dumpInventory(m *mesh.Config, inv inventory.Inventory) string {
	mj, _ := json.Marshal(m)
	ij, _ := json.MarshalIndent(inv, "", " ")
	out := "mesh " + string(mj) + "\ninventory " + string(ij)
	// JSON leaves out an empty selector, which selects every workload.
	for _, sc := range inv.Sidecars {
		if sc.WorkloadSelector != nil && len(sc.WorkloadSelector) == 0 {
			out += "\nSidecar " + sc.Namespace + "/" + sc.Name + " has the workloadSelector {}"
		}
	}
	for _, dr := range inv.DestinationRules {
		if dr.WorkloadSelector != nil && len(dr.WorkloadSelector) == 0 {
			out += "\nDestinationRule " + dr.Namespace + "/" + dr.Name + " has the workloadSelector {}"
		}
	}
	return out
}

// proxyDiff compares a view with the reference's, part by part: the first part that
// differs ("" when none) and how.
func proxyDiff(want, got Proxy) (part, diff string) {
	if reflect.DeepEqual(want, got) {
		return "", ""
	}
	for _, p := range []struct {
		part string
		a, b any
	}{
		{"Sidecar", want.Sidecar, got.Sidecar},
		{"Listeners", want.Listeners, got.Listeners},
		{"Services", bare(want.Services), bare(got.Services)},
		{"Services' AddedBy and Routes", want.Services, got.Services},
		{"Rules", want.Rules, got.Rules},
		{"Notes", want.Notes, got.Notes},
		{"Proxy", want, got},
	} {
		if d := cmp.Diff(p.a, p.b); d != "" {
			return p.part, "(-reference +view)\n" + d
		}
	}
	return "Proxy", fmt.Sprintf("not deeply equal:\n%#v\n%#v", want, got)
}

// gatewayDiff compares a gateway's view with the reference's, and its notes with where the
// default sidecar scope of its namespace would give it something else.
func gatewayDiff(ref refSidecarView, ns string, w map[string]string, got Proxy) (part, diff string) {
	notes := got.Notes
	got.Notes = nil
	if part, diff := proxyDiff(ref.gateway(ns, w), got); part != "" {
		return part, diff
	}
	differs := ref.gatewayDiffers(ns, got)
	switch {
	case len(differs) == 0 && len(notes) > 0:
		return "Notes", fmt.Sprintf("the notes %v, where a sidecar scoped first changes nothing or cannot be scoped first", notes)
	case len(differs) > 0 && (len(notes) != 1 || notes[0].Code != GatewayScopeOrderDependent):
		return "Notes", fmt.Sprintf("the notes %v, where a sidecar scoped first changes %v", notes, differs)
	}
	if len(differs) > 0 && !strings.HasSuffix(notes[0].Message, ": "+strings.Join(differs, ", ")) {
		return "Notes", fmt.Sprintf("the note %q does not end with the hosts a sidecar scoped first changes, %v", notes[0].Message, differs)
	}
	return "", ""
}

// requireProxy holds a sidecar's view to the reference's.
func requireProxy(t *testing.T, want, got Proxy, msg string, args ...any) {
	t.Helper()
	if part, diff := proxyDiff(want, got); part != "" {
		t.Fatalf("%s: %s differ from the reference's: %s", fmt.Sprintf(msg, args...), part, diff)
	}
}

// requireGateway holds a gateway's view to the reference's, its notes included.
func requireGateway(t *testing.T, ref refSidecarView, ns string, w map[string]string, got Proxy, msg string, args ...any) {
	t.Helper()
	if part, diff := gatewayDiff(ref, ns, w, got); part != "" {
		t.Fatalf("%s: %s differ from the reference's: %s", fmt.Sprintf(msg, args...), part, diff)
	}
}

// disagreements tallies, by part, where views differ from the reference, and reports the
// first example of each part as an error of the test (each with its configuration), so
// that one run shows every kind of disagreement.
type disagreements struct {
	t     *testing.T
	parts map[string]int
}

func (d *disagreements) add(part, diff string, at func() string) {
	d.t.Helper()
	if part == "" {
		return
	}
	if d.parts == nil {
		d.parts = map[string]int{}
	}
	d.parts[part]++
	if d.parts[part] == 1 {
		d.t.Errorf("%s: %s differ from the reference's: %s", at(), part, diff)
	}
}

func (d *disagreements) String() string {
	if len(d.parts) == 0 {
		return "none"
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(d.parts)) {
		out = append(out, fmt.Sprintf("%s %d", p, d.parts[p]))
	}
	return strings.Join(out, ", ")
}

// refCounts counts what the random views hold, for the tests' logs: the sidecars' proxies
// and the gateways'.
type refCounts struct{ sidecars, gateways proxyCounts }

// proxyCounts counts the proxies of one kind: how many, how many agree with the reference,
// and what they hold.
type proxyCounts struct {
	proxies, agree, services, listeners, selected, routed, added, rules, merged, notes int
}

func (c *proxyCounts) add(p Proxy, agrees bool) {
	if agrees {
		c.agree++
	}
	c.proxies++
	c.services += len(p.Services)
	c.listeners += len(p.Listeners)
	for _, l := range p.Listeners {
		c.selected += len(l.VirtualServices)
		c.routed += len(l.Routes)
	}
	for _, s := range p.Services {
		if s.AddedBy != "" {
			c.added++
		}
	}
	c.rules += len(p.Rules)
	for _, r := range p.Rules {
		if len(r.From) > 1 {
			c.merged++
		}
	}
	c.notes += len(p.Notes)
}

func (c refCounts) String() string {
	return fmt.Sprintf("the Proxy of %d of %d sidecars agrees (%d services, %d added by VirtualService destinations; %d listeners selecting %d VirtualServices, routing %d hosts; "+
		"%d DestinationRules, %d of them merged), the Gateway of %d of %d gateways (%d services, %d DestinationRules, %d notes)",
		c.sidecars.agree, c.sidecars.proxies, c.sidecars.services, c.sidecars.added, c.sidecars.listeners, c.sidecars.selected, c.sidecars.routed, c.sidecars.rules, c.sidecars.merged,
		c.gateways.agree, c.gateways.proxies, c.gateways.services, c.gateways.rules, c.gateways.notes)
}

// routingList is a kubectl List with VirtualServices (one delegating to another) and
// DestinationRules (two of one host in one namespace, which merge), for the fuzzer's seed.
const routingList = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Namespace, metadata: {name: pay}}
- {apiVersion: networking.istio.io/v1, kind: ServiceEntry, metadata: {name: api, namespace: ext, creationTimestamp: "2026-01-01T00:00:00Z"}, spec: {hosts: [api.example.com], ports: [{number: 443, name: tls, protocol: TLS}]}}
- {apiVersion: networking.istio.io/v1, kind: ServiceEntry, metadata: {name: cache, namespace: shop}, spec: {hosts: [cache.example.com], exportTo: ["~"], ports: [{number: 6379, name: redis, protocol: TCP}]}}
- {apiVersion: v1, kind: Service, metadata: {name: db, namespace: pay}, spec: {ports: [{port: 5432}, {port: 80}]}}
- {apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}, spec: {ports: [{port: 80}]}}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: api, namespace: shop, creationTimestamp: "2026-01-01T00:01:00Z"}
  spec:
    hosts: [api.example.com]
    exportTo: ["."]
    http:
    - match: [{sourceNamespace: shop}]
      route: [{destination: {host: web, port: {number: 80}}}]
      mirror: {host: cache.example.com}
    - route: [{destination: {host: api.example.com, subset: v1}}]
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: root, namespace: ext}
  spec:
    hosts: ["*.example.com"]
    http:
    - match: [{uri: {prefix: /a}}]
      delegate: {name: d, namespace: pay}
    tcp: [{route: [{destination: {host: api.example.com, port: {number: 443}}}]}]
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: d, namespace: pay}
  spec:
    http:
    - match: [{uri: {prefix: /a/b}}]
      route: [{destination: {host: db.pay.svc.cluster.local, port: {number: 80}}}]
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: api, namespace: shop, creationTimestamp: "2026-01-01T00:02:00Z"}
  spec: {host: api.example.com, workloadSelector: {matchLabels: {app: web}}, subsets: [{name: v1, labels: {version: v1}}]}
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: api-all, namespace: shop, creationTimestamp: "2026-01-01T00:03:00Z"}
  spec: {host: api.example.com, exportTo: ["."], trafficPolicy: {connectionPool: {tcp: {maxConnections: 10}}}}
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: wild, namespace: istio-system}
  spec: {host: "*.example.com", subsets: [{name: v2, labels: {version: v2}}]}
`

// sortedPorts returns the ports sorted, each once.
func sortedPorts(ps []uint32) []uint32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	if out == nil {
		out = []uint32{}
	}
	return slices.Compact(out)
}
