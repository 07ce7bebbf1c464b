package peermeta

import (
	"maps"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/exports"
)

// HealthStatus is a health check's status, as Consul spells it.
type HealthStatus string

// Consul's health statuses.
const (
	StatusPassing     HealthStatus = "passing"
	StatusWarning     HealthStatus = "warning"
	StatusCritical    HealthStatus = "critical"
	StatusMaintenance HealthStatus = "maintenance"
)

// Consul's maintenance check IDs: the node's, and the prefix of a service's.
const (
	nodeMaintenanceCheckID        = "_node_maintenance"
	serviceMaintenanceCheckPrefix = "_service_maintenance:"
)

// Node is a catalog node, with Consul's JSON field names.
type Node struct {
	ID              string            `json:"ID,omitempty"`
	Node            string            `json:"Node"`
	Address         string            `json:"Address"`
	Datacenter      string            `json:"Datacenter,omitempty"`
	Partition       string            `json:"Partition,omitempty"`
	TaggedAddresses map[string]string `json:"TaggedAddresses,omitempty"`
	Meta            map[string]string `json:"Meta,omitempty"`
}

// ServiceAddress is an address and port, as in a service's tagged addresses.
type ServiceAddress struct {
	Address string `json:"Address"`
	Port    int    `json:"Port"`
}

// ProxyConfig is the part of a connect proxy's configuration meshscope reads and the
// synthetic instances set.
type ProxyConfig struct {
	DestinationServiceName string `json:"DestinationServiceName,omitempty"`
	DestinationServiceID   string `json:"DestinationServiceID,omitempty"`
	// Config is the proxy's own configuration, as its registration gives it.
	Config *ProxyOwnConfig `json:"Config,omitempty"`
}

// ProxyOwnConfig is the part of a proxy registration's own configuration meshscope reads:
// the protocol, which wins over service-defaults and proxy-defaults for the proxy's public
// listener (store.Cluster.Protocols).
type ProxyOwnConfig struct {
	Protocol string `json:"protocol,omitempty"`
}

// ServiceConnect is an instance's connect settings: Native for a connect-native instance,
// and the PeerMeta a synthetic instance carries.
type ServiceConnect struct {
	Native   bool      `json:"Native,omitempty"`
	PeerMeta *PeerMeta `json:"PeerMeta,omitempty"`
}

// NodeService is a service instance on a node, with Consul's JSON field names.
type NodeService struct {
	Kind            ServiceKind               `json:"Kind,omitempty"`
	ID              string                    `json:"ID"`
	Service         string                    `json:"Service"`
	Tags            []string                  `json:"Tags,omitempty"`
	Address         string                    `json:"Address,omitempty"`
	TaggedAddresses map[string]ServiceAddress `json:"TaggedAddresses,omitempty"`
	Meta            map[string]string         `json:"Meta,omitempty"`
	Port            int                       `json:"Port,omitempty"`
	Proxy           *ProxyConfig              `json:"Proxy,omitempty"`
	Connect         *ServiceConnect           `json:"Connect,omitempty"`
	Namespace       string                    `json:"Namespace,omitempty"`
	Partition       string                    `json:"Partition,omitempty"`
}

// HealthCheck is one health check, with Consul's JSON field names.
type HealthCheck struct {
	Node        string       `json:"Node"`
	CheckID     string       `json:"CheckID"`
	Name        string       `json:"Name"`
	Status      HealthStatus `json:"Status"`
	Notes       string       `json:"Notes,omitempty"`
	Output      string       `json:"Output,omitempty"`
	ServiceID   string       `json:"ServiceID,omitempty"`
	ServiceName string       `json:"ServiceName,omitempty"`
}

// CheckServiceNode is a service instance with its node and checks — an element of Consul's
// /v1/health/service/<name> answer, so that the output of
// `curl .../v1/health/service/mesh-gateway` decodes into []CheckServiceNode directly.
type CheckServiceNode struct {
	Node    *Node          `json:"Node"`
	Service *NodeService   `json:"Service"`
	Checks  []*HealthCheck `json:"Checks"`
}

