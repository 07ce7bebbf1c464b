package peermeta

import (
	"errors"
	"fmt"
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

// decodeServiceDefaults reads a service-defaults entry: its service and Protocol.
func decodeServiceDefaults(d *strict.Decoder, o strict.Object, _ []byte) (entry, error) {
	o.Check(serviceDefaultsFields...)
	var e entry
	o.String(&e.name, "Name")
	o.String(&e.namespace, "Namespace")
	o.String(&e.partition, "Partition")
	o.String(&e.protocol, "Protocol")
	checkMeta(d, o)
	e.key = entryKey{kindServiceDefaults, exports.ServiceName{Partition: e.partition, Namespace: e.namespace, Name: e.name}.Canonical()}
	return e, nil
}

// validateServiceDefaults is Consul's check of a service-defaults entry's name.
func validateServiceDefaults(e *entry) error {
	switch e.name {
	case "":
		return &FieldError{Field: "Name", Detail: "Name is required"}
	case exports.Wildcard:
		return &FieldError{Field: "Name", Value: e.name, Detail: "service-defaults name must be the name of a service, and not a wildcard"}
	}
	return nil
}

// decodeProxyDefaults reads the proxy-defaults entry: its name, partition and
// Config.protocol.
func decodeProxyDefaults(d *strict.Decoder, o strict.Object, _ []byte) (entry, error) {
	o.Check(proxyDefaultsFields...)
	var e entry
	o.String(&e.name, "Name")
	o.String(&e.partition, "Partition")
	checkMeta(d, o)
	if v, p, ok := o.Get("Config"); ok {
		if c, ok := d.Object(v, p); ok {
			c.String(&e.protocol, "protocol")
		}
	}
	e.key = entryKey{kindProxyDefaults, exports.ServiceName{Partition: e.partition}.Canonical()}
	return e, nil
}

// validateProxyDefaults checks the proxy-defaults entry's name — "global", which Consul
// also makes of an empty one — and its partition: meshscope models the default partition's
// proxy-defaults only, the one every service of a cluster without admin partitions uses.
func validateProxyDefaults(e *entry) error {
	var errs []error
	if e.name != "global" && e.name != "" {
		errs = append(errs, &FieldError{Field: "Name", Value: e.name, Detail: fmt.Sprintf("invalid name (%q), only %q is supported", e.name, "global")})
	}
	if p := e.key.name.Partition; p != "default" {
		errs = append(errs, &FieldError{Field: "Partition", Value: e.partition,
			Detail: fmt.Sprintf("a proxy-defaults entry of partition %q: meshscope models the default partition's proxy-defaults only, and would give every partition's services its protocol", p)})
	}
	return errors.Join(errs...)
}

// checkMeta checks that Meta, if present, is an object of strings.
func checkMeta(d *strict.Decoder, o strict.Object) {
	if v, p, ok := o.Get("Meta"); ok {
		d.StringMap(v, p)
	}
}
