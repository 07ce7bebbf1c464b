package sidecar

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Gateways: the questions a sidecar answers, asked of gateways — ExplainGatewayHost,
// LintGateways, GatewayClasses, DiffGateways — held to what Istio's own gateway scope gave
// every gateway of testdata/istio-gateway.json; and a gateway beside a Sidecar whose
// workloadSelector is empty.

// TestGatewayExplainAgainstIstio: for every gateway of every case, the explanation of every
// host of the inventory agrees with Gateway (the answer, the rule, one chosen candidate which
// is the answer, every candidate with a verdict and a reason), and for every host Istio gave
// the gateway it names the service Istio gave, in its first line.
func TestGatewayExplainAgainstIstio(t *testing.T) {
	gateways, hosts, cases := 0, 0, loadRoutingVectors(t, "istio-gateway.json").Cases
	for i := range cases {
		inv, v := cases[i].view(t)
		for p, gw := range cases[i].GatewayProxies {
			at, got := cases[i].gatewayAt(p), v.Gateway(gw.Namespace, labels.Set(gw.Labels))
			if p%longtest.N(4, 1) == 0 {
				require.Empty(t, explainDiffWith(v.ExplainGatewayHost, *inv, gw.Namespace, gw.Labels, got), at)
			}
			for _, want := range istioServices(gw.Services) {
				e := v.ExplainGatewayHost(gw.Namespace, labels.Set(gw.Labels), want.Host)
				require.True(t, e.Gateway, at)
				require.Empty(t, e.Sidecar, at)
				require.Empty(t, e.Routes, at)
				require.NotNil(t, e.Answer, "%s: %s", at, want.Host)
				require.Equal(t, want, bare([]Service{*e.Answer})[0], "%s: %s", at, want.Host)
				first, _, _ := cutLine(e.String())
				require.Contains(t, first, "it gets "+want.Kind.String()+" "+want.Namespace+"/"+want.Name, "%s: %s", at, want.Host)
				hosts++
			}
			gateways++
		}
	}
	t.Logf("%d gateways of %d cases: every one of their %d hosts explained as Istio answers it", gateways, len(cases), hosts)
	require.Positive(t, hosts)
}

func cutLine(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestLintGatewaysAgainstIstio: LintGateways says where Istio's gateway scope surprises, and
// nowhere else: GatewayScopeOrderDependent for exactly the namespaces whose gateways Istio
// hands another view when a sidecar connects first, and GatewayOwnServiceOutranked for
// exactly the services of a gateway's namespace, exported there, whose host Istio gave the
// gateway from another namespace.
func TestLintGatewaysAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-gateway.json")
	orderDependent, outranked := 0, 0
	for i := range vs.Cases {
		c := &vs.Cases[i]
		ref, v := c.reference(t)
		want := map[string]report.Code{}
		for _, gw := range c.GatewayProxies {
			if gw.AfterSidecars.Services != nil {
				want["namespace "+gw.Namespace] = GatewayScopeOrderDependent
			}
			for _, x := range ref.services() {
				s := x.s
				if s.Namespace != gw.Namespace || !ref.discovered(s.Namespace) || !refVisible(x, gw.Namespace) {
					continue
				}
				if got, ok := gw.Services[x.host]; ok && got.Namespace != gw.Namespace {
					want[s.Ref().String()] = GatewayOwnServiceOutranked
				}
			}
		}
		got := map[string]report.Code{}
		for _, f := range v.LintGateways() {
			require.NotEqual(t, GatewayScopeOrderDependent, got[f.Path], "case %d: one finding per namespace", c.ID)
			got[f.Path] = f.Code
			switch f.Code {
			case GatewayScopeOrderDependent:
				orderDependent++
			case GatewayOwnServiceOutranked:
				outranked++
			}
		}
		require.Equal(t, want, got, "case %d", c.ID)
	}
	t.Logf("%d GatewayScopeOrderDependent and %d GatewayOwnServiceOutranked findings, where Istio's answers say", orderDependent, outranked)
	require.Positive(t, orderDependent)
	require.Positive(t, outranked)
}

// TestDiffGatewaysAgainstIstio: the dry run of a change from an empty inventory to each
// case lists, for every gateway class of its namespace, every host with the service Istio
// gave the gateway, and no other host.
func TestDiffGatewaysAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-gateway.json")
	compared := 0
	for i := range vs.Cases {
		c := &vs.Cases[i]
		_, v := c.view(t)
		changes := DiffGateways(nil, v)
		for _, gw := range c.GatewayProxies {
			var got []Service
			for _, ch := range changes {
				if ch.Key.Namespace == gw.Namespace && ch.Key.Workload == "" {
					require.Nil(t, ch.Before, "case %d", c.ID)
					got = append(got, ch.After.Service)
				}
			}
			require.Equal(t, istioServices(gw.Services), bare(slices.Clip(got)), "case %d, the gateways of %s", c.ID, gw.Namespace)
			compared++
		}
	}
	t.Logf("DiffGateways from nothing gives %d gateways what Istio gave them", compared)
}

