package inventory

import (
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// The apiVersions a Sidecar, a VirtualService and a DestinationRule are read in: Istio serves
// each kind's one schema under all three.
var networkingVersions = []string{"networking.istio.io/v1", "networking.istio.io/v1beta1", "networking.istio.io/v1alpha3"}

// checkNetworkingVersion refuses an apiVersion Istio does not serve its networking kinds in
// (plural names the kind in the message).
func checkNetworkingVersion(d *strict.Decoder, o kube.Object, plural string) {
	if v, _ := o.Fields.Value("apiVersion").(string); v != "" && !slices.Contains(networkingVersions, v) {
		d.Fail("apiVersion", v, "%q is not a version Istio serves %s in (%s)", v, plural, strings.Join(networkingVersions, ", "))
	}
}

// isIstioNetworking reports whether o belongs to networking.istio.io (or has no apiVersion,
// as a hand-written object may not): a Sidecar of another group is another kind of object.
func isIstioNetworking(o kube.Object) bool {
	v, _ := o.Fields.Value("apiVersion").(string)
	return v == "" || strings.HasPrefix(v, "networking.istio.io/")
}

// specPorts reads spec.ports[].<key> (number for a ServiceEntry, port for a Service) and
// checks them as Validate does, with the protocol Istio gives each (see
// Service.Protocols): a ServiceEntry's protocol it does not recognise is refused, as Istio's
// validation refuses it.
func specPorts(d *strict.Decoder, spec strict.Fields, key string, kind Kind) ([]uint32, []string) {
	var out []uint32
	var protos []string
	aligned := -1 // out[:aligned] are spec.ports[:aligned] (-1: all are): checked together
	for i, item := range d.List(spec.Value("ports"), "spec.ports") {
		at := strict.Index("spec.ports", i)
		po, ok := d.Object(item, at)
		if !ok {
			if item == nil {
				d.Errorf(at, "a port may not be null")
			}
			if aligned < 0 {
				aligned = len(out)
			}
			continue
		}
		v, p, ok := po.Get(key)
		if !ok {
			d.Errorf(at, "%s must be set", key)
			if aligned < 0 {
				aligned = len(out)
			}
			continue
		}
		n := d.Uint(v, p)
		if n > 65535 {
			d.Fail(p, n, portOutOfRange, n)
			if aligned < 0 {
				aligned = len(out)
			}
			continue
		}
		out = append(out, uint32(n))
		protos = append(protos, portProtocol(d, po, at, uint32(n), kind))
	}
	if aligned < 0 {
		aligned = len(out)
	}
	add(d, checkPorts(nil, objectSpec, key, kind, out[:aligned]))
	return out, protos
}

// portProtocol reads the protocol Istio gives the port at path, numbered n, of a service of
// kind k (see Service.Protocols).
func portProtocol(d *strict.Decoder, po strict.Object, path string, n uint32, k Kind) string {
	var name, proto string
	po.String(&name, "name")
	po.String(&proto, "protocol")
	if k == ServiceEntry {
		p := ParseProtocol(proto)
		if p == "" && proto != "" {
			d.Fail(strict.Child(path, "protocol"), proto, "unsupported protocol: %s", proto)
		}
		return p
	}
	var app *string
	if v, p, ok := po.Get("appProtocol"); ok {
		s := d.String(v, p)
		app = &s
	}
	return kubernetesProtocol(n, name, proto, app)
}

// workloadLabels reads <path>.labels of the object at path (a ServiceEntry's or a Sidecar's
// spec.workloadSelector): nil when there is no selector, an empty map for a selector without
// labels.
func workloadLabels(d *strict.Decoder, x any, path string) map[string]string {
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	if v, p, ok := o.Get("labels"); ok {
		if m := d.StringMap(v, p); m != nil {
			add(d, checkWorkloadLabels(nil, func() fielderr.Path { return objectSpec.Child("workloadSelector").Child("labels") }, m))
			return m
		}
	}
	return map[string]string{}
}

// sidecar reads a Sidecar: its namespace, name, creation time, workload selector and egress
// listeners, refusing what Istio's validation refuses of them.
func (l *inventoryLoader) sidecar(o kube.Object) []error {
	var d strict.Decoder
	checkNetworkingVersion(&d, o, "Sidecars")
	m := readMeta(&d, o)
	sc := Sidecar{Namespace: m.namespace, Name: m.name}
	m.named(&d)
	sc.CreationTime = m.created(&d)
	spec, ok := d.Object(o.Fields.Value("spec"), "spec")
	if !ok {
		if d.Err() == nil {
			d.Errorf("spec", "a Sidecar without a spec is empty, which Istio refuses")
		}
		return fielderr.Split(d.Err())
	}
	if v, p, ok := spec.Get("workloadSelector"); ok {
		sc.WorkloadSelector = workloadLabels(&d, v, p)
	}
	if v, p, ok := spec.Get("outboundTrafficPolicy"); ok {
		sc.OutboundTrafficMode = outboundMode(&d, v, p)
	}
	var egress []any
	if v, p, ok := spec.Get("egress"); ok {
		egress = d.List(v, p)
	}
	if len(egress) == 0 && !hasAny(spec, "ingress", "outboundTrafficPolicy", "inboundConnectionPool") {
		d.Errorf("spec", "a Sidecar without egress, ingress, outboundTrafficPolicy or inboundConnectionPool is empty, which Istio refuses")
	}
	aligned := -1 // sc.Egress[:aligned] are spec.egress[:aligned] (-1: all are): checked together
	for i, item := range egress {
		at := strict.Index("spec.egress", i)
		eo, ok := d.Object(item, at)
		if !ok {
			if item == nil {
				d.Errorf(at, "an egress listener may not be null")
			}
			if aligned < 0 {
				aligned = len(sc.Egress)
			}
			continue
		}
		var e Egress
		if v, p, ok := eo.Get("hosts"); ok {
			e.Hosts = d.Strings(v, p)
		}
		var bind string
		eo.String(&bind, "bind")
		if v, p, ok := eo.Get("port"); ok {
			if po, ok := d.Object(v, p); ok {
				if v, p, ok := po.Get("number"); ok {
					if n := d.Uint(v, p); n <= 1<<32-1 {
						e.Port = uint32(n)
					} else {
						d.Fail(p, n, portOutOfRange, n)
					}
				}
				po.String(&e.Protocol, "protocol")
				if e.Port == 0 && !strings.HasPrefix(bind, "unix://") {
					d.Fail(p, bind, "a port numbered 0 is for a unix domain socket listener, whose bind must start with unix:// (bind is %q)", bind)
				}
				e.Bind = bind
			}
		}
		add(&d, checkEgress(nil, objectSpec, i, &e))
		sc.Egress = append(sc.Egress, e)
	}
	if aligned < 0 {
		aligned = len(sc.Egress)
	}
	add(&d, checkEgressListeners(nil, objectSpec, sc.Egress[:aligned]))
	if err := d.Err(); err != nil {
		return fielderr.Split(err)
	}
	if err := l.firstOfItsName("Sidecar", sc.Namespace, sc.Name); err != nil {
		return []error{err}
	}
	l.inv.Sidecars = append(l.inv.Sidecars, sc)
	return nil
}

// outboundMode reads the mode of the outboundTrafficPolicy at path: REGISTRY_ONLY when it
// gives none, as istiod reads a policy without one.
func outboundMode(d *strict.Decoder, x any, path string) string {
	o, ok := d.Object(x, path)
	if !ok {
		return ""
	}
	mode := OutboundRegistryOnly
	if v, p, ok := o.Get("mode"); ok {
		mode = d.String(v, p)
		add(d, checkOutboundMode(nil, objectSpec.Child("outboundTrafficPolicy").Child("mode"), mode, false))
	}
	return mode
}

// hasAny reports whether o has any of the fields, set and not null.
func hasAny(o strict.Object, fields ...string) bool {
	for _, f := range fields {
		if _, _, ok := o.Get(f); ok {
			return true
		}
	}
	return false
}
