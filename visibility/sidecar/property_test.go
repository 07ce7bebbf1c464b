package sidecar

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

var (
	sidecarNamespaces = []string{"istio-system", "shop", "ext", "pay", "other"} // other has no Namespace object
	sidecarHosts      = []string{"api.example.com", "db.example.com", "*.example.com", "a.b.example.com", "*.b.example.com", "*.a.b.example.com",
		"mail.corp", "*.corp", "web.shop.svc.cluster.local", "api.pay.svc.cluster.local"}
	sidecarEgressHosts = []string{"*/*", "./*", "~/*", "*/*.example.com", "*/api.example.com", "shop/*", "ext/*", "./api.example.com",
		"shop/db.example.com", "~shop/*.example.com", "~./mail.corp", "pay/*.b.example.com", "*/mail.corp", "~*/db.example.com",
		"istio-system/*", "ext/web.shop.svc.cluster.local", "*/*.corp", "./*.svc.cluster.local", "other/api.example.com",
		"~*/web.shop.svc.cluster.local", "~/*.svc.cluster.local", "ext/api.example.com", "pay/api.example.com", "pay/db.example.com"}
	sidecarExportTo = [][]string{nil, nil, {"*"}, {"."}, {"~"}, {"shop"}, {"ext", "pay"}, {".", "other"}, {"nowhere"}, {".", "shop"}}
	// meshExportTo are mesh defaults: any list, and mixes only a mesh default may hold, which
	// releases read differently.
	meshExportTo = [][]string{{"*"}, {"."}, {"~"}, {"shop"}, {"ext", "pay"}, {".", "other"}, {".", "*"}, {".", "~"}, {"*", "shop"}, {".", "shop", "pay"}}
	// sidecarReleases are the releases (and compatibilityVersion) the random views answer as:
	// each side of every cause.
	sidecarReleases = [][2]string{{"", ""}, {"1.31", ""}, {"1.31", "1.29"}, {"1.30", ""}, {"1.30.2", ""}, {"1.30.3", "1.29"}, {"1.29", ""}, {"1.28", ""}}
	sidecarWorkload = []map[string]string{nil, {"app": "web"}, {"app": "api", "version": "v1"}}
)

// randomSidecarInventory makes a small inventory with Sidecars, VirtualServices and
// DestinationRules, and a mesh scope, that reach every step of the sidecar's view: hosts
// shared across namespaces and within one, creation-time ties, ports, labels and selectors
// that do or do not let ports merge, overlapping VirtualServices, rules that merge.
func randomSidecarInventory(r *rand.Rand) (*mesh.Config, inventory.Inventory) {
	m, inv := randomSidecarConfig(r)
	return m, *inv.Without(inv.ValidateFor(m.Release()))
}

