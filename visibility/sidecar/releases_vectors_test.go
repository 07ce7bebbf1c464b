package sidecar

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/releasevectors"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// releasesFile is the recording of the same configurations through several Istio releases,
// shared with the other views' tests (../testdata/README.md).
const releasesFile = "../testdata/istio-releases.json"

// newestRun is the run of istio-releases.json whose validation inventory.Load holds an
// inventory to: the 1.31 build.
const newestRun = "eed52ebb66ad"

// releasesCase is a case of istio-releases.json as a routing case (its objects, every one
// generated, but those of gone), without its answers, which are per run.
func releasesCase(t testing.TB, c *releasevectors.Case, gone map[[3]string]bool) *routingCase {
	rc := &routingCase{vectorInventory: vectorInventory{ID: c.ID, Namespaces: c.Namespaces}}
	require.NoError(t, json.Unmarshal(c.MeshConfig, &rc.MeshConfig), "case %d", c.ID)
	for _, f := range []struct {
		kind string
		raw  json.RawMessage
		dst  any
	}{{"ServiceEntry", c.ServiceEntries, &rc.ServiceEntries}, {"Service", c.KubernetesServices, &rc.KubernetesServices},
		{"Sidecar", c.Sidecars, &rc.Sidecars}, {"VirtualService", c.VirtualServices, &rc.VirtualServices}, {"DestinationRule", c.DestinationRules, &rc.DestinationRules}} {
		var objs []map[string]any
		require.NoError(t, json.Unmarshal(f.raw, &objs), "case %d", c.ID)
		objs = slices.DeleteFunc(objs, func(o map[string]any) bool {
			return gone[[3]string{f.kind, o["namespace"].(string), o["name"].(string)}]
		})
		raw, err := json.Marshal(objs)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, f.dst), "case %d", c.ID)
	}
	return rc
}

// runView is a case's view as a run's release gives it: the mesh configuration the release
// runs on (Istio's defaults when it refuses the case's), the inventory without what its
// validation refuses — the newest release's refusals left out before loading, as Load
// refuses them, and the release's own through ValidateFor and Without, as a caller comparing
// releases does.
type runView struct {
	m       *mesh.Config
	inv     *inventory.Inventory
	refused []inventory.Refusal
	v       *View
}

// viewFor builds the view of case c for run.
func viewFor(t testing.TB, c *releasevectors.Case, run releasevectors.Run) runView {
	at := fmt.Sprintf("case %d, %s", c.ID, run.Run)
	newest := map[[3]string]bool{}
	for _, r := range c.Results[newestRun].Rejected {
		newest[[3]string{r.Kind, r.Namespace, r.Name}] = true
	}
	rc := releasesCase(t, c, newest)
	istio, compat := run.Release()
	meshFile, invFile := rc.files(t)
	m, err := mesh.LoadFor(meshFile, istio, compat)
	if res := c.Results[run.Run]; res.MeshConfigError != "" {
		require.Error(t, err, at)
		m = &mesh.Config{Istio: istio, CompatibilityVersion: compat} // istiod runs on DefaultMeshConfig
	} else {
		require.NoError(t, err, at)
	}
	inv, err := inventory.Load(invFile, "")
	require.NoError(t, err, at)
	refused := inv.ValidateFor(m.Release())
	if len(refused) > 0 {
		_, err := New(m, inv)
		require.Error(t, err, "%s: New refuses what the release refuses", at)
	}
	inv = inv.Without(refused)
	v, err := New(m, inv)
	require.NoError(t, err, at)
	return runView{m, inv, refused, v}
}

