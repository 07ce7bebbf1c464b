package peermeta

import (
	"slices"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/strict"
)

// The top-level fields of Consul's service-defaults and proxy-defaults entries (the agent's
// and the API's, with their snake_case aliases), every one accepted. Replication uses
// service-defaults' Protocol and proxy-defaults' Config.protocol; the content of the others
// is Consul's to judge.
var (
	entryFields = []string{"Kind", "Name", "Partition", "Namespace", "Meta", "CreateIndex", "ModifyIndex"}
	proxyFields = []string{"Mode", "TransparentProxy", "transparent_proxy", "MutualTLSMode", "mutual_tls_mode",
		"MeshGateway", "mesh_gateway", "Expose", "EnvoyExtensions", "envoy_extensions"}
	serviceDefaultsFields = slices.Concat(entryFields, proxyFields, []string{"Protocol", "ExternalSNI", "external_sni",
		"UpstreamConfig", "upstream_config", "Destination", "MaxInboundConnections", "max_inbound_connections",
		"LocalConnectTimeoutMs", "local_connect_timeout_ms", "LocalRequestTimeoutMs", "local_request_timeout_ms",
		"BalanceInboundConnections", "balance_inbound_connections", "RateLimits", "rate_limits", "MaxRequestHeadersKB"})
	proxyDefaultsFields = slices.Concat(entryFields, proxyFields, []string{"Config", "AccessLogs", "access_logs",
		"FailoverPolicy", "failover_policy", "PrioritizeByLocality", "prioritize_by_locality"})
)

// decodeServiceDefaults reads a service-defaults entry: its service (canonical) and protocol.
func decodeServiceDefaults(d *strict.Decoder, o strict.Object) (exports.ServiceName, string) {
	o.Check(serviceDefaultsFields...)
	var s exports.ServiceName
	var protocol string
	o.String(&s.Name, "Name")
	o.String(&s.Namespace, "Namespace")
	o.String(&s.Partition, "Partition")
	o.String(&protocol, "Protocol")
	checkMeta(d, o)
	switch s.Name {
	case "":
		d.Errorf("Name", "Name is required")
	case exports.Wildcard:
		d.Fail("Name", s.Name, "service-defaults name must be the name of a service, and not a wildcard")
	}
	return s.Canonical(), protocol
}

// decodeProxyDefaults reads the proxy-defaults entry: its partition and Config.protocol.
// meshscope models the default partition's proxy-defaults only, the one every service of a
// cluster without admin partitions uses.
func decodeProxyDefaults(d *strict.Decoder, o strict.Object) (partition, protocol string) {
	o.Check(proxyDefaultsFields...)
	var name string
	o.String(&name, "Name")
	o.String(&partition, "Partition")
	checkMeta(d, o)
	if name != "global" {
		d.Fail("Name", name, "invalid name (%q), only %q is supported", name, "global")
	}
	if p := (exports.ServiceName{Partition: partition}).Canonical().Partition; p != "default" {
		d.Fail("Partition", partition, "a proxy-defaults entry of partition %q: meshscope models the default partition's proxy-defaults only, and would give every partition's services its protocol", p)
	}
	if v, p, ok := o.Get("Config"); ok {
		if c, ok := d.Object(v, p); ok {
			c.String(&protocol, "protocol")
		}
	}
	return partition, protocol
}

// checkMeta checks that Meta, if present, is an object of strings.
func checkMeta(d *strict.Decoder, o strict.Object) {
	if v, p, ok := o.Get("Meta"); ok {
		d.StringMap(v, p)
	}
}
