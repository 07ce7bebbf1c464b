package inventory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

// routingVectors is ../sidecar/testdata/istio-routing.json or istio-gateway.json, recorded
// from Istio's own code (istio.io/istio eed52ebb66ad, seeds 88002 and 55002): random
// configurations of ServiceEntries, Services, Sidecars, VirtualServices and
// DestinationRules, every object of which went through Istio's own validation first. The
// objects it accepted are in each case's lists; those it refused are in rejected, with the
// error it gave. Only the inputs are read here (the views hold Istio's answers).
type routingVectors struct {
	Cases []routingCase `json:"cases"`
}

type routingCase struct {
	istiotest.Objects
	Rejected []struct {
		Kind   string          `json:"kind"`
		Object json.RawMessage `json:"object"`
		Error  string          `json:"error"`
	} `json:"rejected"`
}

// routingVectorFiles are the vectors whose cases hold VirtualServices and DestinationRules
// (istio-gateway.json's are generated as istio-routing.json's), with how many cases each
// holds and how many objects of each kind Istio's validation refused.
var routingVectorFiles = []struct {
	path    string
	cases   int
	refused map[string]int
}{
	{"../sidecar/testdata/istio-routing.json", 100, map[string]int{"VirtualService": 48, "DestinationRule": 18, "ServiceEntry": 6, "Sidecar": 2}},
	{"../sidecar/testdata/istio-gateway.json", 60, map[string]int{"VirtualService": 31, "DestinationRule": 15, "ServiceEntry": 2, "Sidecar": 1}},
	{"../sidecar/testdata/istio-gamma.json", 80, map[string]int{"VirtualService": 8, "DestinationRule": 8, "ServiceEntry": 2}},
}

func loadRoutingVectors(t testing.TB, path string, cases int) routingVectors {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v routingVectors
	require.NoError(t, json.Unmarshal(data, &v))
	require.Len(t, v.Cases, cases)
	return v
}

// dump is a case's objects as `kubectl get … -A -o yaml` prints them (JSON for every third
// case).
func dump(t testing.TB, o *istiotest.Objects) []byte {
	b, err := o.Dump()
	require.NoError(t, err)
	return b
}

func marshalList(t testing.TB, items []any, asJSON bool) []byte {
	b, err := istiotest.List(items, asJSON)
	require.NoError(t, err)
	return b
}

func vectorTime(t testing.TB, s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return tm
}

// wantVirtualService is the VirtualService Load must read from the object.
func wantVirtualService(t testing.TB, vs *istiotest.VirtualService) VirtualService {
	dests := func(ds []istiotest.Destination) []Destination {
		var out []Destination
		for _, d := range ds {
			out = append(out, Destination(d))
		}
		return out
	}
	out := VirtualService{Namespace: vs.Namespace, Name: vs.Name, CreationTime: vectorTime(t, vs.CreationTime), Hosts: vs.Hosts, Gateways: vs.Gateways, ExportTo: vs.ExportTo}
	for _, h := range vs.HTTP {
		r := HTTPRoute{Route: dests(h.Route)}
		for _, m := range h.Match {
			hm := HTTPMatch{SourceNamespace: m.SourceNamespace}
			if m.URIPrefix != "" {
				hm.URI = &StringMatch{Prefix: m.URIPrefix}
			}
			r.Match = append(r.Match, hm)
		}
		if h.Mirror != nil {
			m := Destination(*h.Mirror)
			r.Mirror = &m
		}
		out.HTTP = append(out.HTTP, r)
	}
	for _, r := range vs.TCP {
		out.TCP = append(out.TCP, L4Route{Route: dests(r.Route)})
	}
	for _, r := range vs.TLS {
		out.TLS = append(out.TLS, L4Route{Route: dests(r.Route)})
	}
	return out
}

// wantDestinationRule is the DestinationRule Load must read from the object.
func wantDestinationRule(t testing.TB, dr *istiotest.DestinationRule) DestinationRule {
	out := DestinationRule{Namespace: dr.Namespace, Name: dr.Name, CreationTime: vectorTime(t, dr.CreationTime), Host: dr.Host, ExportTo: dr.ExportTo, WorkloadSelector: dr.WorkloadSelector}
	for _, s := range dr.Subsets {
		out.Subsets = append(out.Subsets, Subset{Name: s, Labels: map[string]string{"version": s}})
	}
	if dr.TrafficPolicy != nil {
		b, err := json.Marshal(dr.Policy())
		require.NoError(t, err)
		out.TrafficPolicy = b
	}
	return out
}

