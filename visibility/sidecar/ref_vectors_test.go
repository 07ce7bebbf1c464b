package sidecar

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/longtest"
)

// reference is the literal reference of a routing or gateway case, beside the case's view,
// both of the case's files as the loaders read them.
func (c *routingCase) reference(t *testing.T) (refSidecarView, *View) {
	t.Helper()
	meshFile, invFile := vectorFiles(t, &c.Objects)
	r, m, inv, v := loadFiles(t, c.ID, meshFile, invFile)
	return refSidecarView{r, m, *inv}, v
}

// sampled are every step-th of cases, every one with MESHSCOPE_LONG=1.
func sampled[C any](cases []C, step int) []*C {
	var out []*C
	for i := 0; i < len(cases); i += longtest.N(step, 1) {
		out = append(out, &cases[i])
	}
	return out
}

// holdProxy holds the reference to what Istio gave proxy p of the case, and the view to the
// reference, whole; it returns the proxy's egress listeners and DestinationRule lookups.
func (c *routingCase) holdProxy(t *testing.T, p int, ref refSidecarView, v *View) (listeners, lookups int) {
	t.Helper()
	pr := &c.Proxies[p]
	at := c.proxyAt(p)
	want := ref.proxy(pr.Namespace, pr.Labels)
	listeners, lookups, _ = requireIstioProxy(t, pr, want, at)
	requireProxy(t, want, v.Proxy(pr.Namespace, labels.Set(pr.Labels)), "%s: the view beside the reference", at)
	return listeners, lookups
}

// TestRoutingReferenceAgainstIstio holds the literal reference to what Istio's own
// SidecarScope gave every proxy of every routing case — the services, each listener's
// VirtualServices, imported services and routing VirtualService per host, the
// DestinationRule of every host — and the view to the reference on the same proxies, whole:
// a fifth of the cases by default, every one with MESHSCOPE_LONG=1.
func TestRoutingReferenceAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-routing.json")
	proxies, listeners, lookups := 0, 0, 0
	cases := sampled(vs.Cases, 5)
	for _, c := range cases {
		ref, v := c.reference(t)
		for p := range c.Proxies {
			l, k := c.holdProxy(t, p, ref, v)
			listeners, lookups = listeners+l, lookups+k
			proxies++
		}
	}
	t.Logf("the reference agrees with Istio on %d proxies of %d cases (%d egress listeners, %d DestinationRule lookups), and the view with the reference",
		proxies, len(cases), listeners, lookups)
}

// TestGatewayReferenceAgainstIstio holds the literal reference to what Istio's own gateway
// scope gave every gateway of every gateway case, and to whether and how its view changes
// when a sidecar of its namespace is scoped first; the default sidecar scope of every
// namespace to Istio's; and the view's Gateway to the reference's: a fifth of the cases by
// default, every one with MESHSCOPE_LONG=1.
func TestGatewayReferenceAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-gateway.json")
	gateways, differ, defaults := 0, 0, 0
	cases := sampled(vs.Cases, 5)
	for _, c := range cases {
		ref, v := c.reference(t)
		for p, gw := range c.GatewayProxies {
			at := c.gatewayAt(p)
			want := ref.gateway(gw.Namespace, gw.Labels)
			require.Equal(t, istioServices(gw.Services), bare(want.Services), at)
			require.Equal(t, gw.AfterSidecars.SameScopeAsSidecar, ref.gatewayMayTakeSidecarScope(gw.Namespace), "%s: whether a sidecar scoped first hands the gateway its scope", at)
			var hosts []string
			if after := gw.AfterSidecars.Services; after != nil {
				for h, s := range after {
					if g, ok := gw.Services[h]; !ok || g.Namespace != s.Namespace || g.Object != s.Object || g.Registry != s.Registry || !slices.Equal(sortedPorts(g.Ports), sortedPorts(s.Ports)) {
						hosts = append(hosts, h)
					}
				}
				for h := range gw.Services {
					if _, ok := after[h]; !ok {
						hosts = append(hosts, h)
					}
				}
				slices.Sort(hosts)
				differ++
			}
			require.Equal(t, hosts, ref.gatewayDiffers(gw.Namespace, want), "%s: the hosts a sidecar scoped first changes", at)
			requireGateway(t, ref, gw.Namespace, gw.Labels, v.Gateway(gw.Namespace, labels.Set(gw.Labels)), "%s: the view beside the reference", at)
			gateways++
		}
		for _, ns := range slices.Sorted(maps.Keys(c.SidecarDefaultView)) {
			require.Equal(t, istioServices(c.SidecarDefaultView[ns]), bare(ref.sidecarProxy(nil, ns, nil).Services), "case %d: the default sidecar scope of %s", c.ID, ns)
			defaults++
		}
	}
	t.Logf("the reference agrees with Istio on %d gateways of %d cases (%d of them changed by a sidecar scoped first) and %d default sidecar scopes, and the view with the reference",
		gateways, len(cases), differ, defaults)
}

// TestGammaReferenceAgainstIstio holds the literal reference to what Istio gave every proxy
// of the cases with Gateway API routes — its services, listeners (the VirtualServices istiod
// made from routes among them) and rules, and its route tables for ports 80 and 9090 — and
// the view to the reference on the same proxies: a fifth of the cases by default, every one
// with MESHSCOPE_LONG=1.
func TestGammaReferenceAgainstIstio(t *testing.T) {
	proxies, tables := 0, 0
	for _, c := range sampled(loadGammaVectors(t), 5) {
		ref, v := c.reference(t)
		for p, pr := range c.Proxies {
			c.holdProxy(t, p, ref, v)
			at := c.proxyAt(p)
			for _, port := range slices.Sorted(maps.Keys(pr.RDS)) {
				n, err := strconv.ParseUint(port, 10, 32)
				require.NoError(t, err)
				var istio []VirtualHost
				for _, vh := range pr.RDS[port] {
					istio = append(istio, VirtualHost{Name: vh.Name, VirtualService: strings.Join(vh.VirtualServices, ",")})
				}
				got := ref.routeTable(pr.Namespace, pr.Labels, uint32(n))
				require.Equal(t, istio, got, "%s: the reference's route table for port %s", at, port)
				require.Equal(t, got, v.RouteTable(pr.Namespace, labels.Set(pr.Labels), uint32(n)), "%s: the view's route table for port %s beside the reference", at, port)
				tables++
			}
			proxies++
		}
	}
	t.Logf("the reference agrees with Istio on %d proxies and %d route tables, and the view with the reference", proxies, tables)
}
