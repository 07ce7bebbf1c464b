package inventory

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
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
	ID             int                          `json:"id"`
	Namespaces     map[string]map[string]string `json:"namespaces"`
	ServiceEntries []vectorEntry                `json:"serviceEntries"`
	KubeServices   []struct {
		Name, Namespace, ClusterIP, CreationTime string
		ExportToAnnotation                       *string
		Ports                                    []vectorPort
	} `json:"kubernetesServices"`
	Sidecars         []vectorSidecar `json:"sidecars"`
	VirtualServices  []vectorVS      `json:"virtualServices"`
	DestinationRules []vectorDR      `json:"destinationRules"`
	Rejected         []struct {
		Kind   string          `json:"kind"`
		Object json.RawMessage `json:"object"`
		Error  string          `json:"error"`
	} `json:"rejected"`
}

type vectorPort struct {
	Number         uint32
	Name, Protocol string
}

type vectorEntry struct {
	Name, Namespace, Location, Resolution, CreationTime string
	Hosts, ExportTo                                     []string
	Ports                                               []vectorPort
}

type vectorSidecar struct {
	Name, Namespace, CreationTime string
	WorkloadSelector              map[string]string
	Egress                        []struct {
		Port  *vectorPort
		Hosts []string
	}
}

type vectorDestination struct {
	Host, Subset string
	Port         uint32
	Weight       int32
}

type vectorVS struct {
	Name, Namespace, CreationTime string
	Hosts, ExportTo, Gateways     []string
	HTTP                          []struct {
		Match []struct{ SourceNamespace, URIPrefix string }
		Route []vectorDestination
		// Mirror is the route's mirror, or nil.
		Mirror *vectorDestination
	}
	TCP []struct{ Route []vectorDestination }
	TLS []struct {
		SNIHosts []string
		Route    []vectorDestination
	}
}

