package store

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// The top-level fields of Consul's service-defaults and proxy-defaults entries (the agent's
// and the API's, with their snake_case aliases), every one accepted. Replication uses
// service-defaults' Protocol and proxy-defaults' Config.protocol; the content of the others
// is Consul's to judge.
var (
	proxyFields = []string{"Mode", "TransparentProxy", "transparent_proxy", "MutualTLSMode", "mutual_tls_mode",
		"MeshGateway", "mesh_gateway", "Expose", "EnvoyExtensions", "envoy_extensions"}
	serviceDefaultsFields = entryhead.With(slices.Concat(proxyFields, []string{"Protocol", "ExternalSNI", "external_sni",
		"UpstreamConfig", "upstream_config", "Destination", "MaxInboundConnections", "max_inbound_connections",
		"LocalConnectTimeoutMs", "local_connect_timeout_ms", "LocalRequestTimeoutMs", "local_request_timeout_ms",
		"BalanceInboundConnections", "balance_inbound_connections", "RateLimits", "rate_limits", "MaxRequestHeadersKB"})...)
	proxyDefaultsFields = entryhead.With(slices.Concat(proxyFields, []string{"Config", "AccessLogs", "access_logs",
		"FailoverPolicy", "failover_policy", "PrioritizeByLocality", "prioritize_by_locality"})...)
)

// serviceDefaultsKind is the row of service-defaults: each entry gives its service a protocol,
// which a Config holds in Entries.Protocols, keyed by the service, canonical.
var serviceDefaultsKind = &kind{name: kindServiceDefaults, rechecks: true, field: "Entries.Protocols", key: serviceNamed,
	decode: func(d *strict.Decoder, o strict.Object, _ []byte) (any, error) {
		o.Check(serviceDefaultsFields...)
		var v defaults
		o.String(&v.protocol, "Protocol")
		v.Head = entryhead.Read(d, o) // after Protocol, whose problem comes first (the names are read before any kind)
		return &v, nil
	},
	names:    func(v any) (string, string, string) { d := v.(*defaults); return d.Name, d.Namespace, d.Partition },
	validate: validateServiceDefaults,
	values:   protocolValues,
	add:      addProtocol,
	put:      func(c *Config, _ int, v any) { addProtocol(c, v) },
	own:      func(c *Config) { c.Entries.Protocols = maps.Clone(c.Entries.Protocols) },
	clip:     func(*Config) {},
	shares: func(a, b *Config) bool {
		return len(a.Entries.Protocols) == len(b.Entries.Protocols) &&
			reflect.ValueOf(a.Entries.Protocols).UnsafePointer() == reflect.ValueOf(b.Entries.Protocols).UnsafePointer()
	},
	same:       sameProtocol,
	recompiles: ownAndNaming,
}

// addProtocol puts the protocol of the service-defaults entry v in c.
func addProtocol(c *Config, v any) {
	d := v.(*defaults)
	if c.Entries.Protocols == nil {
		c.Entries.Protocols = map[exports.ServiceName]string{}
	}
	c.Entries.Protocols[serviceNamed(d.Name, d.Namespace, d.Partition)] = d.protocol
}

// protocolValues returns a service-defaults entry per key of c's Protocols, in canonical
// order; keys that are one service spelt two ways ("" and "default") in the order of their
// spelling, so that the one a duplicate's message names is always the same.
func protocolValues(c *Config) []any {
	m := c.Entries.Protocols
	out := make([]any, 0, len(m))
	for _, s := range slices.SortedFunc(maps.Keys(m), func(a, b exports.ServiceName) int {
		return cmp.Or(a.Compare(b), strings.Compare(a.Partition, b.Partition), strings.Compare(a.Namespace, b.Namespace))
	}) {
		out = append(out, &defaults{Head: entryhead.Head{Kind: kindServiceDefaults, Name: s.Name, Namespace: s.Namespace, Partition: s.Partition}, protocol: m[s]})
	}
	return out
}

// validateServiceDefaults is Consul's check of a service-defaults entry's name.
func validateServiceDefaults(v any) error {
	switch name := v.(*defaults).Name; name {
	case "":
		return &FieldError{Field: "Name", Detail: "Name is required"}
	case exports.Wildcard:
		return &FieldError{Field: "Name", Value: name, Detail: "service-defaults name must be the name of a service, and not a wildcard"}
	}
	return nil
}

// proxyDefaultsKind is the row of proxy-defaults: the entry gives every service the protocol of
// its Config.protocol, which a Config holds in Entries.DefaultProtocol.
var proxyDefaultsKind = &kind{name: kindProxyDefaults, rechecks: true, field: "Entries.DefaultProtocol", key: partitionOnly,
	decode: func(d *strict.Decoder, o strict.Object, _ []byte) (any, error) {
		o.Check(proxyDefaultsFields...)
		v := &defaults{Head: entryhead.Read(d, o)}
		if c, p, ok := o.Get("Config"); ok {
			if c, ok := d.Object(c, p); ok {
				c.String(&v.protocol, "protocol")
			}
		}
		return v, nil
	},
	names:    func(v any) (string, string, string) { d := v.(*defaults); return d.Name, "", d.Partition },
	validate: validateProxyDefaults,
	values: func(c *Config) []any {
		if !c.proxyDefaults && c.Entries.DefaultProtocol == "" {
			return nil
		}
		return []any{&defaults{Head: entryhead.Head{Kind: kindProxyDefaults, Name: "global"}, protocol: c.Entries.DefaultProtocol}}
	},
	add:  addDefaultProtocol,
	put:  func(c *Config, _ int, v any) { addDefaultProtocol(c, v) },
	own:  func(*Config) {},
	clip: func(*Config) {},
	shares: func(a, b *Config) bool {
		return a.Entries.DefaultProtocol == b.Entries.DefaultProtocol && a.proxyDefaults == b.proxyDefaults
	},
	same:       sameProtocol,
	recompiles: everyChain,
}

// addDefaultProtocol puts the protocol of the proxy-defaults entry v in c.
func addDefaultProtocol(c *Config, v any) {
	c.Entries.DefaultProtocol, c.proxyDefaults = v.(*defaults).protocol, true
}

// sameProtocol reports whether two service-defaults or proxy-defaults entries give the same
// protocol: all the store holds of them.
func sameProtocol(a, b any) bool { return a.(*defaults).protocol == b.(*defaults).protocol }

// validateProxyDefaults checks the proxy-defaults entry's name — "global", which Consul
// also makes of an empty one — and its partition: meshscope models the default partition's
// proxy-defaults only, the one every service of a cluster without admin partitions uses.
func validateProxyDefaults(v any) error {
	d := v.(*defaults)
	var errs []error
	if d.Name != "global" && d.Name != "" {
		errs = append(errs, &FieldError{Field: "Name", Value: d.Name, Detail: fmt.Sprintf("invalid name (%q), only %q is supported", d.Name, "global")})
	}
	if p := partitionOnly("", "", d.Partition).Partition; p != "default" {
		errs = append(errs, &FieldError{Field: "Partition", Value: d.Partition,
			Detail: fmt.Sprintf("a proxy-defaults entry of partition %q: meshscope models the default partition's proxy-defaults only, and would give every partition's services its protocol", p)})
	}
	return errors.Join(errs...)
}
