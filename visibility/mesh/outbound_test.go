package mesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutboundTrafficPolicy: the mesh's outbound traffic mode as istiod applies it — ALLOW_ANY
// unset (or null), REGISTRY_ONLY for a policy without a mode (it replaces the default whole),
// enum numbers as their names — and what a release refuses, in its words.
func TestOutboundTrafficPolicy(t *testing.T) {
	for _, tc := range []struct {
		in, istio, want, err string
	}{
		{in: "rootNamespace: istio-system", want: OutboundAllowAny},
		{in: "outboundTrafficPolicy: null", want: OutboundAllowAny},
		{in: "outboundTrafficPolicy: {}", want: OutboundRegistryOnly},
		{in: "outboundTrafficPolicy: {mode: REGISTRY_ONLY}", want: OutboundRegistryOnly},
		{in: "outbound_traffic_policy: {mode: 1}", want: OutboundAllowAny},
		{in: "outboundTrafficPolicy: {mode: ALLOW_ANY_DYNAMIC_DNS, tls: {mode: SIMPLE}}", want: OutboundAllowAnyDynamicDNS},
		{in: "outboundTrafficPolicy: {mode: ALLOW_ANY_DYNAMIC_DNS}", istio: "1.30", err: "outboundTrafficPolicy.mode: Istio 1.30 has no mode ALLOW_ANY_DYNAMIC_DNS (it comes with 1.31)"},
		{in: "outboundTrafficPolicy: {mode: allow_any}", err: `outboundTrafficPolicy.mode: unsupported value "allow_any": enum names are upper case ("ALLOW_ANY"); Istio 1.31 refuses the whole mesh configuration: failed to convert to proto. unknown value "\"allow_any\"" for enum istio.mesh.v1alpha1.MeshConfig.OutboundTrafficPolicy.Mode`},
		{in: "outboundTrafficPolicy: {mode: OPEN}", istio: "1.29", err: `outboundTrafficPolicy.mode: unsupported value "OPEN": supported values: REGISTRY_ONLY, ALLOW_ANY; Istio 1.29 refuses the whole mesh configuration`},
		{in: "outboundTrafficPolicy: {mod: ALLOW_ANY}", err: `outboundTrafficPolicy: unknown field "mod" (did you mean "mode"?)`},
		{in: "outboundTrafficPolicy: {mode: 2}", err: "outboundTrafficPolicy.mode: unsupported value 2"},
	} {
		c, err := LoadFor([]byte(tc.in), tc.istio, "")
		if tc.err != "" {
			require.Error(t, err, tc.in)
			assert.Contains(t, err.Error(), tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, c.OutboundMode(), tc.in)
	}
	assert.Equal(t, OutboundAllowAny, (*Config)(nil).OutboundMode())
	assert.Error(t, (&Config{Istio: "1.28", OutboundTrafficPolicy: &OutboundTrafficPolicy{Mode: OutboundAllowAnyDynamicDNS}}).Validate())
}
