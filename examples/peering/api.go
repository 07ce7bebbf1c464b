package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/peermeta"
)

// The readers of Consul's HTTP API output. They read it strictly — a key given twice, a value
// of the wrong type or data after the document is an error naming the file and the path —
// but do not judge the fields they do not use: Consul's API adds fields over versions.

// loadCatalog reads one catalog output into in.catalog, and the kinds it says into kinds:
// /v1/internal/ui/services or /v1/catalog/service/<name> (lists that say each service's
// kind; a service imported from a peer is not the cluster's and is skipped), or
// /v1/catalog/services (service names to tags, which says no kinds). The lists also say
// which services are connect services, into in.connect: ConnectedWithProxy and
// ConnectNative of /v1/internal/ui/services, a connect-proxy's
// ServiceProxy.DestinationServiceName and ServiceConnect.Native of
// /v1/catalog/service/<name>. Services without a namespace or partition of their own are in
// -namespace and -partition.
func loadCatalog(name string, data []byte, partition, namespace string, in *inputs, kinds map[exports.ServiceName]string) error {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	d := &strict.Decoder{}
	switch t := x.(type) {
	case strict.Fields:
		for _, f := range t {
			d.Strings(f.Value, strict.Key("", f.Key)) // the tags
			in.catalog = append(in.catalog, exports.ServiceName{Partition: partition, Namespace: namespace, Name: f.Key}.Canonical())
		}
	case []any:
		for i, item := range t {
			o, ok := d.Object(item, strict.Index("", i))
			if !ok {
				continue
			}
			var s exports.ServiceName
			var kind, peer, dest string
			var proxied, native bool
			if _, _, ui := o.Get("Name"); ui {
				o.String(&s.Name, "Name") // /v1/internal/ui/services
				o.String(&kind, "Kind")
				proxied, native = isSet(d, o, "ConnectedWithProxy"), isSet(d, o, "ConnectNative")
			} else {
				o.String(&s.Name, "ServiceName") // /v1/catalog/service/<name>
				o.String(&kind, "ServiceKind")
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
			switch {
			case s.Name == "":
				d.Errorf(strict.Index("", i), "no Name (/v1/internal/ui/services) or ServiceName (/v1/catalog/service/<name>): is this catalog output?")
			case peer == "":
				s = exports.ServiceName{Partition: cmp.Or(s.Partition, partition), Namespace: cmp.Or(s.Namespace, namespace), Name: s.Name}.Canonical()
				in.catalog = append(in.catalog, s)
				kinds[s] = kind
				// What makes a connect service, as the health outputs say it too: a sidecar
				// proxy for it, or a connect-native instance.
				switch {
				case proxied || native:
					in.connect = append(in.connect, s)
				case kind == peermeta.KindConnectProxy && dest != "":
					in.connect = append(in.connect, exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: dest})
				}
			}
		}
	default:
		return fmt.Errorf("%s: not catalog output: /v1/internal/ui/services and /v1/catalog/service/<name> print a list, /v1/catalog/services an object; got %s", name, strict.Describe(x))
	}
	return fielderr.In(name, d.Err())
}

// isSet reads the boolean field name of o; absent or null is false.
func isSet(d *strict.Decoder, o strict.Object, name string) bool {
	v, p, ok := o.Get(name)
	return ok && d.Bool(v, p)
}

// loadHealth reads /v1/health/service/<name> or /v1/health/connect/<name> output — a list of
// instances, or several lists one after another — into mesh gateways, connect services (a
// sidecar proxy's destination, a connect-native service) and the kind of each instance's
// service.
func loadHealth(name string, data []byte, in *inputs) error {
	values, err := strict.ParseJSONStream(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	var errs []error
	for k, v := range values {
		b, err := json.Marshal(v)
		var nodes []peermeta.CheckServiceNode
		if err == nil {
			nodes, err = peermeta.LoadHealth(b)
		}
		if err != nil {
			errs = append(errs, fielderr.In(fmt.Sprintf("%s: value %d", name, k+1), err))
			continue
		}
		for _, node := range nodes {
			s := node.Service
			if s == nil {
				continue
			}
			in.kinds[exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Service}.Canonical()] = s.Kind
			switch {
			case s.Kind == peermeta.KindMeshGateway:
				in.gateways = append(in.gateways, node)
			case s.Kind == peermeta.KindConnectProxy && s.Proxy != nil && s.Proxy.DestinationServiceName != "":
				in.connect = append(in.connect, exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Proxy.DestinationServiceName})
			case s.Connect != nil && s.Connect.Native:
				in.connect = append(in.connect, exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Service})
			}
		}
	}
	return errors.Join(errs...)
}

// loadGatewayServices reads /v1/catalog/gateway-services/<terminating-gateway> output: the
// services behind a terminating gateway, which are connect services.
func loadGatewayServices(name string, data []byte, in *inputs) error {
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
		if kind != peermeta.KindTerminatingGateway {
			d.Fail(strict.Index("", i)+".GatewayKind", kind, "%q: only a terminating gateway's services are connect services", kind)
			continue
		}
		if v, p, ok := o.Get("Service"); ok {
			if so, ok := d.Object(v, p); ok {
				var s exports.ServiceName
				so.String(&s.Name, "Name")
				so.String(&s.Namespace, "Namespace")
				so.String(&s.Partition, "Partition")
				in.connect = append(in.connect, s)
			}
		}
	}
	return fielderr.In(name, d.Err())
}

// loadTrustDomain reads /v1/connect/ca/roots output for the cluster's trust domain.
func loadTrustDomain(name string, data []byte) (string, error) {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return "", fielderr.In(name, err)
	}
	d := &strict.Decoder{}
	var td string
	if o, ok := d.Object(x, ""); ok {
		o.String(&td, "TrustDomain")
	}
	if err := d.Err(); err != nil {
		return "", fielderr.In(name, err)
	}
	if td == "" {
		return "", fmt.Errorf("%s: TrustDomain: missing; is this /v1/connect/ca/roots output?", name)
	}
	return td, nil
}
