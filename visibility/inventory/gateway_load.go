package inventory

import (
	"math"

	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// readReferenceGrant reads a ReferenceGrant's spec: from and to.
func readReferenceGrant(d *strict.Decoder, spec strict.Object) ReferenceGrant {
	var g ReferenceGrant
	for _, list := range []string{"from", "to"} {
		v, p, ok := spec.Get(list)
		if !ok {
			if spec.Path() != "" {
				d.Errorf(strict.Child("spec", list), "Required value")
			}
			continue
		}
		for i, item := range d.List(v, p) {
			o, ok := objectItem(d, item, strict.Index(p, i))
			if !ok {
				continue
			}
			if list == "from" {
				var f ReferenceGrantFrom
				requiredString(d, o, &f.Group, "group")
				requiredString(d, o, &f.Kind, "kind")
				requiredString(d, o, &f.Namespace, "namespace")
				g.From = append(g.From, f)
				continue
			}
			var t ReferenceGrantTo
			requiredString(d, o, &t.Group, "group")
			requiredString(d, o, &t.Kind, "kind")
			o.String(&t.Name, "name")
			g.To = append(g.To, t)
		}
	}
	return g
}

// requiredString reads the string field key of o, which the API server requires.
func requiredString(d *strict.Decoder, o strict.Object, dst *string, key string) {
	if _, _, ok := o.Get(key); !ok {
		d.Errorf(strict.Child(o.Path(), key), "Required value")
		return
	}
	o.String(dst, key)
}

// readGateway reads a Gateway's spec: its class and listeners, with the defaults the API
// server writes.
func readGateway(d *strict.Decoder, spec strict.Object) Gateway {
	var g Gateway
	if spec.Path() != "" {
		requiredString(d, spec, &g.ClassName, "gatewayClassName")
	}
	v, p, ok := spec.Get("listeners")
	if !ok && spec.Path() != "" {
		d.Errorf("spec.listeners", "Required value")
	}
	for i, item := range d.List(v, p) {
		o, ok := objectItem(d, item, strict.Index(p, i))
		if !ok {
			continue
		}
		l := Listener{AllowedRoutes: AllowedRoutes{From: "Same"}}
		requiredString(d, o, &l.Name, "name")
		requiredString(d, o, &l.Protocol, "protocol")
		o.String(&l.Hostname, "hostname")
		if _, _, ok := o.Get("port"); !ok {
			d.Errorf(strict.Child(o.Path(), "port"), "Required value")
		}
		l.Port = readPort(d, o)
		if v, p, ok := o.Get("tls"); ok {
			if to, ok := d.Object(v, p); ok {
				l.TLSMode = "Terminate"
				to.String(&l.TLSMode, "mode")
			}
		}
		if v, p, ok := o.Get("allowedRoutes"); ok {
			if ao, ok := d.Object(v, p); ok {
				l.AllowedRoutes = readAllowedRoutes(d, ao)
			}
		}
		g.Listeners = append(g.Listeners, l)
	}
	return g
}

func readAllowedRoutes(d *strict.Decoder, o strict.Object) AllowedRoutes {
	a := AllowedRoutes{From: "Same"}
	if v, p, ok := o.Get("namespaces"); ok {
		if no, ok := d.Object(v, p); ok {
			no.String(&a.From, "from")
			if v, p, ok := no.Get("selector"); ok {
				a.Selector = kube.DecodeSelector(d, v, p)
			}
		}
	}
	if v, p, ok := o.Get("kinds"); ok {
		for i, item := range d.List(v, p) {
			ko, ok := objectItem(d, item, strict.Index(p, i))
			if !ok {
				continue
			}
			k := RouteGroupKind{Group: GatewayAPIGroup}
			ko.String(&k.Group, "group")
			requiredString(d, ko, &k.Kind, "kind")
			a.Kinds = append(a.Kinds, k)
		}
	}
	return a
}

// int32Field reads an int32 field of o at key, if present.
func int32Field(d *strict.Decoder, o strict.Object, key string, dst *int32) {
	if v, p, ok := o.Get(key); ok {
		n, _ := d.Int(v, p, math.MinInt32, math.MaxInt32)
		*dst = int32(n)
	}
}
