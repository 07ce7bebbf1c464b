package sidecar

import (
	"encoding/json"
	"time"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// TEMPORARY until inventory.Load reads VirtualServices and DestinationRules.
func (c *routingCase) addRouting(inv *inventory.Inventory) {
	if len(inv.VirtualServices) > 0 || len(inv.DestinationRules) > 0 {
		return
	}
	ts := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	d := func(x vectorDestination) inventory.Destination {
		return inventory.Destination{Host: x.Host, Subset: x.Subset, Port: x.Port, Weight: x.Weight}
	}
	for _, vs := range c.VirtualServices {
		out := inventory.VirtualService{Namespace: vs.Namespace, Name: vs.Name, CreationTime: ts(vs.CreationTime), Hosts: vs.Hosts, Gateways: vs.Gateways, ExportTo: vs.ExportTo}
		for _, h := range vs.HTTP {
			r := inventory.HTTPRoute{}
			for _, m := range h.Match {
				hm := inventory.HTTPMatch{SourceNamespace: m.SourceNamespace}
				if m.URIPrefix != "" {
					hm.URI = &inventory.StringMatch{Prefix: m.URIPrefix}
				}
				r.Match = append(r.Match, hm)
			}
			for _, x := range h.Route {
				r.Route = append(r.Route, d(x))
			}
			if h.Mirror != nil {
				m := d(*h.Mirror)
				r.Mirror = &m
			}
			out.HTTP = append(out.HTTP, r)
		}
		for _, t := range vs.TCP {
			var l inventory.L4Route
			for _, x := range t.Route {
				l.Route = append(l.Route, d(x))
			}
			out.TCP = append(out.TCP, l)
		}
		for _, t := range vs.TLS {
			var l inventory.L4Route
			for _, x := range t.Route {
				l.Route = append(l.Route, d(x))
			}
			out.TLS = append(out.TLS, l)
		}
		inv.VirtualServices = append(inv.VirtualServices, out)
	}
	for _, dr := range c.DestinationRules {
		out := inventory.DestinationRule{Namespace: dr.Namespace, Name: dr.Name, CreationTime: ts(dr.CreationTime), Host: dr.Host, ExportTo: dr.ExportTo, WorkloadSelector: dr.WorkloadSelector}
		for _, s := range dr.Subsets {
			out.Subsets = append(out.Subsets, inventory.Subset{Name: s, Labels: map[string]string{"version": s}})
		}
		if dr.TrafficPolicy != nil {
			b, _ := json.Marshal(map[string]any{"connectionPool": map[string]any{"tcp": map[string]any{"maxConnections": dr.TrafficPolicy.MaxConnections}}})
			out.TrafficPolicy = b
		}
		inv.DestinationRules = append(inv.DestinationRules, out)
	}
}