// TestSidecarViewAgainstReleases holds View.Proxy, built for each run's release, to what
// that release's own SidecarScope gave every proxy of every case: the Sidecar, the services,
// each listener's VirtualServices, services and routes, and the DestinationRule of each host
// (and of the lookup hosts), and ExplainHost agrees with Proxy on every host of a quarter of
// the proxies. A disagreement names the run. Every third case by default (and every proxy's
// explanations), every case with MESHSCOPE_LONG=1.
func TestSidecarViewAgainstReleases(t *testing.T) {
	f, err := releasevectors.Load(releasesFile)
	require.NoError(t, err)
	step := longtest.N(3, 1)
	type count struct{ proxies, services, listeners, lookups, rules, refused int }
	counts := map[string]*count{}
	for _, run := range f.Runs {
		counts[run.Run] = &count{}
	}
	for i := 0; i < len(f.Cases); i += step {
		c := &f.Cases[i]
		for _, run := range f.Runs {
			t.Run(run.Run+"/case="+strconv.Itoa(c.ID), func(t *testing.T) {
				rv := viewFor(t, c, run)
				res := c.Results[run.Run]
				n := counts[run.Run]
				n.refused += len(rv.refused)
				for ns := range c.Namespaces {
					require.Equal(t, slices.Contains(res.DiscoveredNamespaces, ns), rv.v.Discovered(ns), "Discovered(%s)", ns)
				}
				for p, raw := range res.Proxies {
					var pr routingProxy
					require.NoError(t, json.Unmarshal(raw, &pr))
					at := fmt.Sprintf("%s: case %d, proxy %d in %s with %s", run.Run, c.ID, p, pr.Namespace, labels.Set(pr.Labels))
					got := rv.v.Proxy(pr.Namespace, labels.Set(pr.Labels))
					l, k, r := requireIstioProxy(t, &pr, got, at)
					if p%longtest.N(4, 1) == 0 {
						explainAgrees(t, rv.v, *rv.inv, pr.Namespace, pr.Labels, got)
					}
					n.proxies++
					n.services += len(pr.Services)
					n.listeners, n.lookups, n.rules = n.listeners+l, n.lookups+k, n.rules+r
				}
			})
		}
	}
	for _, run := range f.Runs {
		n := counts[run.Run]
		t.Logf("%s, %s: %d proxies agree (%d service answers, %d egress listeners, %d DestinationRule lookups, %d with a rule); %d objects refused by the release alone",
			run.Run, longtest.Every(step), n.proxies, n.services, n.listeners, n.lookups, n.rules, n.refused)
	}
}

// TestDiffAgainstReleases is the dry run of an upgrade over the recording: for every case and
// every two runs, Diff and DiffGateways between the two runs' views attribute every change to
// at least one cause, each among those the two releases differ by (mesh.Differences); two
// runs that differ by none give no change. Where one of the two releases refuses the case's
// mesh configuration (and so runs on Istio's defaults), the two views' configurations differ,
// and a change may come from that alone: it need not have a cause. Every third case by
// default, every case with MESHSCOPE_LONG=1.
func TestDiffAgainstReleases(t *testing.T) {
	f, err := releasevectors.Load(releasesFile)
	require.NoError(t, err)
	step := longtest.N(3, 1)
	counts := map[mesh.Cause]int{}
	changes, pairs, refusedConfig := 0, 0, 0
	for i := 0; i < len(f.Cases); i += step {
		c := &f.Cases[i]
		views := make([]runView, len(f.Runs))
		for k, run := range f.Runs {
			views[k] = viewFor(t, c, run)
		}
		for a := range f.Runs {
			for b := a + 1; b < len(f.Runs); b++ {
				pairs++
				differ := mesh.Differences(views[a].v.Release(), views[b].v.Release())
				sameConfig := (c.Results[f.Runs[a].Run].MeshConfigError == "") == (c.Results[f.Runs[b].Run].MeshConfigError == "")
				for kind, d := range map[string]func(x, y *View) []Change{"Diff": Diff, "DiffGateways": DiffGateways} {
					for _, ch := range d(views[a].v, views[b].v) {
						at := fmt.Sprintf("case %d, %s from %s to %s: %+v", c.ID, kind, f.Runs[a].Run, f.Runs[b].Run, ch.Key)
						if !sameConfig && len(ch.Causes) == 0 {
							refusedConfig++
							continue
						}
						require.NotEmpty(t, ch.Causes, "%s: a change no cause explains (the releases differ by %v)", at, differ)
						for _, cause := range ch.Causes {
							require.Contains(t, differ, cause, at)
							counts[cause]++
						}
						changes++
					}
				}
			}
		}
	}
	t.Logf("%s, %d pairs of runs: %d changes, each explained; by cause: %v; %d more from a mesh configuration one release refuses", longtest.Every(step), pairs, changes, counts, refusedConfig)
	require.Positive(t, changes)
}