// randomSidecarConfig is randomSidecarInventory before the objects its release refuses are
// left out.
func randomSidecarConfig(r *rand.Rand) (*mesh.Config, inventory.Inventory) {
	inv := inventory.Inventory{Namespaces: map[string]map[string]string{}}
	for _, ns := range sidecarNamespaces[:4] {
		l := istiotest.Labels(r)
		if l == nil {
			l = map[string]string{}
		}
		l[visibility.NamespaceNameLabel] = ns
		inv.Namespaces[ns] = l
	}
	t := func() time.Time { return t0.Add(time.Duration(r.IntN(6)) * time.Minute) }
	ports := func() []uint32 {
		var out []uint32
		for _, p := range []uint32{80, 443, 8080} {
			if r.IntN(2) == 0 {
				out = append(out, p)
			}
		}
		return out
	}
	for i := range 2 + r.IntN(14) {
		s := inventory.Service{Kind: inventory.Kind(r.IntN(2)), Namespace: sidecarNamespaces[r.IntN(len(sidecarNamespaces))], Name: fmt.Sprintf("s%d", i), CreationTime: t(), Ports: ports()}
		if s.Kind == inventory.KubernetesService {
			s.Name = []string{"web", "api", "db"}[r.IntN(3)] + fmt.Sprint(i%2)
			s.Hosts = []string{s.Name + "." + s.Namespace + ".svc.cluster.local"}
			if r.IntN(3) == 0 {
				s.Hosts = []string{sidecarHosts[8+r.IntN(2)]}
			}
		} else {
			for range 1 + r.IntN(2) {
				s.Hosts = append(s.Hosts, sidecarHosts[r.IntN(len(sidecarHosts))])
			}
			s.Resolution = []inventory.Resolution{"", "NONE", "DNS"}[r.IntN(3)]
		}
		s.ExportTo = sidecarExportTo[r.IntN(len(sidecarExportTo))]
		if s.Kind == inventory.ServiceEntry && visibility.ValidateExportTo(s.Namespace, s.ExportTo) != nil {
			s.ExportTo = nil // a repeat, which only a Service's annotation may hold
		}
		if r.IntN(4) == 0 {
			s.Labels = map[string]string{"tier": "a"}
		}
		if r.IntN(4) == 0 {
			s.Selector = map[string]string{"app": "x"}
		}
		if slices.ContainsFunc(inv.Services, func(o inventory.Service) bool {
			return o.Kind == s.Kind && o.Namespace == s.Namespace && o.Name == s.Name
		}) {
			continue
		}
		inv.Services = append(inv.Services, s)
	}
	for i := range r.IntN(6) {
		sc := inventory.Sidecar{Namespace: sidecarNamespaces[r.IntN(4)], Name: fmt.Sprintf("sc%d", i), CreationTime: t()}
		switch r.IntN(4) {
		case 0:
			sc.WorkloadSelector = map[string]string{"app": []string{"web", "api"}[r.IntN(2)]}
		case 1:
			sc.WorkloadSelector = map[string]string{}
		}
		for range r.IntN(3) {
			e := inventory.Egress{}
			for range 1 + r.IntN(3) {
				e.Hosts = append(e.Hosts, sidecarEgressHosts[r.IntN(len(sidecarEgressHosts))])
			}
			if r.IntN(3) == 0 {
				e.Port, e.Protocol = []uint32{80, 443, 8080}[r.IntN(3)], []string{"HTTP", "TCP", "HTTP_PROXY"}[r.IntN(3)]
			}
			sc.Egress = append(sc.Egress, e)
		}
		// Istio's validation refuses a listener without a port before another, and two
		// listeners of one port: give the others distinct ports.
		used := map[uint32]bool{}
		for k := range sc.Egress {
			e := &sc.Egress[k]
			if e.Port == 0 && k < len(sc.Egress)-1 || used[e.Port] {
				e.Port = 9000 + uint32(k)
			}
			used[e.Port] = true
		}
		inv.Sidecars = append(inv.Sidecars, sc)
	}
	m := &mesh.Config{}
	if r.IntN(3) == 0 {
		m.RootNamespace = sidecarNamespaces[r.IntN(3)]
	}
	if r.IntN(3) == 0 {
		m.DefaultServiceExportTo = meshExportTo[r.IntN(len(meshExportTo))]
	}
	if r.IntN(3) == 0 {
		m.DiscoverySelectors = []metav1.LabelSelector{*istiotest.Selector(r)}
		if r.IntN(2) == 0 {
			m.DiscoverySelectors = append(m.DiscoverySelectors, metav1.LabelSelector{MatchLabels: map[string]string{visibility.NamespaceNameLabel: sidecarNamespaces[r.IntN(5)]}})
		}
	}
	addRandomRouting(r, m, &inv)
	rel := sidecarReleases[r.IntN(len(sidecarReleases))]
	m.Istio, m.CompatibilityVersion = rel[0], rel[1]
	return m, inv
}

