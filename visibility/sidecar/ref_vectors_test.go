package sidecar

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// reference is the literal reference of a routing or gateway case, beside the case's view,
// both of the case's files as the loaders read them.
func (c *routingCase) reference(t *testing.T) (refSidecarView, *View) {
	t.Helper()
	meshFile, invFile := c.files(t)
	m, err := mesh.Load(meshFile)
	require.NoError(t, err, "case %d", c.ID)
	r, err := visibility.Compile(m.Visibility)
	require.NoError(t, err, "case %d", c.ID)
	inv, err := inventory.Load(invFile, "")
	require.NoError(t, err, "case %d", c.ID)
	v, err := New(m, inv)
	require.NoError(t, err, "case %d", c.ID)
	return refSidecarView{r, m, *inv}, v
}

// TestRoutingReferenceAgainstIstio holds the literal reference to what Istio's own
// SidecarScope gave every proxy of every routing case — the services, each listener's
// VirtualServices, imported services and routing VirtualService per host, the
// DestinationRule of every host — and the view to the reference on the same proxies, whole:
// a fifth of the cases by default, every one with MESHSCOPE_LONG=1.
func TestRoutingReferenceAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-routing.json")
	proxies, listeners, lookups, cases := 0, 0, 0, 0
	for i := 0; i < len(vs.Cases); i += longtest.N(5, 1) {
		cases++
		c := &vs.Cases[i]
		ref, v := c.reference(t)
		for p, pr := range c.Proxies {
			at := "case " + strconv.Itoa(c.ID) + ", proxy " + strconv.Itoa(p) + " in " + pr.Namespace + " with " + labels.Set(pr.Labels).String()
			want := ref.proxy(pr.Namespace, pr.Labels)
			require.Equal(t, pr.Sidecar, want.Sidecar, at)
			require.Equal(t, istioServices(pr.Services), bare(want.Services), at)
			require.Len(t, want.Listeners, len(pr.EgressListeners), at)
			for k, l := range pr.EgressListeners {
				w := want.Listeners[k]
				require.Equal(t, nonNil(l.VirtualServices), w.VirtualServices, "%s: listener %d VirtualServices", at, k)
				require.Equal(t, nonNil(l.Services), w.Services, "%s: listener %d services", at, k)
				routes := l.VSForHost
				if routes == nil {
					routes = map[string]string{}
				}
				require.Equal(t, routes, w.Routes, "%s: listener %d routes", at, k)
				listeners++
			}
			for h, istio := range pr.DestinationRules {
				lookups++
				r := want.Rules[h]
				if istio == nil {
					require.Nil(t, r, "%s: rule of %s", at, h)
					continue
				}
				require.NotNil(t, r, "%s: rule of %s", at, h)
				require.Equal(t, istio.From, r.From, "%s: rule of %s", at, h)
				require.Equal(t, istio.Host, r.Host, "%s: rule of %s", at, h)
				require.Equal(t, nonNil(istio.Subsets), r.Subsets, "%s: rule of %s", at, h)
				if istio.TrafficPolicy == nil {
					require.Nil(t, r.TrafficPolicy, "%s: rule of %s", at, h)
				} else {
					require.JSONEq(t, `{"connectionPool":{"tcp":{"maxConnections":`+strconv.Itoa(istio.TrafficPolicy.MaxConnections)+`}}}`, string(r.TrafficPolicy), "%s: rule of %s", at, h)
				}
			}
			for h := range want.Rules {
				require.Contains(t, pr.DestinationRules, h, "%s: a rule for %s, which Istio was not asked for", at, h)
			}
			requireProxy(t, want, v.Proxy(pr.Namespace, labels.Set(pr.Labels)), "%s: the view beside the reference", at)
			proxies++
		}
	}
	t.Logf("the reference agrees with Istio on %d proxies of %d cases (%d egress listeners, %d DestinationRule lookups), and the view with the reference",
		proxies, cases, listeners, lookups)
}

// TestGatewayReferenceAgainstIstio holds the literal reference to what Istio's own gateway
// scope gave every gateway of every gateway case, and to whether and how its view changes
// when a sidecar of its namespace is scoped first; the default sidecar scope of every
// namespace to Istio's; and the view's Gateway to the reference's: a fifth of the cases by
// default, every one with MESHSCOPE_LONG=1.
func TestGatewayReferenceAgainstIstio(t *testing.T) {
	vs := loadRoutingVectors(t, "istio-gateway.json")
	gateways, differ, defaults, cases := 0, 0, 0, 0
	for i := 0; i < len(vs.Cases); i += longtest.N(5, 1) {
		cases++
		c := &vs.Cases[i]
		ref, v := c.reference(t)
		for p, gw := range c.GatewayProxies {
			at := "case " + strconv.Itoa(c.ID) + ", gateway " + strconv.Itoa(p) + " in " + gw.Namespace + " with " + labels.Set(gw.Labels).String()
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
		gateways, cases, differ, defaults)
}
