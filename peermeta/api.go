package peermeta

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// APIOutput gathers what Consul's HTTP API says about a cluster's services, from the outputs
// a user saves with curl, into the Input replication needs: the catalog and each service's
// kind, the connect services, and the mesh gateways. Read any number of outputs of each
// kind, in any order; Input settles what they say together. The outputs are read strictly —
// a key given twice, a value of the wrong type, data after the document are errors naming
// the path — but the fields meshscope does not use are not judged: Consul's API adds fields
// over versions. The zero APIOutput has read nothing.
type APIOutput struct {
	catalog      []exports.ServiceName
	catalogKinds map[exports.ServiceName]ServiceKind // what the catalog outputs say
	healthKinds  map[exports.ServiceName]ServiceKind // what the instances of the health outputs say
	connect      []exports.ServiceName
	gateways     []CheckServiceNode
	protocols    map[string][]string // destination service -> its sidecar proxies' own protocols, as read
}

// ReadCatalog reads one catalog output, named name in its errors:
//
//   - /v1/internal/ui/services: a list saying each service's Kind, and whether it has a
//     sidecar proxy (ConnectedWithProxy) or connect-native instances (ConnectNative);
//   - /v1/catalog/service/<name>: a list of instances with ServiceName and ServiceKind, a
//     sidecar proxy's ServiceProxy.DestinationServiceName and ServiceConnect.Native;
//   - /v1/catalog/services: service names to tags, which says no kinds.
//
// An entry imported from a peer (PeerName) is not the cluster's, and is skipped. Services
// whose output gives no Namespace or Partition are in namespace and partition ("" meaning
// default). A sidecar proxy makes a connect service of the service it proxies for, a
// connect-native instance of its own.
func (a *APIOutput) ReadCatalog(name string, data []byte, partition, namespace string) error {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	d := &strict.Decoder{}
	switch t := x.(type) {
	case strict.Fields:
		for _, f := range t {
			d.Strings(f.Value, strict.Key("", f.Key)) // the tags
			a.catalog = append(a.catalog, exports.ServiceName{Partition: partition, Namespace: namespace, Name: f.Key}.Canonical())
		}
	case []any:
		for i, item := range t {
			if o, ok := d.Object(item, strict.Index("", i)); ok {
				a.catalogEntry(d, o, partition, namespace)
			}
		}
	default:
		return fmt.Errorf("%s: not catalog output: /v1/internal/ui/services and /v1/catalog/service/<name> print a list, /v1/catalog/services an object; got %s", name, strict.Describe(x))
	}
	return fielderr.In(name, d.Err())
}

// catalogEntry reads one element of /v1/internal/ui/services or /v1/catalog/service/<name>.
func (a *APIOutput) catalogEntry(d *strict.Decoder, o strict.Object, partition, namespace string) {
	var s exports.ServiceName
	var kind, peer, dest string
	var proxied, native bool
	kindField := "Kind"
	if _, _, ui := o.Get("Name"); ui {
		o.String(&s.Name, "Name") // /v1/internal/ui/services
		o.String(&kind, kindField)
		proxied, native = isSet(d, o, "ConnectedWithProxy"), isSet(d, o, "ConnectNative")
	} else {
		o.String(&s.Name, "ServiceName") // /v1/catalog/service/<name>
		kindField = "ServiceKind"
		o.String(&kind, kindField)
		if v, p, ok := o.Get("ServiceProxy"); ok {
			if po, ok := d.Object(v, p); ok {
				po.String(&dest, "DestinationServiceName")
			}
		}
		if v, p, ok := o.Get("ServiceConnect"); ok {
			if co, ok := d.Object(v, p); ok {
				native = isSet(d, co, "Native")
			}
		}
	}
	o.String(&s.Namespace, "Namespace")
	o.String(&s.Partition, "Partition")
	o.String(&peer, "PeerName")
	k := ServiceKind(kind)
	switch {
	case s.Name == "":
		d.Errorf(o.Path(), "no Name (/v1/internal/ui/services) or ServiceName (/v1/catalog/service/<name>): is this catalog output?")
	case !k.valid():
		d.Fail(strict.Child(o.Path(), kindField), kind, "%s", kindProblem(k))
	case peer == "":
		s = exports.ServiceName{Partition: cmp.Or(s.Partition, partition), Namespace: cmp.Or(s.Namespace, namespace), Name: s.Name}.Canonical()
		a.catalog = append(a.catalog, s)
		if a.catalogKinds == nil {
			a.catalogKinds = map[exports.ServiceName]ServiceKind{}
		}
		a.catalogKinds[s] = k
		if c, ok := connectService(s, k, dest, native, proxied); ok {
			a.connect = append(a.connect, c)
		}
	}
}

