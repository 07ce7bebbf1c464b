package sidecar

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
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
func releasesCase(t testing.TB, c *istiotest.ReleaseCase, gone map[istiotest.ObjectKey]bool) *routingCase {
	o, err := c.Objects()
	require.NoError(t, err)
	return &routingCase{Objects: o.Without(gone)}
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

// viewsFor builds the views of case c for each of runs, from its files read once.
func viewsFor(t *testing.T, c *istiotest.ReleaseCase, runs []istiotest.Run) []runView {
	newest := map[istiotest.ObjectKey]bool{}
	for _, r := range c.Results[newestRun].Rejected {
		newest[istiotest.ObjectKey{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}] = true
	}
	meshFile, invFile := vectorFiles(t, &releasesCase(t, c, newest).Objects)
	all, err := inventory.Load(invFile, "")
	require.NoError(t, err, "case %d", c.ID)
	out := make([]runView, len(runs))
	for k, run := range runs {
		at := fmt.Sprintf("case %d, %s", c.ID, run.Run)
		istio, compat := run.Release()
		m, err := mesh.LoadFor(meshFile, istio, compat)
		if res := c.Results[run.Run]; res.MeshConfigError != "" {
			require.Error(t, err, at)
			m = &mesh.Config{Istio: istio, CompatibilityVersion: compat} // istiod runs on DefaultMeshConfig
		} else {
			require.NoError(t, err, at)
		}
		refused := all.ValidateFor(m.Release())
		if len(refused) > 0 {
			_, err := New(m, all)
			require.Error(t, err, "%s: New refuses what the release refuses", at)
		}
		inv := all.Without(refused)
		v, err := New(m, inv)
		require.NoError(t, err, at)
		out[k] = runView{m, inv, refused, v}
	}
	return out
}

// TestSidecarViewAgainstReleases holds View.Proxy, built for each run's release, to what
// that release's own SidecarScope gave every proxy of every case: the Sidecar, the services,
// each listener's VirtualServices, services and routes, and the DestinationRule of each host
// (and of the lookup hosts), and ExplainHost agrees with Proxy on every host of a quarter of
// the proxies. A disagreement names the run.
//
// Then the dry run of an upgrade between two runs: Diff and DiffGateways attribute
// every change to at least one cause, each among those the two releases differ by
// (mesh.Differences); two runs that differ by none give no change. Where one of the two
// releases refuses the case's mesh configuration (and so runs on Istio's defaults), the two
// views' configurations differ, and a change may come from that alone: it need not have a
// cause.
//
// Every third case by default, with every fourth proxy's explanations and the dry runs from
// each run to the next and from the first to the last; every case, proxy and pair of runs
// with MESHSCOPE_LONG=1.
func TestSidecarViewAgainstReleases(t *testing.T) {
	f, err := istiotest.LoadReleases(releasesFile)
	require.NoError(t, err)
	step := longtest.N(3, 1)
	type count struct{ proxies, services, listeners, lookups, rules, refused int }
	counts := map[string]*count{}
	for _, run := range f.Runs {
		counts[run.Run] = &count{}
	}
	causes := map[mesh.Cause]int{}
	changes, pairs, refusedConfig := 0, 0, 0
	for i := 0; i < len(f.Cases); i += step {
		c := &f.Cases[i]
		views := viewsFor(t, c, f.Runs)
		for k, run := range f.Runs {
			t.Run(run.Run+"/case="+strconv.Itoa(c.ID), func(t *testing.T) {
				rv, res, n := views[k], c.Results[run.Run], counts[run.Run]
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
		t.Run("dry-run/case="+strconv.Itoa(c.ID), func(t *testing.T) {
			for a := range f.Runs {
				for b := a + 1; b < len(f.Runs); b++ {
					if step > 1 && b != a+1 && (a != 0 || b != len(f.Runs)-1) {
						continue // by default, each run and the next, and the first and the last
					}
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
								causes[cause]++
							}
							changes++
						}
					}
				}
			}
		})
	}
	for _, run := range f.Runs {
		n := counts[run.Run]
		t.Logf("%s, %s: %d proxies agree (%d service answers, %d egress listeners, %d DestinationRule lookups, %d with a rule); %d objects refused by the release alone",
			run.Run, longtest.Every(step), n.proxies, n.services, n.listeners, n.lookups, n.rules, n.refused)
	}
	t.Logf("the dry run between two runs of %s (%d pairs): %d changes, each explained; by cause: %v; %d more from a mesh configuration one release refuses",
		longtest.Every(step), pairs, changes, causes, refusedConfig)
	require.Positive(t, changes)
}