// TestSidecarViewAgainstReference holds Proxy, Gateway and RouteTable (ports 80, 443, 8080,
// 9000), whole, to the literal reference on random inventories (Gateway API routes among
// them), for every namespace and workload.
func TestSidecarViewAgainstReference(t *testing.T) {
	rng := newRand(61, 62)
	n := longtest.N(50, 5000)
	var c refCounts
	d := disagreements{t: t}
	vss, drs, routes := 0, 0, 0
	for i := range n {
		m, inv := randomSidecarInventory(rng)
		vss, drs, routes = vss+len(inv.VirtualServices), drs+len(inv.DestinationRules), routes+len(inv.Routes)
		cfg := istiotest.Config[visibility.Config](rng, 2)
		cfg.ApplyToSidecars = rng.IntN(2) == 0
		if rng.IntN(4) == 0 {
			cfg = nil
		}
		res, err := visibility.Compile(cfg)
		require.NoError(t, err)
		v, err := New(withVisibility(m, cfg), &inv)
		require.NoError(t, err, "inventory %d", i)
		ref := refSidecarView{res, m, inv}
		for _, ns := range append(slices.Clone(sidecarNamespaces), "nowhere") {
			require.Equal(t, ref.discovered(ns), v.Discovered(ns))
			for _, w := range sidecarWorkload {
				at := func(what string) func() string {
					return func() string {
						return fmt.Sprintf("inventory %d, %s(%s, %v):\n%s", i, what, ns, w, dumpInventory(withVisibility(m, cfg), inv))
					}
				}
				got := v.Proxy(ns, labels.Set(w))
				part, diff := proxyDiff(ref.proxy(ns, w), got)
				d.add(part, diff, at("Proxy"))
				e := explainDiff(v, inv, ns, w, got)
				if e != "" {
					d.add("ExplainHost", e, at("Proxy"))
				}
				c.sidecars.add(got, part == "")
				gw := v.Gateway(ns, labels.Set(w))
				part, diff = gatewayDiff(ref, ns, w, gw)
				if part != "" {
					d.add("gateway "+part, diff, at("Gateway"))
				}
				if e := explainDiffWith(v.ExplainGatewayHost, inv, ns, w, gw); e != "" {
					d.add("ExplainGatewayHost", e, at("Gateway"))
				}
				c.gateways.add(gw, part == "")
				for _, p := range []uint32{80, 443, 8080, 9000} {
					if want, got := ref.routeTable(ns, w, p), v.RouteTable(ns, labels.Set(w), p); !slices.Equal(want, got) {
						d.add("RouteTable", cmp.Diff(want, got), at(fmt.Sprint("RouteTable port ", p)))
					}
				}
			}
		}
	}
	t.Logf("%d random inventories (%d VirtualServices, %d DestinationRules, %d routes): %s; disagreements: %s", n, vss, drs, routes, c, &d)
}

// TestSidecarViewIgnoresInputOrder: the view of an inventory whose services, Sidecars,
// VirtualServices, DestinationRules and Gateway API routes are shuffled gives every proxy and
// gateway the same view and route tables, every explanation word for word, the same
// findings, and no difference in a dry run.
func TestSidecarViewIgnoresInputOrder(t *testing.T) {
	rng := newRand(21, 22)
	for i := range longtest.N(60, 3000) {
		m, inv := randomSidecarInventory(rng)
		v, err := New(m, &inv)
		require.NoError(t, err)
		shuffled := inv
		shuffled.Services, shuffled.Sidecars = istiotest.Shuffled(rng, inv.Services), istiotest.Shuffled(rng, inv.Sidecars)
		shuffled.VirtualServices, shuffled.DestinationRules = istiotest.Shuffled(rng, inv.VirtualServices), istiotest.Shuffled(rng, inv.DestinationRules)
		shuffled.Routes = istiotest.Shuffled(rng, inv.Routes)
		u, err := New(m, &shuffled)
		require.NoError(t, err)
		for _, ns := range sidecarNamespaces {
			for _, w := range sidecarWorkload {
				require.Equal(t, v.Proxy(ns, labels.Set(w)), u.Proxy(ns, labels.Set(w)), "inventory %d, proxy in %s with %v", i, ns, w)
				require.Equal(t, v.Gateway(ns, labels.Set(w)), u.Gateway(ns, labels.Set(w)), "inventory %d, gateway in %s with %v", i, ns, w)
				for _, p := range []uint32{80, 8080} {
					require.Equal(t, v.RouteTable(ns, labels.Set(w), p), u.RouteTable(ns, labels.Set(w), p), "inventory %d, route table %d of a proxy in %s with %v", i, p, ns, w)
				}
				for _, h := range sidecarHosts {
					require.Equal(t, v.ExplainHost(ns, labels.Set(w), h), u.ExplainHost(ns, labels.Set(w), h), "inventory %d, %s for a proxy in %s with %v", i, h, ns, w)
					require.Equal(t, v.ExplainGatewayHost(ns, labels.Set(w), h), u.ExplainGatewayHost(ns, labels.Set(w), h), "inventory %d, %s for a gateway in %s with %v", i, h, ns, w)
				}
			}
		}
		require.Equal(t, v.Lint(), u.Lint(), "inventory %d", i)
		require.Equal(t, v.LintGateways(), u.LintGateways(), "inventory %d", i)
		require.Empty(t, Diff(v, u), "inventory %d", i)
		require.Empty(t, DiffRouteStatus(v, u), "inventory %d", i)
	}
}

