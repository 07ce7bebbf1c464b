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
		if _, _, ok := spec.Get(list); !ok && spec.Path() != "" {
			d.Errorf(strict.Child("spec", list), "Required value")
		}
	}
	g.From = readObjects(d, spec, "from", func(d *strict.Decoder, o strict.Object) ReferenceGrantFrom {
		var f ReferenceGrantFrom
		requiredString(d, o, &f.Group, "group")
		requiredString(d, o, &f.Kind, "kind")
		requiredString(d, o, &f.Namespace, "namespace")
		return f
	})
	g.To = readObjects(d, spec, "to", func(d *strict.Decoder, o strict.Object) ReferenceGrantTo {
		var t ReferenceGrantTo
		requiredString(d, o, &t.Group, "group")
		requiredString(d, o, &t.Kind, "kind")
		o.String(&t.Name, "name")
		return t
	})
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
	if _, _, ok := spec.Get("listeners"); !ok && spec.Path() != "" {
		d.Errorf("spec.listeners", "Required value")
	}
	g.Listeners = readObjects(d, spec, "listeners", readListener)
	return g
}

func readListener(d *strict.Decoder, o strict.Object) Listener {
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
	return l
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
	a.Kinds = readObjects(d, o, "kinds", func(d *strict.Decoder, ko strict.Object) RouteGroupKind {
		k := RouteGroupKind{Group: GatewayAPIGroup}
		ko.String(&k.Group, "group")
		requiredString(d, ko, &k.Kind, "kind")
		return k
	})
	return a
}

// int32Field reads an int32 field of o at key, if present.
func int32Field(d *strict.Decoder, o strict.Object, key string, dst *int32) {
	if v, p, ok := o.Get(key); ok {
		n, _ := d.Int(v, p, math.MinInt32, math.MaxInt32)
		*dst = int32(n)
	}
}
