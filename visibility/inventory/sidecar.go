package inventory

import (
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
)

// Sidecar is a networking.istio.io Sidecar resource as far as it decides what a sidecar
// proxy imports: which workloads it applies to and its egress listeners.
type Sidecar struct {
	Namespace    string    `json:"namespace"`
	Name         string    `json:"name"`
	CreationTime time.Time `json:"creationTime,omitzero"`
	// WorkloadSelector is spec.workloadSelector.labels: the Sidecar applies to the workloads
	// of its namespace carrying all of them. nil means no selector: the whole namespace. An
	// empty, non-nil map is a selector that selects every workload (Istio's
	// `workloadSelector: {}`), which Istio ranks with the other selectors, before the
	// namespace-wide Sidecars.
	WorkloadSelector map[string]string `json:"workloadSelector,omitempty"`
	// Egress are the egress listeners, in order; none means one listener importing "*/*".
	Egress []Egress `json:"egress,omitempty"`
	// OutboundTrafficMode is spec.outboundTrafficPolicy.mode, which replaces the mesh's for
	// the proxies the Sidecar applies to: OutboundRegistryOnly or OutboundAllowAny; "" when
	// the Sidecar has no outboundTrafficPolicy. A policy without a mode (only an egressProxy,
	// or {}) is REGISTRY_ONLY, the mode's zero value, as istiod reads it.
	OutboundTrafficMode string `json:"outboundTrafficMode,omitempty"`
}

// The modes of a Sidecar's outboundTrafficPolicy.
const (
	OutboundRegistryOnly = "REGISTRY_ONLY"
	OutboundAllowAny     = "ALLOW_ANY"
)

// Egress is one egress listener of a Sidecar.
type Egress struct {
	// Hosts are what the listener imports, each "namespace/host": the namespace is a name,
	// "." (the proxy's own namespace) or "*" (every namespace), and a leading "~" makes the
	// entry an exclusion ("~shop/*", and "~/*" for every namespace); the host is "*", a
	// wildcard "*.example.com" or an exact name.
	Hosts []string `json:"hosts"`
	// Port is the listener's port number (spec.egress[].port.number); 0 for a listener
	// without one. A listener with a port imports only the services that declare that port,
	// each with that port alone, unless the port's Protocol is HTTP_PROXY (an outbound HTTP
	// proxy, which imports services whatever their ports).
	Port     uint32 `json:"port,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	// Bind is spec.egress[].bind of a listener with a port: the address it binds, or, for
	// Port 0, the unix domain socket ("unix:///var/run/app.sock") a listener with a port
	// numbered 0 listens on. A listener without a port has none (Load leaves out what
	// such a listener binds, which decides nothing the views answer): Port 0 with a unix://
	// Bind is a socket listener, Port 0 without a Bind a listener without a port.
	Bind string `json:"bind,omitempty"`
}

// checkSidecar checks what a Sidecar built in Go carries, naming fields as Sidecar does
// (Load checks an object's fields as it reads them, with checkEgress and
// checkEgressListeners).
func checkSidecar(errs []*FieldError, sc *Sidecar) []*FieldError {
	errs = checkNamespaceName(errs, sc.Namespace, sc.Name)
	errs = checkWorkloadLabels(errs, func() fielderr.Path { return goValue.Child("workloadSelector") }, sc.WorkloadSelector)
	errs = checkOutboundMode(errs, goValue.Child("outboundTrafficMode"), sc.OutboundTrafficMode, true)
	for i := range sc.Egress {
		e := &sc.Egress[i]
		errs = checkEgress(errs, goValue, i, e)
		if e.Port == 0 && e.Bind != "" && !socketListener(e) {
			errs = append(errs, egressAt(goValue, i).Child("bind").Problemf(e.Bind, "%q: a listener with Port 0 is either a unix domain socket listener, whose Bind starts with unix://, or a listener without a port, which has no Bind", e.Bind))
		}
	}
	return checkEgressListeners(errs, goValue, sc.Egress)
}

// checkOutboundMode checks a Sidecar's outbound traffic mode at path: REGISTRY_ONLY or
// ALLOW_ANY, or none ("", when none may be: a Sidecar built in Go without a policy).
func checkOutboundMode(errs []*FieldError, path fielderr.Path, mode string, none bool) []*FieldError {
	switch {
	case mode == OutboundRegistryOnly, mode == OutboundAllowAny, mode == "" && none:
		return errs
	}
	return append(errs, path.Problemf(mode, "%q is not one of REGISTRY_ONLY, ALLOW_ANY", mode))
}

// socketListener reports whether e is a unix domain socket listener: a port numbered 0,
// bound to unix://….
func socketListener(e *Egress) bool { return e.Port == 0 && strings.HasPrefix(e.Bind, "unix://") }

// egressAt is the path of egress listener i under a Sidecar's spec.
func egressAt(spec fielderr.Path, i int) fielderr.Path { return spec.Child("egress").Index(i) }

// portNumberAt is the path of an egress listener's port number: port.number in the object,
// Port in Go.
func portNumberAt(listener fielderr.Path) fielderr.Path {
	return listener.Child("port").Field("number", "")
}

// checkEgressListeners checks what Istio's validation refuses across a Sidecar's egress
// listeners: a listener without a port that is not the last (so also a second one), two
// listeners with one port number, and two unix domain socket listeners with one socket.
func checkEgressListeners(errs []*FieldError, spec fielderr.Path, egress []Egress) []*FieldError {
	ports := map[uint32]int{}
	sockets := map[string]int{}
	for i := range egress {
		e := &egress[i]
		switch {
		case e.Port == 0 && !socketListener(e):
			if i != len(egress)-1 {
				errs = append(errs, egressAt(spec, i).Problem(nil, "sidecar: the egress listener with empty port should be the last listener in the list"))
			}
		case e.Port == 0:
			if j, dup := sockets[e.Bind]; dup {
				errs = append(errs, egressAt(spec, i).Child("bind").Problemf(e.Bind, "sidecar: unix domain socket values for listeners must be unique (it repeats %s)", egressAt(spec, j).Child("bind")))
			} else {
				sockets[e.Bind] = i
			}
		default:
			if j, dup := ports[e.Port]; dup {
				errs = append(errs, portNumberAt(egressAt(spec, i)).Problemf(e.Port, "sidecar: ports on IP bound listeners must be unique (it repeats %s)", portNumberAt(egressAt(spec, j))))
			} else {
				ports[e.Port] = i
			}
		}
	}
	return errs
}

// checkEgress checks egress listener i: at least one host, each host as Istio validates a
// Sidecar's egress hosts (see hosts.SidecarEgressHosts), and a port number of at most 65535.
// checkEgressListeners checks the listeners together.
func checkEgress(errs []*FieldError, spec fielderr.Path, i int, e *Egress) []*FieldError {
	if len(e.Hosts) == 0 {
		errs = append(errs, egressAt(spec, i).Child("hosts").Problem(nil, "sidecar: egress listener must contain at least one host"))
	}
	for j, h := range e.Hosts {
		for _, r := range hosts.Problems(h, hosts.SidecarEgressHosts) {
			errs = append(errs, egressAt(spec, i).Child("hosts").Index(j).Problem(h, r))
		}
	}
	if e.Port > 65535 {
		errs = append(errs, portNumberAt(egressAt(spec, i)).Problemf(e.Port, portOutOfRange, e.Port))
	}
	return errs
}
