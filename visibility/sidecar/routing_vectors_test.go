package sidecar

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// routingCase is a case of testdata/istio-routing.json or istio-gateway.json: the
// istio-sidecar.json inputs, with egress listener ports, VirtualServices and
// DestinationRules, and Istio's answers per proxy (or per gateway).
type routingCase struct {
	istiotest.Objects
	DiscoveredNamespaces []string       `json:"discoveredNamespaces"`
	Proxies              []routingProxy `json:"proxies"`
	GatewayProxies       []struct {
		Namespace string
		Labels    map[string]string
		Sidecar   string
		Services  map[string]vectorService
		// AfterSidecars is the gateway on a push where sidecars of its namespace were scoped
		// first: whether istiod then handed it their scope, and what it got if that differs.
		AfterSidecars struct {
			SameScopeAsSidecar bool                     `json:"sameScopeAsSidecar"`
			Services           map[string]vectorService `json:"services"`
		} `json:"afterSidecars"`
	} `json:"gatewayProxies"`
	SidecarDefaultView map[string]map[string]vectorService `json:"sidecarDefaultView"`
}

// routingProxy is a proxy of a routing case and what Istio's SidecarScope gave it.
type routingProxy struct {
	Namespace       string
	Labels          map[string]string
	Sidecar         string
	Services        map[string]vectorService
	VirtualServices [][]string
	EgressListeners []struct {
		Services        []string
		VirtualServices []string
		VSForHost       map[string]string `json:"vsForHost"`
	}
	DestinationRules map[string]*vectorRule
	// RDS (istio-gamma.json) is, per port ("80", "9090"), the route configuration the proxy
	// got.
	RDS map[string][]vectorVirtualHost `json:"rds"`
}

type vectorService struct {
	Namespace, Registry, Object string
	Ports                       []uint32
}

type vectorRule struct {
	From          []string
	Host          string
	Subsets       []string
	TrafficPolicy *struct {
		MaxConnections int `json:"maxConnections"`
	}
}

type routingVectors struct {
	Cases []routingCase `json:"cases"`
}

// routingFiles are the loaders of testdata/istio-routing.json and istio-gateway.json.
var routingFiles = map[string]func(testing.TB) routingVectors{
	"istio-routing.json": onceJSON[routingVectors]("testdata/istio-routing.json"),
	"istio-gateway.json": onceJSON[routingVectors]("testdata/istio-gateway.json"),
}

// loadRoutingVectors reads testdata/istio-routing.json or istio-gateway.json, once.
func loadRoutingVectors(t testing.TB, file string) routingVectors {
	t.Helper()
	load, ok := routingFiles[file]
	require.True(t, ok, "no routing recording %s", file)
	return load(t)
}

// view reads a case's files and builds its view.
func (c *routingCase) view(t testing.TB) (*inventory.Inventory, *View) {
	meshFile, invFile := vectorFiles(t, &c.Objects)
	_, _, inv, v := loadFiles(t, c.ID, meshFile, invFile)
	return inv, v
}

// services spells Istio's services of a proxy in the shape Proxy gives them, without what
// the vectors do not record.
func istioServices(in map[string]vectorService) []Service {
	out := []Service{}
	for _, h := range slices.Sorted(maps.Keys(in)) {
		s := in[h]
		k := inventory.ServiceEntry
		if s.Registry == "Kubernetes" {
			k = inventory.KubernetesService
		}
		out = append(out, Service{Host: h, Kind: k, Namespace: s.Namespace, Name: s.Object, Ports: sortedPorts(s.Ports)})
	}
	return out
}

// bare is a proxy's services without what the vectors do not record.
func bare(in []Service) []Service {
	out := make([]Service, len(in))
	for i, s := range in {
		out[i] = Service{Host: s.Host, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Ports: s.Ports}
	}
	return out
}

