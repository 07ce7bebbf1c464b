package main

import (
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// proxyRow is what one class of sidecar proxies receives: those of a namespace, or those of
// its workloads a workload Sidecar or DestinationRule selects.
type proxyRow struct {
	Namespace string                   `json:"namespace"`
	Workload  string                   `json:"workload,omitempty"` // the labels the class's workloads carry
	Sidecar   string                   `json:"sidecar"`
	Services  []sidecar.Service        `json:"services"`
	Rules     map[string]*sidecar.Rule `json:"rules"`
}

// sidecarBudget is how many hosts the sidecar table lists, over all classes of proxies,
// before it leaves the other classes out (and says how many).
const sidecarBudget = 5000

// sidecars fills the sidecar section: what each class of proxies receives, and -explain-host
// for -proxy.
func (r *report) sidecars(o options, c *config) {
	r.Sidecars = []proxyRow{}
	if o.proxySet && o.explainHost != "" {
		e := c.view.ExplainHost(o.proxy, o.labels, o.explainHost)
		r.SidecarExplain = &e
	}
	classes := c.view.Classes()
	one := o.proxySet && o.explainHost == ""
	if one { // one class, listed whatever its size
		classes = []sidecar.Class{{Namespace: o.proxy, Workload: o.labels}}
	}
	// Every class, until sidecarBudget hosts are listed: each namespace of a large mesh may
	// receive every public service, and the whole table would hold their product.
	listed := 0
	for i, cl := range classes {
		if listed >= sidecarBudget && !one {
			r.SidecarsOmitted = len(classes) - i
			break
		}
		p := c.view.Proxy(cl.Namespace, cl.Workload)
		r.Sidecars = append(r.Sidecars, proxyRow{Namespace: cl.Namespace, Workload: cl.Workload.String(), Sidecar: p.Sidecar, Services: p.Services, Rules: p.Rules})
		listed += len(p.Services)
	}
}
