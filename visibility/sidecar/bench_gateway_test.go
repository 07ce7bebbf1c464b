package sidecar

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ExplainGatewayHost and LintGateways beside ExplainHost and Lint (bench_questions_test.go):
// a gateway of ns-1 explained on the routed inventory of 10,000 services, and every class of
// gateways of 2,000 services linted.
func BenchmarkExplainGatewayHostRouted10k(b *testing.B) {
	inv := bigRoutedInventory(10_000)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	require.NotNil(b, v.ExplainGatewayHost("ns-1", nil, "api1.example.com").Answer)
	b.ReportAllocs()
	for b.Loop() {
		v.ExplainGatewayHost("ns-1", nil, "api1.example.com")
	}
}

func BenchmarkLintGatewaysRouted2k(b *testing.B) {
	inv := bigRoutedInventory(2_000)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		v.LintGateways()
	}
}
