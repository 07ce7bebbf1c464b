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

	"github.com/meshscope/meshscope/internal/istiotest"
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
	istiotest.Objects
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

// onceJSON returns the loader of the recording at path, a T: it reads and decodes the file
// on its first call, once for all the tests that hold the view to it.
func onceJSON[T any](path string) func(testing.TB) T {
	read := sync.OnceValues(func() (T, error) {
		var v T
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &v)
		}
		return v, err
	})
	return func(t testing.TB) T {
		t.Helper()
		v, err := read()
		require.NoError(t, err)
		return v
	}
}

// loadSidecarVectors reads testdata/istio-sidecar.json, once.
var loadSidecarVectors = onceJSON[sidecarVectors]("testdata/istio-sidecar.json")

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

// vectorFiles spells a case as a user has it: its mesh file and its inventory.
func vectorFiles(t testing.TB, o *istiotest.Objects) (meshFile, invFile []byte) {
	meshFile, err := o.MeshFile()
	require.NoError(t, err, "case %d", o.ID)
	invFile, err = o.Dump()
	require.NoError(t, err, "case %d", o.ID)
	return meshFile, invFile
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
	meshFile, invFile := vectorFiles(t, &c.Objects)
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
			_, invFile := vectorFiles(t, &c.Objects)
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
