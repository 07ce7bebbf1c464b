package sidecar

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// sidecarVectors is testdata/istio-sidecar.json: configurations and what Istio's own code gave
// each proxy (see testdata/README.md).
type sidecarVectors struct {
	Seed     int            `json:"seed"`
	Features map[string]any `json:"features"`
	Cases    []sidecarCase  `json:"cases"`
}

type sidecarCase struct {
	vectorInventory
	Sidecars []struct {
		Name, Namespace, CreationTime string
		WorkloadSelector              map[string]string
		Egress                        []struct{ Hosts []string }
	} `json:"sidecars"`
	DiscoveredNamespaces []string `json:"discoveredNamespaces"`
	Proxies              []struct {
		Namespace string
		Labels    map[string]string
		Sidecar   string
		Services  map[string]struct {
			Namespace, Registry, Object string
			Ports                       []uint32
		}
	} `json:"proxies"`
}

type vectorPort struct {
	Number   uint32 `json:"number"`
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
}

var (
	vectorsOnce sync.Once
	vectors     sidecarVectors
	vectorsErr  error
)

func loadSidecarVectors(t testing.TB) sidecarVectors {
	vectorsOnce.Do(func() {
		data, err := os.ReadFile("testdata/istio-sidecar.json")
		if err == nil {
			err = json.Unmarshal(data, &vectors)
		}
		vectorsErr = err
	})
	require.NoError(t, vectorsErr)
	return vectors
}

// refusedByIstio says why Istio's validation refuses an object of a case, so that no cluster
// holds it: a ServiceEntry whose exportTo gives an entry twice ("." and the own namespace
// count as one), or a Sidecar with an egress listener without a port that is not the last
// (these vectors' listeners have no port). "" when it refuses none.
func (c *sidecarCase) refusedByIstio() string {
	for _, se := range c.ServiceEntries {
		seen := map[string]bool{}
		for _, e := range se.ExportTo {
			if e == "." {
				e = se.Namespace
			}
			if seen[e] {
				return "exportTo"
			}
			seen[e] = true
		}
	}
	for _, sc := range c.Sidecars {
		if len(sc.Egress) > 1 {
			return "listeners"
		}
	}
	return ""
}

// vectorInventory is what every Istio vector case holds: its mesh configuration, namespaces,
// ServiceEntries and Kubernetes Services.
type vectorInventory struct {
	ID             int                          `json:"id"`
	MeshConfig     map[string]any               `json:"meshConfig"`
	Namespaces     map[string]map[string]string `json:"namespaces"`
	ServiceEntries []struct {
		Name, Namespace, Location, Resolution, CreationTime string
		Hosts, ExportTo                                     []string
		Ports                                               []vectorPort
	} `json:"serviceEntries"`
	KubernetesServices []struct {
		Name, Namespace, ClusterIP, CreationTime string
		ExportToAnnotation                       *string
		Ports                                    []vectorPort
	} `json:"kubernetesServices"`
}

// meshFile spells a case's mesh configuration as a user has it: an IstioOperator, the istio
// ConfigMap or Helm values (by case).
func (c *vectorInventory) meshFile(t testing.TB) []byte {
	var meshDoc any
	switch c.ID % 3 {
	case 0:
		meshDoc = map[string]any{"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator", "metadata": map[string]any{"name": "istio", "namespace": "istio-system"},
			"spec": map[string]any{"meshConfig": c.MeshConfig}}
	case 1:
		m, err := yaml.Marshal(c.MeshConfig)
		require.NoError(t, err)
		meshDoc = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "istio", "namespace": "istio-system"}, "data": map[string]any{"mesh": string(m)}}
	default:
		meshDoc = map[string]any{"values": map[string]any{"meshConfig": c.MeshConfig}}
	}
	out, err := yaml.Marshal(meshDoc)
	require.NoError(t, err)
	return out
}

// items spells a case's namespaces, ServiceEntries and Services as kubectl prints them.
func (c *vectorInventory) items() []any {
	var items []any
	for _, ns := range slices.Sorted(maps.Keys(c.Namespaces)) {
		items = append(items, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns, "labels": c.Namespaces[ns]}})
	}
	for _, se := range c.ServiceEntries {
		spec := map[string]any{"hosts": se.Hosts, "ports": vectorPorts(se.Ports, "number"), "location": se.Location, "resolution": se.Resolution}
		if se.ExportTo != nil {
			spec["exportTo"] = se.ExportTo
		}
		items = append(items, map[string]any{"apiVersion": "networking.istio.io/v1", "kind": "ServiceEntry", "metadata": vectorMeta(se.Name, se.Namespace, se.CreationTime), "spec": spec})
	}
	for _, s := range c.KubernetesServices {
		m := vectorMeta(s.Name, s.Namespace, s.CreationTime)
		if s.ExportToAnnotation != nil {
			m["annotations"] = map[string]any{exportToAnnotation: *s.ExportToAnnotation}
		}
		tcp := vectorPorts(s.Ports, "port")
		for _, p := range tcp {
			p.(map[string]any)["protocol"] = "TCP"
		}
		items = append(items, map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": m, "spec": map[string]any{"type": "ClusterIP", "clusterIP": s.ClusterIP, "ports": tcp}})
	}
	return items
}

// list prints a case's objects as `kubectl get -o yaml` does (every third case as `-o json`).
func (c *vectorInventory) list(t testing.TB, items []any) []byte {
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	var out []byte
	var err error
	if c.ID%3 == 2 {
		out, err = json.MarshalIndent(list, "", "    ")
	} else {
		out, err = yaml.Marshal(list)
	}
	require.NoError(t, err)
	return out
}