// TestSidecarReferenceAgainstIstio holds the literal reference itself to Istio's answers of
// the sidecar vectors (the Sidecar and the services; ref_vectors_test.go holds it to the
// routing and gateway vectors): a fifth of the cases by default, every one with
// MESHSCOPE_LONG=1.
func TestSidecarReferenceAgainstIstio(t *testing.T) {
	vs := loadSidecarVectors(t)
	step := longtest.N(5, 1)
	for i := 0; i < len(vs.Cases); i += step {
		c := &vs.Cases[i]
		if c.refusedByIstio() != "" {
			continue
		}
		r, m, inv, _ := c.view(t)
		ref := refSidecarView{r, m, inv}
		for p, pr := range c.Proxies {
			want, got := c.istioAnswer(p), ref.proxy(pr.Namespace, pr.Labels)
			require.Equal(t, want.Sidecar, got.Sidecar, "case %d, proxy %d", c.ID, p)
			require.Equal(t, want.Services, bare(got.Services), "case %d, proxy %d", c.ID, p)
		}
	}
}

// explainAgrees checks that ExplainHost answers as Proxy does for every host the proxy gets
// and for the hosts of the inventory it does not get, that every candidate has a verdict,
// and that the one it chooses is the service of the answer (none without one).
func explainAgrees(t *testing.T, v *View, inv inventory.Inventory, ns string, w map[string]string, got Proxy) {
	t.Helper()
	if d := explainDiff(v, inv, ns, w, got); d != "" {
		t.Fatal(d)
	}
}

// explainDiff is the first host whose explanation disagrees with Proxy, and how; "" when
// none does.
func explainDiff(v *View, inv inventory.Inventory, ns string, w map[string]string, got Proxy) string {
	return explainDiffWith(v.ExplainHost, inv, ns, w, got)
}

// explainDiffWith is explainDiff for the explanations explain gives (ExplainHost,
// ExplainGatewayHost) of the proxy whose view is got.
func explainDiffWith(explain func(string, labels.Set, string) Explanation, inv inventory.Inventory, ns string, w map[string]string, got Proxy) string {
	hosts := map[string]*Service{}
	for i := range got.Services {
		hosts[got.Services[i].Host] = &got.Services[i]
	}
	for _, s := range inv.Services {
		for _, h := range s.Hosts {
			if _, ok := hosts[h]; !ok {
				hosts[h] = nil
			}
		}
	}
	for _, h := range slices.Sorted(maps.Keys(hosts)) {
		want := hosts[h]
		e := explain(ns, labels.Set(w), h)
		if d := cmp.Diff(want, e.Answer); d != "" {
			return fmt.Sprintf("ExplainHost(%s, %v, %s).Answer is not what Proxy gives (-Proxy +Answer):\n%s\n%s", ns, w, h, d, e)
		}
		if d := cmp.Diff(got.Rules[h], e.Rule); d != "" {
			return fmt.Sprintf("ExplainHost(%s, %v, %s).Rule is not what Proxy gives (-Proxy +Rule):\n%s", ns, w, h, d)
		}
		if e.Sidecar != got.Sidecar {
			return fmt.Sprintf("ExplainHost(%s, %v, %s).Sidecar is %q, Proxy's %q", ns, w, h, e.Sidecar, got.Sidecar)
		}
		var chosen []inventory.ServiceRef
		for _, l := range e.Levels {
			for _, c := range l.Candidates {
				if c.Verdict == "" || c.Reason == "" {
					return fmt.Sprintf("ExplainHost(%s, %v, %s): a candidate without a verdict or reason:\n%s", ns, w, h, e)
				}
				if c.Verdict == Chosen {
					chosen = append(chosen, c.Service)
				}
			}
		}
		if want == nil && len(chosen) > 0 || want != nil && !slices.Equal(chosen, []inventory.ServiceRef{{Kind: want.Kind, Namespace: want.Namespace, Name: want.Name}}) {
			return fmt.Sprintf("ExplainHost(%s, %v, %s): the candidates chosen, %v, are not the answer %v:\n%s", ns, w, h, chosen, want, e)
		}
	}
	return ""
}

