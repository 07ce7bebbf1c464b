package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKinds: every kind a Consul server stores reads — a kind the store models into its
// Config field, one of Consul's other kinds skipped and named — and a kind no Consul has is
// refused, by Load and by Apply alike.
func TestKinds(t *testing.T) {
	for _, tt := range []struct {
		kind, entry string
		held        func(c *Config) int // how many entries c holds of the kind; nil: skipped
	}{
		{"exported-services", `"Name":"default","Services":[]`, func(c *Config) int { return len(c.Exports) }},
		{"sameness-group", `"Name":"g","Members":[{"Peer":"east"}]`, func(c *Config) int { return len(c.Entries.SamenessGroups) }},
		{"service-resolver", `"Name":"api"`, func(c *Config) int { return len(c.Entries.Resolvers) }},
		{"service-router", `"Name":"api","Routes":[]`, func(c *Config) int { return len(c.Entries.Routers) }},
		{"service-splitter", `"Name":"api","Splits":[{"Weight":100}]`, func(c *Config) int { return len(c.Entries.Splitters) }},
		{"service-defaults", `"Name":"api","Protocol":"http"`, func(c *Config) int { return len(c.Entries.Protocols) }},
		{"proxy-defaults", `"Name":"global","Config":{"protocol":"http"}`, func(c *Config) int { return len(c.Entries.DefaultProtocol) / 4 }},
		{"service-intentions", `"Name":"api","Sources":[{"Name":"web","Action":"allow"}]`, func(c *Config) int { return len(c.Intentions) }},
		{"mesh", `"Name":"mesh","Peering":{"PeerThroughMeshGateways":true}`, func(c *Config) int {
			if c.Mesh == nil {
				return 0
			}
			return 1
		}},
		{"ingress-gateway", `"Name":"ingress","Listeners":[]`, nil},
		{"terminating-gateway", `"Name":"egress","Services":[{"Name":"db"}]`, nil},
		{"api-gateway", `"Name":"edge","Listeners":[]`, nil},
		{"bound-api-gateway", `"Name":"edge","Listeners":[]`, nil},
		{"http-route", `"Name":"r","Parents":[],"Rules":[]`, nil},
		{"tcp-route", `"Name":"r","Parents":[],"Services":[]`, nil},
		{"inline-certificate", `"Name":"c","Certificate":"-----BEGIN CERTIFICATE-----","PrivateKey":"x"`, nil},
		{"file-system-certificate", `"Name":"c","Certificate":"/etc/tls/c.crt","PrivateKey":"/etc/tls/c.key"`, nil},
		{"jwt-provider", `"Name":"okta","JSONWebKeySet":{}`, nil},
		{"control-plane-request-limit", `"Name":"limit","Mode":"enforcing"`, nil},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			data := []byte(fmt.Sprintf(`{"Kind":%q,%s}`, tt.kind, tt.entry))
			c, err := Load(data)
			require.NoError(t, err)
			var applied Config // on an http service: a router or splitter needs one
			require.NoError(t, applied.Add("", []byte(`{"Kind":"service-defaults","Name":"api","Protocol":"http"}`)))
			outs, err := applied.Apply(data)
			require.NoError(t, err)
			require.Len(t, outs, 1)
			assert.True(t, outs[0].Accepted, "%s", outs[0])
			if tt.held != nil {
				assert.Equal(t, 1, tt.held(&c))
				if tt.kind != kindServiceDefaults {
					assert.Equal(t, 1, tt.held(&applied))
				}
				assert.Empty(t, c.Findings)
				return
			}
			assert.Equal(t, heldKinds(&c), []string(nil))
			require.Len(t, c.Findings, 1)
			assert.Equal(t, EntrySkipped, c.Findings[0].Code)
			assert.True(t, strings.HasPrefix(c.Findings[0].Path, "value 1 ("+tt.kind+" "), c.Findings[0].Path)
			assert.Equal(t, c.Findings, applied.Findings, "Apply names it as Load does")
		})
	}
	assert.Len(t, skippedKinds, 10, "Consul's kinds up to 2.x that the store does not model")
	for _, k := range kinds {
		assert.NotContains(t, slices.Collect(maps.Keys(skippedKinds)), k.name)
	}
}

func TestUnknownKinds(t *testing.T) {
	for _, tt := range []struct{ kind, want string }{
		{"registration", `Kind: "registration" is not a kind of Consul config entry`},
		{"ServiceDefaults", `Kind: "ServiceDefaults" is not a kind of Consul config entry (did you mean "service-defaults"?)`},
		{"rate-limit", `Kind: "rate-limit" is not a kind of Consul config entry`},
		{"partition-exports", `Kind: "partition-exports" is not a kind of Consul config entry`},
		{"file-system-certificat", `Kind: "file-system-certificat" is not a kind of Consul config entry (did you mean "file-system-certificate"?)`},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			data := []byte(fmt.Sprintf(`{"Kind":%q,"Name":"x"}`, tt.kind))
			_, err := Load(data)
			assert.EqualError(t, err, fmt.Sprintf("value 1 (%s x): %s", tt.kind, tt.want))
			var c Config
			outs, err := c.Apply(data)
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprintf("%s x: refused (decode): %s", tt.kind, tt.want), outs[0].String())
		})
	}
}