// isSet reads the boolean field name of o; absent or null is false.
func isSet(d *strict.Decoder, o strict.Object, name string) bool {
	v, p, ok := o.Get(name)
	return ok && d.Bool(v, p)
}

// ReadHealth reads /v1/health/service/<name> or /v1/health/connect/<name> output (for
// example `curl $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway`), named name in its errors:
// a JSON array of instances with their nodes and checks, or several arrays one after another
// (what a loop of curl commands saves). Fields meshscope does not use are ignored, as
// Consul's API clients ignore them, but the JSON is read exactly: a key given twice (in any
// case, as those clients match field names: "Port" and "port" are one field) and a value of
// the wrong type are errors naming the array, the element, the field (and the key of a map)
// and the value; every element's problems are reported:
//
//	gateways.json: value 1: [1].Service.TaggedAddresses["wan"].Port: must be a whole number, got the string "443"
//
// A service's Kind must be one of Consul's (ServiceKind). Every element must be an instance:
// an object with a Node and a Service (Checks may be absent). An element without either —
// what another endpoint's output, such as the catalog's /v1/internal/ui/services, holds — is
// an error saying what it found, rather than an instance of no service. An empty array is a
// service without instances.
//
// The mesh gateway instances are the gateways every exported connect service gets a
// synthetic instance at; a sidecar proxy makes a connect service of the service it proxies
// for, a connect-native instance of its own; and every instance says its service's kind,
// for the catalog services no catalog output classifies.
func (a *APIOutput) ReadHealth(name string, data []byte) error {
	values, err := strict.ParseJSONStream(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	var errs []error
	for k, v := range values {
		nodes, err := decodeHealth(v)
		if err != nil {
			errs = append(errs, fielderr.In(fmt.Sprintf("%s: value %d", name, k+1), err))
			continue
		}
		for _, node := range nodes {
			s := node.Service
			own := exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Service}.Canonical()
			if a.healthKinds == nil {
				a.healthKinds = map[exports.ServiceName]ServiceKind{}
			}
			a.healthKinds[own] = s.Kind
			if s.Kind == KindMeshGateway {
				a.gateways = append(a.gateways, node)
			}
			dest, native := "", s.Connect != nil && s.Connect.Native
			if s.Proxy != nil {
				dest = s.Proxy.DestinationServiceName
				a.proxyProtocol(s)
			}
			if c, ok := connectService(own, s.Kind, dest, native, false); ok {
				a.connect = append(a.connect, c)
			}
		}
	}
	return errors.Join(errs...)
}

// proxyProtocol records the protocol a sidecar proxy's registration gives itself.
func (a *APIOutput) proxyProtocol(s *NodeService) {
	if s.Kind != KindConnectProxy || s.Proxy.DestinationServiceName == "" {
		return
	}
	p := ""
	if s.Proxy.Config != nil {
		p = strings.ToLower(s.Proxy.Config.Protocol)
	}
	if a.protocols == nil {
		a.protocols = map[string][]string{}
	}
	a.protocols[s.Proxy.DestinationServiceName] = append(a.protocols[s.Proxy.DestinationServiceName], p)
}