func vectorMeta(name, namespace, created string) map[string]any {
	return map[string]any{"name": name, "namespace": namespace, "creationTimestamp": created}
}

func vectorPorts(ps []vectorPort, key string) []any {
	var out []any
	for _, p := range ps {
		out = append(out, map[string]any{key: p.Number, "name": p.Name, "protocol": p.Protocol})
	}
	return out
}

// files spells a case as a user has it: its mesh file and its inventory.
func (c *sidecarCase) files(t testing.TB) (meshFile, invFile []byte) {
	items := c.items()
	for _, sc := range c.Sidecars {
		spec := map[string]any{}
		if sc.WorkloadSelector != nil {
			spec["workloadSelector"] = map[string]any{"labels": sc.WorkloadSelector}
		}
		var egress []any
		for _, e := range sc.Egress {
			egress = append(egress, map[string]any{"hosts": e.Hosts})
		}
		spec["egress"] = egress
		items = append(items, map[string]any{"apiVersion": "networking.istio.io/v1", "kind": "Sidecar", "metadata": vectorMeta(sc.Name, sc.Namespace, sc.CreationTime), "spec": spec})
	}
	return c.meshFile(t), c.list(t, items)
}

// loadFiles reads a case's files as a user's would be read — mesh.Load, visibility.Compile of
// its policies and inventory.Load — and builds the sidecar view.
func loadFiles(t testing.TB, id int, meshFile, invFile []byte) (*visibility.Resolver, *mesh.Config, *inventory.Inventory, *View) {
	m, err := mesh.Load(meshFile)
	require.NoError(t, err, "case %d", id)
	r, err := visibility.Compile(m.Visibility)
	require.NoError(t, err, "case %d", id)
	inv, err := inventory.Load(invFile, "")
	require.NoError(t, err, "case %d", id)
	v, err := New(m, inv)
	require.NoError(t, err, "case %d", id)
	return r, m, inv, v
}

// view reads a case's files and builds its sidecar view.
func (c *sidecarCase) view(t testing.TB) (*visibility.Resolver, *mesh.Config, inventory.Inventory, *View) {
	meshFile, invFile := c.files(t)
	r, m, inv, v := loadFiles(t, c.ID, meshFile, invFile)
	return r, m, *inv, v
}

// istioAnswer is a proxy's expected view, in the shape Proxy returns.
func (c *sidecarCase) istioAnswer(p int) Proxy {
	pr := c.Proxies[p]
	want := Proxy{Sidecar: pr.Sidecar, Services: []Service{}}
	for _, h := range slices.Sorted(maps.Keys(pr.Services)) {
		s := pr.Services[h]
		k := inventory.ServiceEntry
		if s.Registry == "Kubernetes" {
			k = inventory.KubernetesService
		}
		want.Services = append(want.Services, Service{Host: h, Kind: k, Namespace: s.Namespace, Name: s.Object, Ports: sortedPorts(s.Ports)})
	}
	return want
}

// TestSidecarViewAgainstIstio holds View to what Istio's own SidecarScope gave every
// proxy of every case, through the loaders: every proxy must agree.
func TestSidecarViewAgainstIstio(t *testing.T) {
	vs := loadSidecarVectors(t)
	proxies, answers := 0, 0
	skipped := map[string]int{}
	for i := range vs.Cases {
		c := &vs.Cases[i]
		if why := c.refusedByIstio(); why != "" {
			// Istio's validation refuses such a ServiceEntry or Sidecar, and so does
			// meshscope, in Istio's words: the skip is pinned, not assumed.
			_, invFile := c.files(t)
			_, err := inventory.Load(invFile, "")
			require.Error(t, err, "case %d: Istio's validation refuses an object of it", c.ID)
			switch why {
			case "exportTo":
				require.Regexp(t, `\(ServiceEntry [^)]*\): spec\.exportTo\[\d+\]: duplicate entries in exportTo`, err.Error(), "case %d", c.ID)
			default:
				require.Regexp(t, `\(Sidecar [^)]*\): spec\.egress\[\d+\]: sidecar: the egress listener with empty port should be the last listener in the list`, err.Error(), "case %d", c.ID)
			}
			skipped[why]++
			continue
		}
		_, _, inv, v := c.view(t)
		for ns := range c.Namespaces {
			require.Equal(t, slices.Contains(c.DiscoveredNamespaces, ns), v.Discovered(ns), "case %d: Discovered(%s)", c.ID, ns)
		}
		for p, pr := range c.Proxies {
			want := c.istioAnswer(p)
			got := v.Proxy(pr.Namespace, labels.Set(pr.Labels))
			require.Equal(t, want.Sidecar, got.Sidecar, "case %d, proxy %d in %s with %v", c.ID, p, pr.Namespace, pr.Labels)
			require.Equal(t, want.Services, bare(got.Services), "case %d, proxy %d in %s with %v", c.ID, p, pr.Namespace, pr.Labels)
			if p%longtest.N(4, 1) == 0 { // ExplainHost for every host of a quarter of the proxies; all with MESHSCOPE_LONG=1
				explainAgrees(t, v, inv, pr.Namespace, pr.Labels, got)
			}
			proxies++
			answers += len(want.Services)
		}
	}
	t.Logf("%d proxies (%d answers) of %d cases agree with Istio; skipped, as Istio's validation refuses an object of them: %d cases (a ServiceEntry exportTo giving an entry twice), %d (a Sidecar listener without a port before another)",
		proxies, answers, len(vs.Cases)-skipped["exportTo"]-skipped["listeners"], skipped["exportTo"], skipped["listeners"])
	require.Positive(t, proxies)
}