type vectorDR struct {
	Name, Namespace, Host, CreationTime string
	ExportTo, Subsets                   []string
	WorkloadSelector                    map[string]string
	TrafficPolicy                       *struct{ MaxConnections int }
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

// kubectlObject is an object as `kubectl get -o yaml` prints it: apiVersion, kind, the
// metadata the API server sets, spec.
func kubectlObject(apiVersion, kind, namespace, name, created string, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name, "namespace": namespace, "creationTimestamp": created, "generation": 1,
		"resourceVersion": "4711", "uid": "0d8f1a52-1111-4a4a-8c8c-000000000001"}
	if namespace == "" {
		delete(meta, "namespace")
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	if spec != nil {
		o["spec"] = spec
	}
	return o
}

func (e *vectorEntry) object() map[string]any {
	var ports []any
	for _, p := range e.Ports {
		ports = append(ports, map[string]any{"number": p.Number, "name": p.Name, "protocol": p.Protocol})
	}
	spec := map[string]any{"hosts": e.Hosts, "ports": ports, "location": e.Location, "resolution": e.Resolution}
	if e.ExportTo != nil {
		spec["exportTo"] = e.ExportTo
	}
	return kubectlObject("networking.istio.io/v1", "ServiceEntry", e.Namespace, e.Name, e.CreationTime, spec)
}

func (sc *vectorSidecar) object() map[string]any {
	spec := map[string]any{}
	if sc.WorkloadSelector != nil {
		spec["workloadSelector"] = map[string]any{"labels": sc.WorkloadSelector}
	}
	var egress []any
	for _, e := range sc.Egress {
		l := map[string]any{"hosts": e.Hosts}
		if e.Port != nil {
			l["port"] = map[string]any{"number": e.Port.Number, "name": e.Port.Name, "protocol": e.Port.Protocol}
		}
		egress = append(egress, l)
	}
	spec["egress"] = egress
	return kubectlObject("networking.istio.io/v1", "Sidecar", sc.Namespace, sc.Name, sc.CreationTime, spec)
}

// destinations spells route destinations: {destination: {host, subset, port: {number}},
// weight}, unset fields left out.
func destinations(ds []vectorDestination) []any {
	var out []any
	for _, d := range ds {
		item := map[string]any{"destination": d.object()}
		if d.Weight != 0 {
			item["weight"] = d.Weight
		}
		out = append(out, item)
	}
	return out
}

func (d *vectorDestination) object() map[string]any {
	o := map[string]any{"host": d.Host}
	if d.Subset != "" {
		o["subset"] = d.Subset
	}
	if d.Port != 0 {
		o["port"] = map[string]any{"number": d.Port}
	}
	return o
}

func (vs *vectorVS) object() map[string]any {
	spec := map[string]any{"hosts": vs.Hosts}
	if vs.ExportTo != nil {
		spec["exportTo"] = vs.ExportTo
	}
	if vs.Gateways != nil {
		spec["gateways"] = vs.Gateways
	}
	var http, tcp, tls []any
	for _, h := range vs.HTTP {
		r := map[string]any{"route": destinations(h.Route)}
		var match []any
		for _, m := range h.Match {
			mo := map[string]any{}
			if m.SourceNamespace != "" {
				mo["sourceNamespace"] = m.SourceNamespace
			}
			if m.URIPrefix != "" {
				mo["uri"] = map[string]any{"prefix": m.URIPrefix}
			}
			match = append(match, mo)
		}
		if match != nil {
			r["match"] = match
		}
		if h.Mirror != nil {
			r["mirror"] = h.Mirror.object()
		}
		http = append(http, r)
	}
	for _, r := range vs.TCP {
		tcp = append(tcp, map[string]any{"route": destinations(r.Route)})
	}
	for _, r := range vs.TLS {
		tls = append(tls, map[string]any{"match": []any{map[string]any{"sniHosts": r.SNIHosts}}, "route": destinations(r.Route)})
	}
	for k, l := range map[string][]any{"http": http, "tcp": tcp, "tls": tls} {
		if l != nil {
			spec[k] = l
		}
	}
	return kubectlObject("networking.istio.io/v1", "VirtualService", vs.Namespace, vs.Name, vs.CreationTime, spec)
}

// policy is the traffic policy the vectors mark a DestinationRule with.
func (dr *vectorDR) policy() map[string]any {
	return map[string]any{"connectionPool": map[string]any{"tcp": map[string]any{"maxConnections": dr.TrafficPolicy.MaxConnections}}}
}

func (dr *vectorDR) object() map[string]any {
	spec := map[string]any{"host": dr.Host}
	if dr.ExportTo != nil {
		spec["exportTo"] = dr.ExportTo
	}
	if dr.WorkloadSelector != nil {
		spec["workloadSelector"] = map[string]any{"matchLabels": dr.WorkloadSelector}
	}
	var subsets []any
	for _, s := range dr.Subsets {
		subsets = append(subsets, map[string]any{"name": s, "labels": map[string]any{"version": s}})
	}
	if subsets != nil {
		spec["subsets"] = subsets
	}
	if dr.TrafficPolicy != nil {
		spec["trafficPolicy"] = dr.policy()
	}
	return kubectlObject("networking.istio.io/v1", "DestinationRule", dr.Namespace, dr.Name, dr.CreationTime, spec)
}

// dump is a case's accepted objects as `kubectl get … -A -o yaml` prints them (JSON for
// every third case).
func (c *routingCase) dump(t testing.TB) []byte {
	var items []any
	for _, ns := range slices.Sorted(maps.Keys(c.Namespaces)) {
		items = append(items, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns, "labels": c.Namespaces[ns]},
			"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}})
	}
	for i := range c.ServiceEntries {
		items = append(items, c.ServiceEntries[i].object())
	}
	for _, s := range c.KubeServices {
		var ports []any
		for _, p := range s.Ports {
			ports = append(ports, map[string]any{"name": p.Name, "port": p.Number, "protocol": "TCP", "targetPort": p.Number})
		}
		o := kubectlObject("v1", "Service", s.Namespace, s.Name, s.CreationTime, map[string]any{"type": "ClusterIP", "clusterIP": s.ClusterIP, "clusterIPs": []any{s.ClusterIP}, "ports": ports})
		if s.ExportToAnnotation != nil {
			o["metadata"].(map[string]any)["annotations"] = map[string]any{exportToAnnotation: *s.ExportToAnnotation}
		}
		items = append(items, o)
	}
	for i := range c.Sidecars {
		items = append(items, c.Sidecars[i].object())
	}
	for i := range c.VirtualServices {
		items = append(items, c.VirtualServices[i].object())
	}
	for i := range c.DestinationRules {
		items = append(items, c.DestinationRules[i].object())
	}
	return marshalList(t, items, c.ID%3 == 2)
}

func marshalList(t testing.TB, items []any, asJSON bool) []byte {
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
	var b []byte
	var err error
	if asJSON {
		b, err = json.MarshalIndent(list, "", "    ")
	} else {
		b, err = yaml.Marshal(list)
	}
	require.NoError(t, err)
	return b
}

func vectorTime(t testing.TB, s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return tm
}

// want is the VirtualService Load must read from the object.
func (vs *vectorVS) want(t testing.TB) VirtualService {
	dests := func(ds []vectorDestination) []Destination {
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

// want is the DestinationRule Load must read from the object.
func (dr *vectorDR) want(t testing.TB) DestinationRule {
	out := DestinationRule{Namespace: dr.Namespace, Name: dr.Name, CreationTime: vectorTime(t, dr.CreationTime), Host: dr.Host, ExportTo: dr.ExportTo, WorkloadSelector: dr.WorkloadSelector}
	for _, s := range dr.Subsets {
		out.Subsets = append(out.Subsets, Subset{Name: s, Labels: map[string]string{"version": s}})
	}
	if dr.TrafficPolicy != nil {
		b, err := json.Marshal(dr.policy())
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
		inv, err := Load(c.dump(t), "")
		require.NoError(t, err, "case %d", c.ID)
		require.NoError(t, inv.Validate(), "case %d", c.ID)
		require.Len(t, inv.Services, len(c.ServiceEntries)+len(c.KubeServices), "case %d", c.ID)
		require.Len(t, inv.Sidecars, len(c.Sidecars), "case %d", c.ID)
		require.Len(t, inv.VirtualServices, len(c.VirtualServices), "case %d", c.ID)
		require.Len(t, inv.DestinationRules, len(c.DestinationRules), "case %d", c.ID)
		for j := range c.VirtualServices {
			require.Equal(t, c.VirtualServices[j].want(t), inv.VirtualServices[j], "case %d", c.ID)
		}
		for j := range c.DestinationRules {
			want, got := c.DestinationRules[j].want(t), inv.DestinationRules[j]
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

// istioMessages splits an error of Istio's validation into its messages: one, or several
// as hashicorp/go-multierror lists them ("2 errors occurred:\n\t* A\n\t* B\n\n").
func istioMessages(s string) []string {
	if !strings.Contains(s, "\n\t* ") {
		return []string{s}
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if m, ok := strings.CutPrefix(line, "\t* "); ok {
			out = append(out, m)
		}
	}
	return out
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
			var item map[string]any
			var ns, name string
			switch r.Kind {
			case "ServiceEntry":
				var e vectorEntry
				require.NoError(t, json.Unmarshal(r.Object, &e))
				item, ns, name = e.object(), e.Namespace, e.Name
			case "Sidecar":
				var sc vectorSidecar
				require.NoError(t, json.Unmarshal(r.Object, &sc))
				item, ns, name = sc.object(), sc.Namespace, sc.Name
			case "VirtualService":
				var v vectorVS
				require.NoError(t, json.Unmarshal(r.Object, &v))
				item, ns, name = v.object(), v.Namespace, v.Name
			case "DestinationRule":
				var d vectorDR
				require.NoError(t, json.Unmarshal(r.Object, &d))
				item, ns, name = d.object(), d.Namespace, d.Name
			default:
				t.Fatalf("case %d: rejected %s", c.ID, r.Kind)
			}
			nsItem := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}
			_, err := Load(marshalList(t, []any{nsItem, item}, k%2 == 1), "")
			require.Error(t, err, "case %d: %s %s/%s", c.ID, r.Kind, ns, name)
			problems := fieldErrors(t, err)
			for _, fe := range problems {
				require.Equal(t, fmt.Sprintf("items[1] (%s %s/%s)", r.Kind, ns, name), fe.Where, "case %d: %v", c.ID, err)
			}
			istio := istioMessages(r.Error)
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