// FuzzSidecarView: whatever Load accepts, New accepts unless two objects share a kind,
// namespace and name, and every namespace's proxy and gateway get what the literal reference
// says, whole, and so do the route tables of ports 80 and 9080.
func FuzzSidecarView(f *testing.F) {
	f.Add([]byte(istiotest.SidecarList))
	f.Add([]byte(`kind: List
items:
- {kind: Namespace, metadata: {name: shop}}
- {kind: ServiceEntry, metadata: {name: a, namespace: ext, creationTimestamp: "2026-01-01T00:00:00Z"}, spec: {hosts: [api.example.com], exportTo: [shop], ports: [{number: 443}]}}
- {kind: ServiceEntry, metadata: {name: b, namespace: pay}, spec: {hosts: [api.example.com, "*.example.com"], ports: [{number: 80}]}}
- {apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop, annotations: {networking.istio.io/exportTo: "., ext"}}, spec: {ports: [{port: 80}]}}
- {kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {workloadSelector: {labels: {app: web}}, egress: [{port: {number: 80, protocol: HTTP}, hosts: ["./*"]}, {hosts: ["*/*", "~pay/*.example.com"]}]}}
- {kind: Sidecar, metadata: {name: root, namespace: istio-system}, spec: {egress: [{hosts: ["ext/api.example.com", "./*"]}]}}
`))
	f.Add([]byte(routingList))
	var bookinfo []byte // with its route
	for _, file := range []string{"testdata/bookinfo.yaml", "testdata/bookinfo-route.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		bookinfo = append(append(bookinfo, data...), "\n---\n"...)
	}
	f.Add(bookinfo)
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := inventory.Load(data, "")
		if err != nil {
			return
		}
		v, err := New(nil, inv)
		if err != nil {
			if !errors.Is(err, inventory.ErrDuplicate) {
				t.Fatalf("a loaded inventory is refused for more than a duplicate: %v", err)
			}
			return
		}
		ref := refSidecarView{inv: *inv}
		for _, ns := range v.inv.NamespaceNames() {
			for _, w := range sidecarWorkload {
				if part, diff := proxyDiff(ref.proxy(ns, w), v.Proxy(ns, labels.Set(w))); part != "" {
					t.Fatalf("Proxy(%s, %v): %s differ from the reference's: %s", ns, w, part, diff)
				}
				if part, diff := gatewayDiff(ref, ns, w, v.Gateway(ns, labels.Set(w))); part != "" {
					t.Fatalf("Gateway(%s, %v): %s differ from the reference's: %s", ns, w, part, diff)
				}
				for _, p := range []uint32{80, 9080} {
					if d := cmp.Diff(ref.routeTable(ns, w, p), v.RouteTable(ns, labels.Set(w), p)); d != "" {
						t.Fatalf("RouteTable(%s, %v, %d) differs from the reference's (-ref +view):\n%s", ns, w, p, d)
					}
				}
			}
		}
		v.Lint()
	})
}

// TestSidecarViewConcurrent: a view is safe for concurrent use (run under -race).
func TestSidecarViewConcurrent(t *testing.T) {
	vs := loadSidecarVectors(t)
	c := &vs.Cases[0]
	_, _, _, v := c.view(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for p, pr := range c.Proxies {
				if p%4 == g {
					got := v.Proxy(pr.Namespace, labels.Set(pr.Labels))
					for _, s := range got.Services {
						v.ExplainHost(pr.Namespace, labels.Set(pr.Labels), s.Host)
					}
				}
			}
			v.Lint()
		})
	}
	wg.Wait()
}
