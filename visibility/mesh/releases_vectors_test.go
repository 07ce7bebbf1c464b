package mesh

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/report"
)

// releasesFile is the recording of the same configurations through several Istio releases,
// shared with the other views' tests (../testdata/README.md).
const releasesFile = "../testdata/istio-releases.json"

// installShapes write a case's mesh configuration, release and compatibilityVersion in the
// places an install writes them, each read by Load (or, for the istio ConfigMap, which names
// no release, by LoadFor).
var installShapes = []struct {
	name string
	doc  func(mc any, istio, compat string) (any, bool) // the document, and whether LoadFor must name the release
}{
	{"IstioOperator spec.tag", func(mc any, istio, compat string) (any, bool) {
		spec := map[string]any{"tag": istio, "meshConfig": mc}
		if compat != "" {
			spec["compatibilityVersion"] = compat
		}
		return map[string]any{"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator", "spec": spec}, false
	}},
	{"IstioOperator components.pilot.tag, distroless", func(mc any, istio, compat string) (any, bool) {
		values := map[string]any{}
		if compat != "" {
			values["compatibilityVersion"] = compat
		}
		spec := map[string]any{"tag": "latest", "components": map[string]any{"pilot": map[string]any{"tag": istio + "-distroless"}}, "values": values, "meshConfig": mc}
		return map[string]any{"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator", "spec": spec}, false
	}},
	{"Helm values global.tag", func(mc any, istio, compat string) (any, bool) {
		doc := map[string]any{"global": map[string]any{"tag": istio, "hub": "docker.io/istio"}, "meshConfig": mc}
		if compat != "" {
			doc["compatibilityVersion"] = compat
		}
		return doc, false
	}},
	{"Helm values tag", func(mc any, istio, compat string) (any, bool) {
		doc := map[string]any{"tag": istio, "global": map[string]any{"tag": "1.27.0"}, "meshConfig": mc}
		if compat != "" {
			doc["compatibilityVersion"] = compat
		}
		return doc, false
	}},
	{"istio ConfigMap", func(mc any, _, _ string) (any, bool) {
		mesh, err := yaml.Marshal(mc)
		if err != nil {
			panic(err)
		}
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "istio", "namespace": "istio-system"}, "data": map[string]any{"mesh": string(mesh)}}, true
	}},
}

// TestMeshConfigAgainstReleases holds Load to what each recorded release did with each
// case's mesh configuration: refused by Istio (meshConfigError) ⇔ refused by Load, with
// Istio's words; accepted with a field the release ignores (meshConfigIgnoredFields, what
// its strict decode said) ⇔ accepted with an IgnoredByRelease finding saying so; and the
// release, compatibilityVersion and flag Load reads are those the run ran with.
// meshscope's deliberate strictness (unknown fields) would show as a refusal Istio does not
// make; the recorded configurations hold none, which the test checks. Every third case by
// default (each file written as JSON, every fifth as YAML), every case with MESHSCOPE_LONG=1.
func TestMeshConfigAgainstReleases(t *testing.T) {
	f, err := istiotest.LoadReleases(releasesFile)
	require.NoError(t, err)
	require.Len(t, f.Runs, 7)
	require.Len(t, f.Cases, 100)
	counts, step := map[string]int{}, longtest.N(3, 1)
	for i := 0; i < len(f.Cases); i += step {
		c := &f.Cases[i]
		var mc any
		require.NoError(t, json.Unmarshal(c.MeshConfig, &mc))
		for k, run := range f.Runs {
			r, ok := c.Results[run.Run]
			require.True(t, ok, "case %d: no result of %s", c.ID, run.Run)
			shape := installShapes[(c.ID+k)%len(installShapes)]
			istio, compat := run.Release()
			doc, named := shape.doc(mc, istio, compat)
			data, err := json.Marshal(doc)
			if (c.ID+k)%5 == 0 {
				data, err = yaml.Marshal(doc)
			}
			require.NoError(t, err)
			at := fmt.Sprintf("case %d, %s, %s", c.ID, run.Run, shape.name)
			var m *Config
			if named {
				m, err = LoadFor(data, istio, compat)
			} else {
				m, err = Load(data)
			}
			counts[checkMeshResult(t, at, r, m, err)]++
			if m != nil {
				checkRunRelease(t, at, run, m)
			}
		}
	}
	t.Logf("%s, %d runs each: %v", longtest.Every(step), len(f.Runs), counts)
	if step > 1 {
		return
	}
	assert.Equal(t, map[string]int{"refused as Istio refuses it": 33, "accepted, serviceEntryVisibility ignored as Istio ignores it": 172, "accepted": 495}, counts,
		"no case holds an unknown field, so no deliberate difference (refused by meshscope only) is counted")
}

// checkMeshResult holds one Load to one recorded result, returning its class.
func checkMeshResult(t *testing.T, at string, r istiotest.Result, m *Config, err error) string {
	t.Helper()
	if r.MeshConfigError != "" {
		require.Error(t, err, at)
		assert.Contains(t, err.Error(), r.MeshConfigError, at)
		assert.Contains(t, err.Error(), "istiod then runs on DefaultMeshConfig", at)
		return "refused as Istio refuses it"
	}
	if err != nil {
		// meshscope's deliberate strictness: a field Istio drops unread (a misspelt key, a
		// nested field it does not have) is refused; any other refusal is a disagreement.
		require.Contains(t, err.Error(), "unknown field", "%s: Istio accepts it", at)
		return "refused by meshscope only: an unknown field Istio drops (deliberate)"
	}
	var ignored []report.Finding
	for _, fd := range m.Findings() {
		if fd.Code == IgnoredByRelease {
			ignored = append(ignored, fd)
		}
	}
	if slices.Contains(r.MeshConfigIgnoredFields, "serviceEntryVisibility") {
		require.Len(t, ignored, 1, at)
		assert.True(t, strings.HasSuffix(ignored[0].Path, "serviceEntryVisibility"), at)
		assert.Contains(t, ignored[0].Message, fmt.Sprintf("%q", r.MeshConfigStrictError), at)
		assert.Nil(t, m.AppliedVisibility(), at)
		return "accepted, serviceEntryVisibility ignored as Istio ignores it"
	}
	require.Empty(t, r.MeshConfigIgnoredFields, at)
	require.Empty(t, r.MeshConfigStrictError, at)
	assert.Empty(t, ignored, at)
	assert.Equal(t, m.Visibility, m.AppliedVisibility(), at)
	return "accepted"
}

// checkRunRelease holds the release Load read to the run's: its version, compatibilityVersion
// and the flag the compatibilityVersion sets, as the run's features record it.
func checkRunRelease(t *testing.T, at string, run istiotest.Run, m *Config) {
	t.Helper()
	istio, compat := run.Release()
	r := m.Release()
	assert.Equal(t, istio, r.Version(), at)
	assert.Equal(t, compat, r.CompatibilityVersion(), at)
	want, has := run.Features[PickBestServiceNamespace].(bool)
	assert.Equal(t, has && want, r.Flag(PickBestServiceNamespace), at)
	assert.Equal(t, has && want, r.Has(DestinationNamespace), at)
	for _, name := range []string{EnhancedDestinationRuleMerge, UnifiedSidecarScope, ScopeGatewayToNamespace} {
		assert.Equal(t, run.Features[name], r.Flag(name), "%s: %s", at, name)
	}
}
