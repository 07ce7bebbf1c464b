package sidecar

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// gammaCase is a case of testdata/istio-gamma.json: a routing case with Gateway API routes,
// ReferenceGrants and Gateways, and what istiod made of them.
type gammaCase struct {
	routingCase
	RouteStatus []struct {
		Route   string
		Written bool
		Parents []struct {
			ParentRef struct {
				Group, Kind, Namespace, Name, SectionName string
				Port                                      uint32
			} `json:"parentRef"`
			ControllerName string `json:"controllerName"`
			Conditions     []struct{ Type, Status, Reason, Message string }
		}
	} `json:"routeStatus"`
	IstioVirtualServices []struct {
		Key                       string
		Hosts, Gateways, ExportTo []string
		Synthetic                 bool
		Parents, CreationTime     string
		Spec                      json.RawMessage
	} `json:"istioVirtualServices"`
}

// gammaFile is the loader of testdata/istio-gamma.json.
var gammaFile = onceJSON[struct {
	Cases []gammaCase `json:"cases"`
}]("testdata/istio-gamma.json")

// loadGammaVectors reads the cases of testdata/istio-gamma.json, once, and checks that they
// are all there.
func loadGammaVectors(t testing.TB) []gammaCase {
	t.Helper()
	cases := gammaFile(t).Cases
	require.Len(t, cases, 80)
	return cases
}

// gammaLoad reads a case's files: its mesh configuration, inventory and sidecar view.
func (c *gammaCase) load(t testing.TB) (*mesh.Config, *inventory.Inventory, *View) {
	meshFile, invFile := vectorFiles(t, &c.Objects)
	_, m, inv, v := loadFiles(t, c.ID, meshFile, invFile)
	require.Len(t, inv.Routes, len(c.Routes), "case %d", c.ID)
	return m, inv, v
}

// TestGammaAgainstIstio holds the conversion of every case's routes to what istiod made of
// them: every VirtualService (name, namespace, host, gateways, exportTo under the mesh
// default, creation time, the routes behind it, and its spec, entry by entry), no other, and
// the status of every route (written or not; each parent's entry and conditions, in order).
func TestGammaAgainstIstio(t *testing.T) {
	vss, statuses, parents := 0, 0, 0
	for _, c := range loadGammaVectors(t) {
		m, inv, v := c.load(t)
		for ns := range c.Namespaces {
			require.Equal(t, slices.Contains(c.DiscoveredNamespaces, ns), v.Discovered(ns), "case %d: Discovered(%s)", c.ID, ns)
		}
		g := convertRoutes(inv, v.Discovered)
		byKey := map[string]*gammaVirtualService{}
		for k := range g.vss {
			byKey[g.vss[k].vs.Namespace+"/"+g.vss[k].vs.Name] = &g.vss[k]
		}
		want := 0
		for _, w := range c.IstioVirtualServices {
			if !w.Synthetic {
				continue
			}
			want++
			got := byKey[w.Key]
			require.NotNil(t, got, "case %d: %s", c.ID, w.Key)
			at := "case " + strconv.Itoa(c.ID) + ": " + w.Key
			require.Equal(t, w.Hosts, got.vs.Hosts, at)
			require.Equal(t, w.Gateways, got.vs.Gateways, at)
			require.Empty(t, got.vs.ExportTo, at)
			require.Equal(t, w.ExportTo, gammaEffectiveExportTo(m, got.vs.Namespace), at)
			require.Equal(t, w.CreationTime, got.vs.CreationTime.UTC().Format(time.RFC3339), at)
			require.Equal(t, w.Parents, gammaParentsAnnotation(inv, got), at)
			require.JSONEq(t, string(w.Spec), string(gammaSpecJSON(t, got)), at)
			vss++
		}
		require.Len(t, g.vss, want, "case %d: a VirtualService istiod did not make", c.ID)
		for _, w := range c.RouteStatus {
			kind, rest, _ := strings.Cut(w.Route, "/")
			ns, name, _ := strings.Cut(rest, "/")
			got, written := g.routeStatus(kind, ns, name)
			viaView, _ := v.RouteStatus(kind, ns, name)
			require.Equal(t, got, viaView, "case %d: %s", c.ID, w.Route)
			require.Equal(t, w.Written, written, "case %d: %s", c.ID, w.Route)
			require.Len(t, got.Parents, len(w.Parents), "case %d: %s", c.ID, w.Route)
			for k, p := range w.Parents {
				at := "case " + strconv.Itoa(c.ID) + ": " + w.Route + " parent " + strconv.Itoa(k)
				gp := got.Parents[k]
				require.Equal(t, "istio.io/gateway-controller", p.ControllerName, at)
				require.Equal(t, []any{p.ParentRef.Kind, p.ParentRef.Namespace, p.ParentRef.Name, p.ParentRef.Port},
					[]any{gp.Kind, gp.Namespace, gp.Name, gp.Port}, at)
				require.Len(t, gp.Conditions, len(p.Conditions), at)
				for j, cond := range p.Conditions {
					gc := gp.Conditions[j]
					require.Equal(t, []string{cond.Type, cond.Status, cond.Reason, cond.Message},
						[]string{gc.Type, string(gc.Status), gc.Reason, gc.Message}, at)
				}
				parents++
			}
			if written {
				statuses++
			}
		}
		require.Len(t, g.status, len(c.RouteStatus)-gammaUnwritten(c), "case %d", c.ID)
	}
	t.Logf("%d VirtualServices made from routes and %d route statuses (%d parent entries) agree with istiod's", vss, statuses, parents)
	require.Equal(t, 516, vss)
	require.Equal(t, 411, statuses)
	require.Equal(t, 503, parents)
}

