package mesh

import (
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// bigMeshFile is an IstioOperator whose meshConfig holds n visibility policies, n
// serviceScopeConfigs, n serviceSettings and n discovery selectors, beside fields meshscope
// does not read.
func bigMeshFile(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata: {name: installed-state, namespace: istio-system}\nspec:\n  meshConfig:\n")
	b.WriteString("    accessLogFile: /dev/stdout\n    rootNamespace: istio-config\n    defaultServiceExportTo: ['*']\n    defaultDestinationRuleExportTo: ['.']\n")
	b.WriteString("    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n      applyToSidecars: true\n      policies:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - visibility: PUBLIC\n        matchingRules:\n        - namespaceSelector: {matchLabels: {team: t%d}}\n        - namespaceSelector: {matchExpressions: [{key: env, operator: In, values: [prod, stage]}]}\n", i)
	}
	b.WriteString("    discoverySelectors:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - matchLabels: {istio-discovery: d%d}\n", i)
	}
	b.WriteString("    serviceScopeConfigs:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - namespaceSelector: {matchLabels: {shared: s%d}}\n      servicesSelector: {matchExpressions: [{key: app, operator: Exists}]}\n      scope: GLOBAL\n", i)
	}
	b.WriteString("    serviceSettings:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - settings: {clusterLocal: true}\n      hosts: ['*.ns%d.svc.cluster.local', 'api%d.example.com']\n", i, i)
	}
	return []byte(b.String())
}

var configSink *Config

func benchmarkLoad(b *testing.B, n int) {
	data := bigMeshFile(n)
	if _, err := Load(data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		configSink, _ = Load(data)
	}
}

// Load of a mesh configuration with 100 of each list it reads (about 40 KB), and 400 beside
// it to show the growth.
func BenchmarkLoad100(b *testing.B) { benchmarkLoad(b, 100) }
func BenchmarkLoad400(b *testing.B) { benchmarkLoad(b, 400) }

// BenchmarkLoad100Naive is the baseline: yaml.v3 decoding the same file into interface
// values — the parse alone, before any field is read, checked or validated.
func BenchmarkLoad100Naive(b *testing.B) {
	data := bigMeshFile(100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			b.Fatal(err)
		}
		anySink = doc
	}
}

var anySink any

// TestBigMeshFileLoads: the benchmarks' input is a valid configuration, read whole.
func TestBigMeshFileLoads(t *testing.T) {
	c, err := Load(bigMeshFile(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Visibility.Policies) != 10 || len(c.DiscoverySelectors) != 10 || len(c.ServiceScopeConfigs) != 10 || len(c.ServiceSettings) != 10 {
		t.Fatalf("read %d policies, %d selectors, %d scope configs, %d settings; want 10 of each",
			len(c.Visibility.Policies), len(c.DiscoverySelectors), len(c.ServiceScopeConfigs), len(c.ServiceSettings))
	}
}