// requireIstioProxy holds got to what Istio gave pr: the sidecar, the services, each
// listener's VirtualServices, imported services and most specific VirtualService per host,
// and the DestinationRule of every host Istio was asked for (and of no other). It returns the
// listeners, the rule lookups and the lookups that found a rule it compared.
func requireIstioProxy(t *testing.T, pr *routingProxy, got Proxy, at string) (listeners, lookups, rules int) {
	t.Helper()
	require.Equal(t, pr.Sidecar, got.Sidecar, at)
	require.Equal(t, istioServices(pr.Services), bare(got.Services), at)
	require.Len(t, got.Listeners, len(pr.EgressListeners), at)
	for k, l := range pr.EgressListeners {
		g := got.Listeners[k]
		require.Equal(t, nonNil(l.VirtualServices), g.VirtualServices, "%s: listener %d VirtualServices", at, k)
		require.Equal(t, nonNil(pr.VirtualServices[k]), g.VirtualServices, "%s: listener %d VirtualServices", at, k)
		require.Equal(t, nonNil(l.Services), g.Services, "%s: listener %d services", at, k)
		want := l.VSForHost
		if want == nil {
			want = map[string]string{}
		}
		require.Equal(t, want, g.Routes, "%s: listener %d routes", at, k)
		listeners++
	}
	for h, want := range pr.DestinationRules {
		lookups++
		r := got.Rules[h]
		if want == nil {
			require.Nil(t, r, "%s: rule of %s", at, h)
			continue
		}
		rules++
		require.NotNil(t, r, "%s: rule of %s", at, h)
		require.Equal(t, want.From, r.From, "%s: rule of %s", at, h)
		require.Equal(t, want.Host, r.Host, "%s: rule of %s", at, h)
		require.Equal(t, nonNil(want.Subsets), r.Subsets, "%s: rule of %s", at, h)
		if want.TrafficPolicy == nil {
			require.Nil(t, r.TrafficPolicy, "%s: rule of %s", at, h)
		} else {
			require.JSONEq(t, `{"connectionPool":{"tcp":{"maxConnections":`+strconv.Itoa(want.TrafficPolicy.MaxConnections)+`}}}`, string(r.TrafficPolicy), "%s: rule of %s", at, h)
		}
	}
	for h := range got.Rules {
		require.Contains(t, pr.DestinationRules, h, "%s: a rule for %s, which Istio was not asked for", at, h)
	}
	return listeners, lookups, rules
}

// routedCase is a case of istio-routing.json or istio-gamma.json, whose proxies the same
// harness holds to Istio's answers: its routing case, and its view read from its files.
type routedCase interface {
	base() *routingCase
	view(t testing.TB) (*inventory.Inventory, *View)
}

func (c *routingCase) base() *routingCase { return c }

// view reads a gamma case's files (its routes among them) and builds its view.
func (c *gammaCase) view(t testing.TB) (*inventory.Inventory, *View) {
	_, inv, v := c.load(t)
	return inv, v
}

// TestRoutingAgainstIstio holds View.Proxy to what Istio's own SidecarScope gave every proxy
// of every routing case and of every case with Gateway API routes, through the loaders: the
// services (those VirtualService destinations add included), each listener's VirtualServices
// (those istiod made from routes among them, named as istiod names them), imported services
// and most specific VirtualService per host, and the DestinationRule of every host (and of
// hosts the proxy does not have: none); and View.RouteTable to the route configuration each
// proxy of the gamma cases got for ports 80 and 9090 (requireIstioRDS).
func TestRoutingAgainstIstio(t *testing.T) {
	for _, file := range []string{"istio-routing.json", "istio-gamma.json"} {
		t.Run(file, func(t *testing.T) {
			var cases []routedCase
			if file == "istio-gamma.json" {
				gs := loadGammaVectors(t)
				for i := range gs {
					cases = append(cases, &gs[i])
				}
			} else {
				vs := loadRoutingVectors(t, file)
				for i := range vs.Cases {
					cases = append(cases, &vs.Cases[i])
				}
			}
			holdRoutedCases(t, cases)
		})
	}
}

// holdRoutedCases holds the view of every proxy of cases to Istio's answers, and logs the
// agreements counted.
func holdRoutedCases(t *testing.T, cases []routedCase) {
	n := routedCounts{vhosts: map[string]int{}}
	for _, rc := range cases {
		c := rc.base()
		inv, v := rc.view(t)
		for ns := range c.Namespaces {
			require.Equal(t, slices.Contains(c.DiscoveredNamespaces, ns), v.Discovered(ns), "case %d: Discovered(%s)", c.ID, ns)
		}
		for p, pr := range c.Proxies {
			at := c.proxyAt(p)
			got := v.Proxy(pr.Namespace, labels.Set(pr.Labels))
			l, k, r := requireIstioProxy(t, &pr, got, at)
			n.listeners, n.lookups, n.rules = n.listeners+l, n.lookups+k, n.rules+r
			for port, want := range pr.RDS {
				n.vhosts[port] += requireIstioRDS(t, v, &pr, port, want, at)
			}
			if p%longtest.N(4, 1) == 0 {
				explainAgrees(t, v, *inv, pr.Namespace, pr.Labels, got)
			}
			n.proxies++
			n.services += len(pr.Services)
		}
	}
	t.Logf("%d proxies of %d cases agree with Istio: %d service answers, %d egress listeners, %d DestinationRule lookups (%d with a rule); route tables: %d virtual hosts for port 80, %d for port 9090",
		n.proxies, len(cases), n.services, n.listeners, n.lookups, n.rules, n.vhosts["80"], n.vhosts["9090"])
	require.Positive(t, n.proxies)
}

// routedCounts counts what holdRoutedCases held.
type routedCounts struct {
	proxies, services, listeners, lookups, rules int
	vhosts                                       map[string]int // per port: the virtual hosts of route tables
}