func gammaUnwritten(c gammaCase) int {
	n := 0
	for _, s := range c.RouteStatus {
		if !s.Written {
			n++
		}
	}
	return n
}

// gammaEffectiveExportTo is where a converted VirtualService of namespace ns is exported: the
// mesh's defaultVirtualServiceExportTo ("." meaning ns), else everywhere.
func gammaEffectiveExportTo(m *mesh.Config, ns string) []string {
	if m == nil || len(m.DefaultVirtualServiceExportTo) == 0 {
		return []string{"*"}
	}
	out := slices.Clone(m.DefaultVirtualServiceExportTo)
	for i, e := range out {
		if e == "." {
			out[i] = ns
		}
	}
	return out
}

// gammaParentsAnnotation spells the routes behind a converted VirtualService as istiod's
// annotation does: "Kind/name.namespace", comma-separated.
func gammaParentsAnnotation(inv *inventory.Inventory, g *gammaVirtualService) string {
	var parts []string
	for _, i := range g.routes {
		r := &inv.Routes[i]
		parts = append(parts, string(r.Kind)+"/"+r.Name+"."+r.Namespace)
	}
	return strings.Join(parts, ",")
}

// gammaAnswers spells every answer of a conversion, with routes named rather than indexed.
func gammaAnswers(t testing.TB, inv *inventory.Inventory, g *gammaRoutes) []string {
	var out []string
	for i := range g.vss {
		v := &g.vss[i]
		out = append(out, fmt.Sprintf("%s/%s %s %v %v %s %s", v.vs.Namespace, v.vs.Name, v.vs.CreationTime, v.vs.Hosts, v.vs.Gateways,
			gammaParentsAnnotation(inv, v), gammaSpecJSON(t, v)))
		for _, e := range v.http {
			r := &inv.Routes[e.src.route]
			out = append(out, fmt.Sprintf("  %s/%s/%s rule %d match %d", r.Kind, r.Namespace, r.Name, e.src.rule, e.src.match))
		}
	}
	return append(out, fmt.Sprint(g.status))
}

// TestGammaShuffledInput: the order of the inventory's routes, services, ReferenceGrants and
// Gateways changes no answer, in the cases of the vectors (every fourth; all of them under
// MESHSCOPE_LONG).
func TestGammaShuffledInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(52002, 11))
	for _, c := range sampled(loadGammaVectors(t), 4) {
		_, inv, v := c.load(t)
		want := gammaAnswers(t, inv, convertRoutes(inv, v.Discovered))
		for range 3 {
			s := *inv
			s.Routes = istiotest.Shuffled(rng, inv.Routes)
			s.Services = istiotest.Shuffled(rng, inv.Services)
			s.ReferenceGrants = istiotest.Shuffled(rng, inv.ReferenceGrants)
			s.Gateways = istiotest.Shuffled(rng, inv.Gateways)
			require.Equal(t, want, gammaAnswers(t, &s, convertRoutes(&s, v.Discovered)), "case %d", c.ID)
		}
	}
}