// TestDiffGatewaysAgainstGateway asks every gateway directly: on random inventories whose
// services and DestinationRules change, for every namespace and workload whose gateway view
// changes, DiffGateways holds a class of that namespace with exactly its changes. (A
// workload that the selectors of two rules of one namespace both select is no class of its
// own, for gateways as for sidecars: the workloads here carry the labels of one selector.)
func TestDiffGatewaysAgainstGateway(t *testing.T) {
	r := newRand(13, 14)
	selectors := []map[string]string{{"app": "gw"}, {"istio": "ingressgateway"}, {}}
	workloads := []map[string]string{nil, {"app": "gw"}, {"istio": "ingressgateway"}, {"istio": "ingressgateway", "version": "v1"}}
	compared := 0
	for iter := range longtest.N(60, 3000) {
		m, inv := randomSidecarInventory(r)
		_, other := randomSidecarInventory(r)
		next := inv
		if r.IntN(2) == 0 {
			next.Services = other.Services
		}
		next.DestinationRules = other.DestinationRules
		for _, drs := range [][]inventory.DestinationRule{inv.DestinationRules, next.DestinationRules} {
			for i := range drs {
				if r.IntN(2) == 0 {
					drs[i].WorkloadSelector = selectors[r.IntN(len(selectors))]
					drs[i].ExportTo = nil
				}
			}
		}
		before, err := New(m, &inv)
		if err != nil {
			continue
		}
		after, err := New(m, &next)
		if err != nil {
			continue
		}
		byClass := changesByClass(DiffGateways(before, after))
		for ns := range inv.Namespaces {
			for _, w := range workloads {
				if want := proxyChanges(ns, before.answers(&record{}, gatewayKind, ns, w, nil), after.answers(&record{}, gatewayKind, ns, w, nil)); len(want) > 0 {
					compared++
					found, _ := byClass.find(ns, labels.Set(w), want)
					require.True(t, found, "iteration %d: the changes of a gateway in %s with %v are those of no class of DiffGateways", iter, ns, w)
				}
			}
		}
	}
	t.Logf("%d gateways whose view changes each found among DiffGateways' classes", compared)
	require.Positive(t, compared)
}

// TestGatewayBesideEmptySelectorSidecar: a Sidecar whose workloadSelector is empty
// (`workloadSelector: {}`) applies to every workload of its namespace, so no sidecar there
// is ever scoped without a Sidecar, istiod never computes the namespace's default scope, and
// a gateway of the namespace never takes it: its view does not depend on who connects first,
// and it carries no note. A selector that leaves workloads out keeps the note.
func TestGatewayBesideEmptySelectorSidecar(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selector map[string]string
		note     bool
	}{
		{"workloadSelector {}", map[string]string{}, false},
		{"workloadSelector app=web", map[string]string{"app": "web"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := inventory.Inventory{
				Namespaces: map[string]map[string]string{"pay": nil, "istio-system": nil},
				Services: []inventory.Service{
					{Kind: inventory.ServiceEntry, Namespace: "pay", Name: "db", Hosts: []string{"db.example.com"}, Ports: []uint32{80}, CreationTime: t0},
					{Kind: inventory.ServiceEntry, Namespace: "istio-system", Name: "db", Hosts: []string{"db.example.com"}, ExportTo: []string{"pay"}, Ports: []uint32{443}, CreationTime: t0.Add(1)},
				},
				Sidecars: []inventory.Sidecar{{Namespace: "pay", Name: "all", WorkloadSelector: tc.selector, CreationTime: t0}},
			}
			v, err := New(nil, &inv)
			require.NoError(t, err)
			gw := v.Gateway("pay", nil)
			// Per host the first service exported to pay wins: istio-system's, exported by name.
			require.Equal(t, []Service{{Host: "db.example.com", Kind: inventory.ServiceEntry, Namespace: "istio-system", Name: "db", Ports: []uint32{443}}}, gw.Services)
			if !tc.note {
				require.Empty(t, gw.Notes)
				return
			}
			// A sidecar of pay without a Sidecar prefers pay's own service.
			require.Len(t, gw.Notes, 1)
			require.Equal(t, GatewayScopeOrderDependent, gw.Notes[0].Code)
			require.Contains(t, gw.Notes[0].Message, "db.example.com")
		})
	}
}

// TestGatewayEmptySelectorFromLoad: Load reads `workloadSelector: {}` and
// `workloadSelector: {labels: {}}` as the empty selector, which the gateway's view reads as
// one that selects every workload.
func TestGatewayEmptySelectorFromLoad(t *testing.T) {
	for _, sel := range []string{"{}", "{labels: {}}"} {
		inv, err := inventory.Load([]byte(`kind: List
items:
- {kind: Namespace, metadata: {name: pay}}
- {kind: ServiceEntry, metadata: {name: db, namespace: pay, creationTimestamp: "2026-01-01T00:00:00Z"}, spec: {hosts: [db.example.com], ports: [{number: 80}]}}
- {kind: ServiceEntry, metadata: {name: db, namespace: istio-system, creationTimestamp: "2026-01-01T00:00:01Z"}, spec: {hosts: [db.example.com], exportTo: [pay], ports: [{number: 443}]}}
- {kind: Sidecar, metadata: {name: all, namespace: pay}, spec: {workloadSelector: `+sel+`, egress: [{hosts: ["./*"]}]}}
`), "")
		require.NoError(t, err, sel)
		require.Equal(t, map[string]string{}, inv.Sidecars[0].WorkloadSelector, sel)
		v, err := New(nil, inv)
		require.NoError(t, err, sel)
		require.Empty(t, v.Gateway("pay", nil).Notes, sel)
	}
}
