package store

import (
	"fmt"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// kindMesh is the kind of the mesh config entry, one per cluster (per partition in Consul
// Enterprise): mesh-wide settings.
const kindMesh = "mesh"

// Mesh is what the store reads of the mesh config entry: the setting that changes what a
// destination's sidecar sees of its callers.
type Mesh struct {
	// SanitizeXForwardedClientCert is HTTP.SanitizeXForwardedClientCert: every sidecar's HTTP
	// filter strips the x-forwarded-client-cert header instead of forwarding it, so that a
	// peer's intentions, which Consul matches on that header behind the mesh gateway, never
	// match.
	SanitizeXForwardedClientCert bool
}

// The fields of Consul's mesh entry (the API's, up to Consul 2.x, with their snake_case
// aliases), every one accepted; the store reads HTTP.SanitizeXForwardedClientCert and leaves
// the others to Consul. Consul names the entry "mesh" whatever its Name says.
var (
	meshFields = entryhead.With("TransparentProxy", "transparent_proxy", "AllowEnablingPermissiveMutualTLS",
		"allow_enabling_permissive_mutual_tls", "ValidateClusters", "validate_clusters", "TLS", "HTTP", "Peering")
	meshHTTPFields = []string{"SanitizeXForwardedClientCert", "sanitize_x_forwarded_client_cert", "Incoming"}
)

// meshEntry is a mesh entry as the store holds it: its head and what the store reads of it.
type meshEntry struct {
	entryhead.Head
	Mesh
}

// meshKind is the row of the mesh entry, which a Config holds in its Mesh field.
var meshKind = &kind{name: kindMesh, field: "Mesh", key: func(_, _, partition string) exports.ServiceName { return partitionOnly("", "", partition) },
	decode: func(d *strict.Decoder, o strict.Object, _ []byte) (any, error) {
		o.Check(meshFields...)
		v := &meshEntry{Head: entryhead.Read(d, o)}
		if h, p, ok := o.Get("HTTP"); ok {
			if h, ok := d.Object(h, p); ok {
				h.Check(meshHTTPFields...)
				entryhead.Field(d, h, &v.SanitizeXForwardedClientCert, (*strict.Decoder).Bool, "SanitizeXForwardedClientCert", "sanitize_x_forwarded_client_cert")
			}
		}
		return v, nil
	},
	names:    func(v any) (string, string, string) { m := v.(*meshEntry); return m.Name, "", m.Partition }, // Consul names it "mesh" whatever it says
	validate: validateMesh,
	values: func(c *Config) []any {
		if c.Mesh == nil {
			return nil
		}
		return []any{&meshEntry{Head: entryhead.Head{Kind: kindMesh}, Mesh: *c.Mesh}}
	},
	add:        putMesh,
	put:        func(c *Config, _ int, v any) { putMesh(c, v) },
	own:        func(*Config) {},
	clip:       func(*Config) {},
	shares:     func(a, b *Config) bool { return a.Mesh == b.Mesh },
	same:       func(a, b any) bool { return a.(*meshEntry).Mesh == b.(*meshEntry).Mesh },
	recompiles: noChains, // Consul's server judges a mesh entry alone
}

// validateMesh checks the mesh entry's partition: meshscope models the default partition's
// mesh entry only, the one of a cluster without admin partitions.
func validateMesh(v any) error {
	m := v.(*meshEntry)
	if p := partitionOnly("", "", m.Partition).Partition; p != "default" {
		return &FieldError{Field: "Partition", Value: m.Partition,
			Detail: fmt.Sprintf("a mesh entry of partition %q: meshscope models the default partition's mesh entry only, and would give its settings to every partition's sidecars", p)}
	}
	return nil
}

// putMesh puts the mesh entry v in c.
func putMesh(c *Config, v any) {
	m := v.(*meshEntry).Mesh
	c.Mesh = &m
}
