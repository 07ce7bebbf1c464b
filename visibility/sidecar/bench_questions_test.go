package sidecar

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ExplainHost for a host a proxy of ns-1 gets (its Sidecar imports its own namespace and
// the root's) on the routed inventory of 10,000 services: the view of the proxy with the
// losers of one host, every VirtualService and DestinationRule covering it judged.
func BenchmarkExplainHostRouted10k(b *testing.B) {
	inv := bigRoutedInventory(10_000)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	require.NotNil(b, v.ExplainHost("ns-1", nil, "api1.example.com").Answer)
	b.ReportAllocs()
	for b.Loop() {
		v.ExplainHost("ns-1", nil, "api1.example.com")
	}
}

// Lint on the routed inventory of 2,000 services (20 namespaces): every class of proxies'
// view, read for its routes and rules.
func BenchmarkLintRouted2k(b *testing.B) {
	inv := bigRoutedInventory(2_000)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		v.Lint()
	}
}