// flatten folds a mesh gateway instance's checks into the one check its synthetic instances
// carry: none stays none; otherwise a check "<serviceID>:overall-check" named
// "overall-check" whose status is maintenance if any check is a node or service maintenance
// check, else the worst of critical, warning and passing. An unknown status counts as
// critical (Consul would let the unknown string win over everything). The check's output
// says which check decided.
func flatten(checks []*HealthCheck, node, serviceID, serviceName string) []*HealthCheck {
	if len(checks) == 0 {
		return nil
	}
	status, by := StatusPassing, ""
	for _, c := range checks {
		if c == nil {
			continue
		}
		if c.CheckID == nodeMaintenanceCheckID || strings.HasPrefix(c.CheckID, serviceMaintenanceCheckPrefix) {
			status, by = StatusMaintenance, c.CheckID
			break
		}
		if st := worst(c.Status); by == "" || severity(st) > severity(status) {
			status, by = st, c.CheckID
		}
	}
	return []*HealthCheck{{
		Node: node, CheckID: serviceID + ":overall-check", Name: "overall-check", Status: status,
		Output:    string(status) + ": " + strconv.Itoa(len(checks)) + " checks of the mesh gateway; " + strconv.Quote(by) + " decided",
		ServiceID: serviceID, ServiceName: serviceName,
	}}
}

// clone returns a copy of n that shares nothing with it.
func (n *Node) clone() *Node {
	c := *n
	c.TaggedAddresses, c.Meta = maps.Clone(n.TaggedAddresses), maps.Clone(n.Meta)
	return &c
}

// worst maps a status to itself, or an unknown one to critical.
func worst(status HealthStatus) HealthStatus {
	switch status {
	case StatusPassing, StatusWarning:
		return status
	}
	return StatusCritical
}

func severity(status HealthStatus) int {
	switch status {
	case StatusPassing:
		return 0
	case StatusWarning:
		return 1
	}
	return 2
}

// synthesize returns the instances a peer sees for one exported service: one connect-proxy
// per mesh gateway instance, service "<service>-sidecar-proxy", ID
// "<service>-sidecar-proxy-instance-<i>" (or "<service>-sidecar-proxy" when the gateway
// instance has no ID), proxying for "<service>" ("<service>-instance-<i>", or "<service>"),
// at the gateway's node, address, tagged addresses and port, carrying the PeerMeta and the
// gateway's checks flattened. i is the gateway's position in gateways; pass them in a stable
// order (Replicate sorts them by node and service ID). The caller owns the instances:
// nothing in them is shared with gateways, with meta or with one another.
func synthesize(service exports.ServiceName, meta PeerMeta, gateways []CheckServiceNode) []CheckServiceNode {
	service = service.Canonical()
	out := make([]CheckServiceNode, 0, len(gateways))
	proxy := service.Name + "-sidecar-proxy"
	for i, gw := range gateways {
		if gw.Service == nil || gw.Node == nil {
			continue
		}
		id, dest := proxy, service.Name
		if gw.Service.ID != "" {
			n := strconv.Itoa(i)
			id, dest = proxy+"-instance-"+n, service.Name+"-instance-"+n
		}
		svc := &NodeService{
			Kind: KindConnectProxy, ID: id, Service: proxy,
			Address: gw.Service.Address, TaggedAddresses: maps.Clone(gw.Service.TaggedAddresses), Port: gw.Service.Port,
			Proxy:     &ProxyConfig{DestinationServiceName: service.Name, DestinationServiceID: dest},
			Connect:   &ServiceConnect{PeerMeta: meta.clone()},
			Namespace: service.Namespace, Partition: service.Partition,
		}
		out = append(out, CheckServiceNode{Node: gw.Node.clone(), Service: svc, Checks: flatten(gw.Checks, gw.Node.Node, id, proxy)})
	}
	return out
}
