package sidecar

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
)

// ExplainHost (ExplainGatewayHost) for a host a proxy (a gateway) of ns-1 gets on the routed
// inventory of 10,000 services: the view of the proxy with the losers of one host, every
// VirtualService and DestinationRule covering it judged. The sidecar's Sidecar imports its
// own namespace and the root's; the gateway gets every service exported to ns-1.
func BenchmarkExplainHostRouted10k(b *testing.B) { benchmarkExplain(b, (*View).ExplainHost) }
func BenchmarkExplainGatewayHostRouted10k(b *testing.B) {
	benchmarkExplain(b, (*View).ExplainGatewayHost)
}

func benchmarkExplain(b *testing.B, explain func(*View, string, labels.Set, string) Explanation) {
	inv := bigRoutedInventory(10_000)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	require.NotNil(b, explain(v, "ns-1", nil, "api1.example.com").Answer)
	b.ReportAllocs()
	for b.Loop() {
		explain(v, "ns-1", nil, "api1.example.com")
	}
}

// Lint (LintGateways) on the routed inventory of 2,000 services (20 namespaces): every class
// of proxies' (gateways') view, read for what it gets wrong.
func BenchmarkLintRouted2k(b *testing.B)         { benchmarkLint(b, (*View).Lint) }
func BenchmarkLintGatewaysRouted2k(b *testing.B) { benchmarkLint(b, (*View).LintGateways) }

func benchmarkLint(b *testing.B, lint func(*View) []Finding) {
	inv := bigRoutedInventory(2_000)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		lint(v)
	}
}
