package istiotest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Objects are the inputs of one case of the Istio vectors (istio-sidecar.json,
// istio-routing.json, istio-gateway.json, istio-gamma.json, and each case of
// istio-releases.json): its mesh configuration, namespaces and objects, as the files spell
// them. Each package's vector test embeds it in its case beside the answers it reads, and
// hands Dump and MeshFile to its loaders, as a user's files would be.
type Objects struct {
	ID         int                          `json:"id"`
	MeshConfig map[string]any               `json:"meshConfig"`
	Namespaces map[string]map[string]string `json:"namespaces"`

	ServiceEntries     []ServiceEntry      `json:"serviceEntries"`
	KubernetesServices []KubernetesService `json:"kubernetesServices"`
	Sidecars           []Sidecar           `json:"sidecars"`
	VirtualServices    []VirtualService    `json:"virtualServices"`
	DestinationRules   []DestinationRule   `json:"destinationRules"`

	// Routes, ReferenceGrants and Gateways are the Gateway API objects (istio-gamma.json), as
	// the API server stores them, every default written out.
	Routes          []GatewayObject `json:"routes"`
	ReferenceGrants []GatewayObject `json:"referenceGrants"`
	Gateways        []GatewayObject `json:"gateways"`
}

// Port is a port of a ServiceEntry, a Kubernetes Service or a Sidecar's egress listener.
type Port struct {
	Number   uint32 `json:"number"`
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
}

// ServiceEntry is a ServiceEntry of a case.
type ServiceEntry struct {
	Name, Namespace, Location, Resolution, CreationTime string
	Hosts, ExportTo                                     []string
	Ports                                               []Port
}

// KubernetesService is a Kubernetes Service of a case, with its networking.istio.io/exportTo
// annotation (nil for none).
type KubernetesService struct {
	Name, Namespace, ClusterIP, CreationTime string
	ExportToAnnotation                       *string
	Ports                                    []Port
}

// Sidecar is a Sidecar of a case.
type Sidecar struct {
	Name, Namespace, CreationTime string
	WorkloadSelector              map[string]string
	Egress                        []Egress
}

// Egress is an egress listener of a Sidecar; Port is nil for a listener without one.
type Egress struct {
	Port  *Port
	Hosts []string
}

// Destination is a route's destination (and its weight) or an HTTP route's mirror.
type Destination struct {
	Host, Subset string
	Port         uint32
	Weight       int32
}

// VirtualService is a VirtualService of a case.
type VirtualService struct {
	Name, Namespace, CreationTime string
	Hosts, ExportTo, Gateways     []string
	HTTP                          []HTTPRoute
	TCP                           []struct{ Route []Destination }
	TLS                           []struct {
		SNIHosts []string
		Route    []Destination
	}
}

// HTTPRoute is an HTTP route of a VirtualService; Mirror is nil for none.
type HTTPRoute struct {
	Match  []struct{ SourceNamespace, URIPrefix string }
	Route  []Destination
	Mirror *Destination
}

// DestinationRule is a DestinationRule of a case; its subsets are named by their version
// label, and its traffic policy, when it has one, is a connection pool of MaxConnections.
type DestinationRule struct {
	Name, Namespace, Host, CreationTime string
	ExportTo, Subsets                   []string
	WorkloadSelector                    map[string]string
	TrafficPolicy                       *struct{ MaxConnections int }
}

// GatewayObject is a Gateway API object of a case: a route (Kind says which), a
// ReferenceGrant or a Gateway.
type GatewayObject struct {
	Kind, Name, Namespace, CreationTime string
	Spec                                map[string]any
}

// ObjectKey names an object of a case: its kind ("ServiceEntry", "Service", "Sidecar",
// "VirtualService", "DestinationRule", a route's kind, "ReferenceGrant", "Gateway"),
// namespace and name.
type ObjectKey struct{ Kind, Namespace, Name string }

// Keep returns the case with the objects keep keeps, and its namespaces and mesh
// configuration.
func (o Objects) Keep(keep func(ObjectKey) bool) Objects {
	of := func(kind string) func(ns, name string) bool {
		return func(ns, name string) bool { return keep(ObjectKey{kind, ns, name}) }
	}
	o.ServiceEntries = kept(o.ServiceEntries, of("ServiceEntry"), func(x ServiceEntry) (string, string) { return x.Namespace, x.Name })
	o.KubernetesServices = kept(o.KubernetesServices, of("Service"), func(x KubernetesService) (string, string) { return x.Namespace, x.Name })
	o.Sidecars = kept(o.Sidecars, of("Sidecar"), func(x Sidecar) (string, string) { return x.Namespace, x.Name })
	o.VirtualServices = kept(o.VirtualServices, of("VirtualService"), func(x VirtualService) (string, string) { return x.Namespace, x.Name })
	o.DestinationRules = kept(o.DestinationRules, of("DestinationRule"), func(x DestinationRule) (string, string) { return x.Namespace, x.Name })
	o.Routes = slices.DeleteFunc(slices.Clone(o.Routes), func(x GatewayObject) bool { return !keep(ObjectKey{x.Kind, x.Namespace, x.Name}) })
	o.ReferenceGrants = kept(o.ReferenceGrants, of("ReferenceGrant"), func(x GatewayObject) (string, string) { return x.Namespace, x.Name })
	o.Gateways = kept(o.Gateways, of("Gateway"), func(x GatewayObject) (string, string) { return x.Namespace, x.Name })
	return o
}

// Without returns the case without the objects gone names.
func (o Objects) Without(gone map[ObjectKey]bool) Objects {
	return o.Keep(func(k ObjectKey) bool { return !gone[k] })
}

func kept[T any](list []T, keep func(ns, name string) bool, key func(T) (string, string)) []T {
	return slices.DeleteFunc(slices.Clone(list), func(x T) bool { return !keep(key(x)) })
}

// Objects returns the case's objects, every one generated (none refused), and its mesh
// configuration.
func (c *ReleaseCase) Objects() (Objects, error) {
	o := Objects{ID: c.ID, Namespaces: c.Namespaces}
	for _, f := range []struct {
		raw json.RawMessage
		dst any
	}{{c.MeshConfig, &o.MeshConfig}, {c.ServiceEntries, &o.ServiceEntries}, {c.KubernetesServices, &o.KubernetesServices},
		{c.Sidecars, &o.Sidecars}, {c.VirtualServices, &o.VirtualServices}, {c.DestinationRules, &o.DestinationRules}} {
		if err := json.Unmarshal(f.raw, f.dst); err != nil {
			return Objects{}, fmt.Errorf("case %d: %w", c.ID, err)
		}
	}
	return o, nil
}

// Items returns the case's namespaces and objects as `kubectl get … -o yaml` prints them, in
// the order the file lists them, the namespaces sorted first.
func (o *Objects) Items() []any {
	var items []any
	for _, ns := range slices.Sorted(maps.Keys(o.Namespaces)) {
		items = append(items, NamespaceObject(ns, o.Namespaces[ns]))
	}
	items = appendObjects(items, o.ServiceEntries)
	items = appendObjects(items, o.KubernetesServices)
	items = appendObjects(items, o.Sidecars)
	items = appendObjects(items, o.VirtualServices)
	items = appendObjects(items, o.DestinationRules)
	for _, r := range o.Routes {
		items = append(items, r.Object(r.Kind))
	}
	for _, g := range o.ReferenceGrants {
		items = append(items, g.Object("ReferenceGrant"))
	}
	for _, g := range o.Gateways {
		items = append(items, g.Object("Gateway"))
	}
	return items
}

// appendObjects appends the kubectl object of each of list, in order, to items.
func appendObjects[T any, P interface {
	*T
	Object() map[string]any
}](items []any, list []T) []any {
	for i := range list {
		items = append(items, P(&list[i]).Object())
	}
	return items
}

// Dump returns the case's inventory as a user has it: Items as a kubectl List, every third
// case (ID%3 == 2) as `-o json` prints it, the others as `-o yaml` does.
func (o *Objects) Dump() ([]byte, error) {
	return List(o.Items(), o.ID%3 == 2)
}

// MeshFile returns the case's mesh configuration as a user has it, in the shape MeshFileAs
// chooses by the case's ID.
func (o *Objects) MeshFile() ([]byte, error) {
	return MeshFileAs(o.MeshConfig, o.ID)
}

// Object is the ServiceEntry as kubectl prints it.
func (x *ServiceEntry) Object() map[string]any {
	spec := map[string]any{"hosts": x.Hosts, "ports": ports(x.Ports, "number", ""), "location": x.Location, "resolution": x.Resolution}
	if x.ExportTo != nil {
		spec["exportTo"] = x.ExportTo
	}
	return KubectlObject("networking.istio.io/v1", "ServiceEntry", x.Namespace, x.Name, x.CreationTime, spec)
}

// Object is the Service as kubectl prints it: a ClusterIP Service whose ports are TCP.
func (x *KubernetesService) Object() map[string]any {
	o := KubectlObject("v1", "Service", x.Namespace, x.Name, x.CreationTime, map[string]any{"type": "ClusterIP", "clusterIP": x.ClusterIP,
		"clusterIPs": []any{x.ClusterIP}, "ports": ports(x.Ports, "port", "TCP")})
	if x.ExportToAnnotation != nil {
		o["metadata"].(map[string]any)["annotations"] = map[string]any{"networking.istio.io/exportTo": *x.ExportToAnnotation}
	}
	return o
}

// ports spells ports, their numbers under key; protocol, when set, stands for every port's
// (a Service's ports are TCP, whatever their names say), and a Service's target port is its
// port.
func ports(ps []Port, key, protocol string) []any {
	var out []any
	for _, p := range ps {
		m := map[string]any{key: p.Number, "name": p.Name, "protocol": p.Protocol}
		if protocol != "" {
			m["protocol"], m["targetPort"] = protocol, p.Number
		}
		out = append(out, m)
	}
	return out
}

// Object is the Sidecar as kubectl prints it.
func (x *Sidecar) Object() map[string]any {
	spec := map[string]any{}
	if x.WorkloadSelector != nil {
		spec["workloadSelector"] = map[string]any{"labels": x.WorkloadSelector}
	}
	var egress []any
	for _, e := range x.Egress {
		l := map[string]any{"hosts": e.Hosts}
		if e.Port != nil {
			l["port"] = map[string]any{"number": e.Port.Number, "name": e.Port.Name, "protocol": e.Port.Protocol}
		}
		egress = append(egress, l)
	}
	spec["egress"] = egress
	return KubectlObject("networking.istio.io/v1", "Sidecar", x.Namespace, x.Name, x.CreationTime, spec)
}

// Object spells the destination: {host, subset, port: {number}}, unset fields left out.
func (d *Destination) Object() map[string]any {
	o := map[string]any{"host": d.Host}
	if d.Subset != "" {
		o["subset"] = d.Subset
	}
	if d.Port != 0 {
		o["port"] = map[string]any{"number": d.Port}
	}
	return o
}

// routeDestinations spells route destinations: {destination, weight}, a weight of 0 left
// out.
func routeDestinations(ds []Destination) []any {
	var out []any
	for i := range ds {
		item := map[string]any{"destination": ds[i].Object()}
		if ds[i].Weight != 0 {
			item["weight"] = ds[i].Weight
		}
		out = append(out, item)
	}
	return out
}

// Object is the VirtualService as kubectl prints it.
func (x *VirtualService) Object() map[string]any {
	spec := map[string]any{"hosts": x.Hosts}
	if x.ExportTo != nil {
		spec["exportTo"] = x.ExportTo
	}
	if x.Gateways != nil {
		spec["gateways"] = x.Gateways
	}
	var http, tcp, tls []any
	for _, h := range x.HTTP {
		r := map[string]any{"route": routeDestinations(h.Route)}
		var match []any
		for _, m := range h.Match {
			mo := map[string]any{}
			if m.SourceNamespace != "" {
				mo["sourceNamespace"] = m.SourceNamespace
			}
			if m.URIPrefix != "" {
				mo["uri"] = map[string]any{"prefix": m.URIPrefix}
			}
			match = append(match, mo)
		}
		if match != nil {
			r["match"] = match
		}
		if h.Mirror != nil {
			r["mirror"] = h.Mirror.Object()
		}
		http = append(http, r)
	}
	for _, r := range x.TCP {
		tcp = append(tcp, map[string]any{"route": routeDestinations(r.Route)})
	}
	for _, r := range x.TLS {
		tls = append(tls, map[string]any{"match": []any{map[string]any{"sniHosts": r.SNIHosts}}, "route": routeDestinations(r.Route)})
	}
	for k, l := range map[string][]any{"http": http, "tcp": tcp, "tls": tls} {
		if l != nil {
			spec[k] = l
		}
	}
	return KubectlObject("networking.istio.io/v1", "VirtualService", x.Namespace, x.Name, x.CreationTime, spec)
}

// Policy is the traffic policy the vectors mark a DestinationRule with, as the object spells
// it; nil for none.
func (x *DestinationRule) Policy() map[string]any {
	if x.TrafficPolicy == nil {
		return nil
	}
	return map[string]any{"connectionPool": map[string]any{"tcp": map[string]any{"maxConnections": x.TrafficPolicy.MaxConnections}}}
}

// Object is the DestinationRule as kubectl prints it.
func (x *DestinationRule) Object() map[string]any {
	spec := map[string]any{"host": x.Host}
	if x.ExportTo != nil {
		spec["exportTo"] = x.ExportTo
	}
	if x.WorkloadSelector != nil {
		spec["workloadSelector"] = map[string]any{"matchLabels": x.WorkloadSelector}
	}
	var subsets []any
	for _, s := range x.Subsets {
		subsets = append(subsets, map[string]any{"name": s, "labels": map[string]any{"version": s}})
	}
	if subsets != nil {
		spec["subsets"] = subsets
	}
	if p := x.Policy(); p != nil {
		spec["trafficPolicy"] = p
	}
	return KubectlObject("networking.istio.io/v1", "DestinationRule", x.Namespace, x.Name, x.CreationTime, spec)
}

// Object is the Gateway API object of kind as kubectl prints it (a ReferenceGrant as
// v1beta1, the version the API server serves it in).
func (x *GatewayObject) Object(kind string) map[string]any {
	version := "gateway.networking.k8s.io/v1"
	if kind == "ReferenceGrant" {
		version = "gateway.networking.k8s.io/v1beta1"
	}
	return KubectlObject(version, kind, x.Namespace, x.Name, x.CreationTime, x.Spec)
}