// Protocols returns the protocol each service's sidecar proxies give themselves in their
// registration (Proxy.Config.protocol of the health outputs' connect proxies), for
// store.Cluster.Protocols: a service whose proxies give none is absent. Proxies of one
// service that disagree are an error, naming the protocols: a sidecar's answer depends on
// which instance is called.
func (a *APIOutput) Protocols() (map[string]string, error) {
	out := map[string]string{}
	var errs []error
	for _, svc := range slices.Sorted(maps.Keys(a.protocols)) {
		ps := slices.Compact(slices.Sorted(slices.Values(a.protocols[svc])))
		if len(ps) > 1 {
			errs = append(errs, &FieldError{Field: "Proxy.Config.protocol", Value: ps, Detail: fmt.Sprintf("the sidecar proxies of %s give themselves different protocols: %q", svc, ps)})
			continue
		}
		if ps[0] != "" {
			out[svc] = ps[0]
		}
	}
	return out, errors.Join(errs...)
}

// ReadGatewayServices reads /v1/catalog/gateway-services/<gateway> output of a terminating
// gateway, named name in its errors: the services behind it, which are connect services.
// Another kind of gateway's output is an error: only a terminating gateway's services are
// connect services.
func (a *APIOutput) ReadGatewayServices(name string, data []byte) error {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	d := &strict.Decoder{}
	for i, item := range d.List(x, "") {
		o, ok := d.Object(item, strict.Index("", i))
		if !ok {
			continue
		}
		var kind string
		o.String(&kind, "GatewayKind")
		if ServiceKind(kind) != KindTerminatingGateway {
			d.Fail(strict.Child(o.Path(), "GatewayKind"), kind, "%q: only a terminating gateway's services are connect services", kind)
			continue
		}
		if v, p, ok := o.Get("Service"); ok {
			if so, ok := d.Object(v, p); ok {
				var s exports.ServiceName
				so.String(&s.Name, "Name")
				so.String(&s.Namespace, "Namespace")
				so.String(&s.Partition, "Partition")
				a.connect = append(a.connect, s.Canonical())
			}
		}
	}
	return fielderr.In(name, d.Err())
}

// Input returns what a has read as the part of a replication Input it gives — the caller
// sets Exporter, Exports and Entries (and KindsFrom): the catalog, sorted, once each, with
// each service's kind (what a catalog output says, else what an instance in a health output
// says) and the services nothing classifies apart, in Unclassified; the connect services;
// and the mesh gateway instances, in the order read. The slices and maps are the Input's own.
func (a *APIOutput) Input() Input {
	in := Input{Gateways: slices.Clone(a.gateways), Connect: slices.Clone(a.connect), Kinds: map[exports.ServiceName]ServiceKind{}}
	all := slices.SortedFunc(slices.Values(a.catalog), exports.ServiceName.Compare)
	for _, s := range slices.Compact(all) {
		k, ok := a.catalogKinds[s]
		if !ok {
			k, ok = a.healthKinds[s]
		}
		if !ok {
			in.Unclassified = append(in.Unclassified, s)
			continue
		}
		in.Catalog = append(in.Catalog, s)
		in.Kinds[s] = k
	}
	return in
}

// LoadTrustDomain reads /v1/connect/ca/roots output for the cluster's trust domain: its
// TrustDomain, which must be given.
func LoadTrustDomain(data []byte) (string, error) {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return "", err
	}
	d := &strict.Decoder{}
	var td string
	if o, ok := d.Object(x, ""); ok {
		o.String(&td, "TrustDomain")
	}
	if err := d.Err(); err != nil {
		return "", err
	}
	if td == "" {
		return "", &FieldError{Field: "TrustDomain", Detail: "missing; is this /v1/connect/ca/roots output?"}
	}
	return td, nil
}