// TestRoutingVectorsLoad: every object Istio's validation accepted loads, each
// VirtualService and DestinationRule read as the vectors describe it, and the inventory
// validates — every third case by default (package sidecar loads them all again for its
// own vector tests), every case with MESHSCOPE_LONG=1.
func TestRoutingVectorsLoad(t *testing.T) {
	for _, f := range routingVectorFiles {
		t.Run(filepath.Base(f.path), func(t *testing.T) { testRoutingVectorsLoad(t, loadRoutingVectors(t, f.path, f.cases)) })
	}
}

func testRoutingVectorsLoad(t *testing.T, vs routingVectors) {
	objects, step := 0, longtest.N(3, 1)
	for i := 0; i < len(vs.Cases); i += step {
		c := &vs.Cases[i]
		inv, err := Load(dump(t, &c.Objects), "")
		require.NoError(t, err, "case %d", c.ID)
		require.NoError(t, inv.Validate(), "case %d", c.ID)
		require.Len(t, inv.Services, len(c.ServiceEntries)+len(c.KubernetesServices), "case %d", c.ID)
		require.Len(t, inv.Sidecars, len(c.Sidecars), "case %d", c.ID)
		require.Len(t, inv.VirtualServices, len(c.VirtualServices), "case %d", c.ID)
		require.Len(t, inv.DestinationRules, len(c.DestinationRules), "case %d", c.ID)
		for j := range c.VirtualServices {
			require.Equal(t, wantVirtualService(t, &c.VirtualServices[j]), inv.VirtualServices[j], "case %d", c.ID)
		}
		for j := range c.DestinationRules {
			want, got := wantDestinationRule(t, &c.DestinationRules[j]), inv.DestinationRules[j]
			if want.TrafficPolicy != nil {
				require.JSONEq(t, string(want.TrafficPolicy), string(got.TrafficPolicy), "case %d", c.ID)
				want.TrafficPolicy = got.TrafficPolicy
			}
			require.Equal(t, want, got, "case %d", c.ID)
		}
		objects += len(inv.Services) + len(inv.Sidecars) + len(inv.VirtualServices) + len(inv.DestinationRules)
	}
	t.Logf("%d of %d cases, %d objects Istio accepted: all load", (len(vs.Cases)+step-1)/step, len(vs.Cases), objects)
}

// TestRoutingVectorsRejected: every object Istio's validation refused, alone beside its
// namespace, is refused by Load with each of Istio's messages and no other problem, every
// problem naming that object.
func TestRoutingVectorsRejected(t *testing.T) {
	for _, f := range routingVectorFiles {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			assert.Equal(t, f.refused, testRoutingVectorsRejected(t, loadRoutingVectors(t, f.path, f.cases)))
		})
	}
}

// testRoutingVectorsRejected returns how many objects of each kind were refused.
func testRoutingVectorsRejected(t *testing.T, vs routingVectors) map[string]int {
	refused, messages := map[string]int{}, 0
	for i := range vs.Cases {
		c := &vs.Cases[i]
		for k, r := range c.Rejected {
			var one istiotest.Objects
			var list any
			switch r.Kind {
			case "ServiceEntry":
				list = &one.ServiceEntries
			case "Sidecar":
				list = &one.Sidecars
			case "VirtualService":
				list = &one.VirtualServices
			case "DestinationRule":
				list = &one.DestinationRules
			default:
				t.Fatalf("case %d: rejected %s", c.ID, r.Kind)
			}
			require.NoError(t, json.Unmarshal([]byte("["+string(r.Object)+"]"), list))
			item := one.Items()[0].(map[string]any)
			meta := item["metadata"].(map[string]any)
			ns, name := meta["namespace"].(string), meta["name"].(string)
			nsItem := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}
			_, err := Load(marshalList(t, []any{nsItem, item}, k%2 == 1), "")
			require.Error(t, err, "case %d: %s %s/%s", c.ID, r.Kind, ns, name)
			problems := istiotest.FieldErrors(t, err)
			for _, fe := range problems {
				require.Equal(t, fmt.Sprintf("items[1] (%s %s/%s)", r.Kind, ns, name), fe.Where, "case %d: %v", c.ID, err)
			}
			istio := istiotest.IstioMessages(r.Error)
			for _, m := range istio {
				assert.Contains(t, err.Error(), m, "case %d: %s %s/%s", c.ID, r.Kind, ns, name)
				messages++
			}
			assert.Len(t, problems, len(istio), "case %d: a problem for each of Istio's, and no other: %v", c.ID, err)
			refused[r.Kind]++
		}
	}
	t.Logf("refused as Istio refuses them: %v; %d of Istio's messages", refused, messages)
	return refused
}