// vectorVirtualHost is a virtual host of the route configuration a proxy of a gamma case got.
type vectorVirtualHost struct {
	Name            string   `json:"name"`
	VirtualServices []string `json:"virtualServices"`
	Routes          int      `json:"routes"`
}

// requireIstioRDS holds View.RouteTable for a proxy and port to the route configuration
// Istio gave it — each virtual host's name and the VirtualService its routes come from, in
// Istio's order — and the route table the builder works out to the number of routes of each
// virtual host too. It returns the virtual hosts held.
func requireIstioRDS(t *testing.T, v *View, pr *routingProxy, port string, want []vectorVirtualHost, at string) int {
	t.Helper()
	p, err := strconv.ParseUint(port, 10, 32)
	require.NoError(t, err)
	w := labels.Set(pr.Labels)
	var names, got, withRoutes []string
	for _, vh := range want {
		names = append(names, vh.Name+" "+strings.Join(vh.VirtualServices, ","))
		withRoutes = append(withRoutes, vh.Name+" "+strings.Join(vh.VirtualServices, ",")+" "+strconv.Itoa(vh.Routes))
	}
	for _, vh := range v.RouteTable(pr.Namespace, w, uint32(p)) {
		got = append(got, vh.Name+" "+vh.VirtualService)
	}
	require.Equal(t, names, got, "%s: route table for port %s", at, port)
	var rec record
	v.build(&rec, sidecarKind, v.sidecars.forProxy(pr.Namespace, w), pr.Namespace, w, nil, nil)
	got = got[:0]
	for _, vh := range v.routeTable(&rec, uint32(p)).hosts {
		got = append(got, vh.name+" "+v.vsRef(vh.vs)+" "+strconv.Itoa(int(vh.routes)))
	}
	got = append(got, v.catchAll(rec.sidecar)+"  1")
	require.Equal(t, withRoutes, got, "%s: routes of the route table for port %s", at, port)
	return len(want)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// proxyAt names proxy p of the case in a failure message.
func (c *routingCase) proxyAt(p int) string {
	pr := &c.Proxies[p]
	return "case " + strconv.Itoa(c.ID) + ", proxy " + strconv.Itoa(p) + " in " + pr.Namespace + " with " + labels.Set(pr.Labels).String()
}

// gatewayAt names gateway p of the case in a failure message.
func (c *routingCase) gatewayAt(p int) string {
	gw := &c.GatewayProxies[p]
	return "case " + strconv.Itoa(c.ID) + ", gateway " + strconv.Itoa(p) + " in " + gw.Namespace + " with " + labels.Set(gw.Labels).String()
}

// TestGatewayAgainstIstio holds View.Gateway to the services Istio's own gateway scope gave
// every gateway of every case, and the view of a sidecar without a Sidecar to the default
// sidecar scope Istio computed per namespace; a gateway's answer that would differ when a
// sidecar of its namespace connects first carries a note.
func TestGatewayAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-gateway.json")
	gateways, services, notes, defaults := 0, 0, 0, 0
	for i := range vs.Cases {
		c := &vs.Cases[i]
		_, v := c.view(t)
		for p, gw := range c.GatewayProxies {
			at := c.gatewayAt(p)
			got := v.Gateway(gw.Namespace, labels.Set(gw.Labels))
			require.Equal(t, "", got.Sidecar, at)
			require.Equal(t, istioServices(gw.Services), bare(got.Services), at)
			require.Empty(t, got.Listeners, at)
			// A note exactly where the gateway's view changes when a sidecar connects first,
			// naming the hosts that differ.
			if after := gw.AfterSidecars.Services; after != nil {
				require.True(t, gw.AfterSidecars.SameScopeAsSidecar, at)
				require.Len(t, got.Notes, 1, at)
				require.Equal(t, GatewayScopeOrderDependent, got.Notes[0].Code, at)
				for h, s := range after {
					if g, ok := gw.Services[h]; !ok || g.Namespace != s.Namespace || g.Object != s.Object || !slices.Equal(sortedPorts(g.Ports), sortedPorts(s.Ports)) {
						require.Contains(t, got.Notes[0].Message, h, at)
					}
				}
			} else {
				require.Empty(t, got.Notes, at)
			}
			gateways++
			services += len(gw.Services)
			notes += len(got.Notes)
		}
		for ns, want := range c.SidecarDefaultView {
			require.Equal(t, istioServices(want), bare(v.proxyOf(sidecarKind, nil, ns, nil).Services), "case %d: the default sidecar scope of %s", c.ID, ns)
			defaults++
		}
	}
	t.Logf("%d gateways of %d cases agree with Istio (%d service answers; %d carry a note that a sidecar connecting first changes their view); %d default sidecar scopes agree",
		gateways, len(vs.Cases), services, notes, defaults)
	require.Positive(t, gateways)
}
