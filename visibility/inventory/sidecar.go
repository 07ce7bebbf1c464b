package inventory

import (
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
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
}

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

// egressHostProblem says why s is not an egress host as Istio validates them, "" when it is.
func egressHostProblem(s string) string {
	ns, h, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return "is not of the form namespace/host"
	case strings.Contains(h, "/"):
		return "has more than one \"/\"; the form is namespace/host"
	case ns == "" || h == "":
		return "has an empty namespace or host; the form is namespace/host"
	}
	if n := strings.TrimPrefix(ns, "~"); n != "" && n != names.Wildcard && n != "." {
		if r := names.Label(n); r != "" {
			return "namespace " + r + "; it must be a namespace name, \".\" or \"*\", optionally after \"~\""
		}
	}
	switch {
	case h == names.Wildcard:
		return ""
	case strings.HasPrefix(h, "*") && !strings.HasPrefix(h, "*."):
		return "has a partial wildcard, which a Sidecar may not import (only \"*\" or \"*.\" followed by a domain)"
	case !strings.Contains(h, "."):
		return "has a short name; a Sidecar imports fully qualified names"
	}
	if r := hosts.Problem(h); r != "" {
		return "host " + r
	}
	return ""
}

// checkSidecar checks what a Sidecar carries, naming fields as Sidecar does (the loader
// names them as the object spells them, through its own path).
func checkSidecar(errs []*FieldError, sc *Sidecar) []*FieldError {
	if sc.Namespace == "" {
		errs = append(errs, fielderr.Newf("", "Namespace", "", "must not be empty"))
	} else if r := names.Label(sc.Namespace); r != "" {
		errs = append(errs, fielderr.Newf("", "Namespace", sc.Namespace, "%q %s", sc.Namespace, r))
	}
	if sc.Name == "" {
		errs = append(errs, fielderr.Newf("", "Name", "", "must not be empty"))
	}
	errs = checkWorkloadLabels(errs, "WorkloadSelector", sc.WorkloadSelector)
	for i := range sc.Egress {
		e := &sc.Egress[i]
		errs = checkEgress(errs, strict.Index("Egress", i), "Hosts", "Port", e)
		if e.Port == 0 && e.Bind != "" && !socketListener(e) {
			errs = append(errs, fielderr.Newf("", strict.Index("Egress", i)+".Bind", e.Bind, "%q: a listener with Port 0 is either a unix domain socket listener, whose Bind starts with unix://, or a listener without a port, which has no Bind", e.Bind))
		}
	}
	return checkEgressListeners(errs, sc.Egress, egressFields{"Egress", "Port", "Bind"})
}

// socketListener reports whether e is a unix domain socket listener: a port numbered 0,
// bound to unix://….
func socketListener(e *Egress) bool { return e.Port == 0 && strings.HasPrefix(e.Bind, "unix://") }

// egressFields spells a Sidecar's egress listeners and their port and bind fields, as the
// object does (spec.egress, port.number, bind) or as the Go value does.
type egressFields struct{ list, port, bind string }

// checkEgressListeners checks what Istio's validation refuses across a Sidecar's egress
// listeners: a listener without a port that is not the last (so also a second one), two
// listeners with one port number, and two unix domain socket listeners with one socket.
func checkEgressListeners(errs []*FieldError, egress []Egress, f egressFields) []*FieldError {
	ports := map[uint32]int{}
	sockets := map[string]int{}
	for i := range egress {
		e := &egress[i]
		at := strict.Index(f.list, i)
		switch {
		case e.Port == 0 && !socketListener(e):
			if i != len(egress)-1 {
				errs = append(errs, fielderr.Newf("", at, nil, "sidecar: the egress listener with empty port should be the last listener in the list"))
			}
		case e.Port == 0:
			if j, dup := sockets[e.Bind]; dup {
				errs = append(errs, fielderr.Newf("", at+"."+f.bind, e.Bind, "sidecar: unix domain socket values for listeners must be unique (it repeats %s)", strict.Index(f.list, j)+"."+f.bind))
			} else {
				sockets[e.Bind] = i
			}
		default:
			if j, dup := ports[e.Port]; dup {
				errs = append(errs, fielderr.Newf("", at+"."+f.port, e.Port, "sidecar: ports on IP bound listeners must be unique (it repeats %s)", strict.Index(f.list, j)+"."+f.port))
			} else {
				ports[e.Port] = i
			}
		}
	}
	return errs
}

// checkWorkloadLabels checks the label keys and values of a workload selector at path.
func checkWorkloadLabels(errs []*FieldError, path string, ls map[string]string) []*FieldError {
	return append(errs, kube.LabelProblems(path, ls)...)
}

// checkEgress checks one egress listener at path (hostsField and portField name its fields);
// checkEgressListeners checks them together.
func checkEgress(errs []*FieldError, path, hostsField, portField string, e *Egress) []*FieldError {
	hp := strict.Child(path, hostsField)
	if len(e.Hosts) == 0 {
		errs = append(errs, fielderr.Newf("", hp, nil, "an egress listener imports at least one host"))
	}
	for j, h := range e.Hosts {
		if r := egressHostProblem(h); r != "" {
			errs = append(errs, fielderr.Newf("", strict.Index(hp, j), h, "%q %s", h, r))
		}
	}
	if e.Port > 65535 {
		errs = append(errs, fielderr.Newf("", strict.Child(path, portField), e.Port, portOutOfRange, e.Port))
	}
	return errs
}

// checkPorts checks a service's declared ports at field (each number at field[i]+sub):
// each 1 to 65535, and, for a
// ServiceEntry, each once (a Kubernetes Service may give a number twice, for TCP and UDP).
func checkPorts(errs []*FieldError, field, sub string, kind Kind, ports []uint32) []*FieldError {
	if len(ports) == 0 {
		return errs
	}
	var seen map[uint32]int // for long lists; short ones are scanned
	if len(ports) > 8 {
		seen = make(map[uint32]int, len(ports))
	}
	for i, p := range ports {
		if p == 0 || p > 65535 {
			errs = append(errs, fielderr.Newf("", strict.Index(field, i)+sub, p, portOutOfRange, p))
			continue
		}
		j, dup := -1, false
		if seen != nil {
			if j, dup = seen[p]; !dup {
				seen[p] = i
			}
		} else if j = slices.Index(ports[:i], p); j >= 0 {
			dup = true
		}
		if dup && kind == ServiceEntry {
			errs = append(errs, fielderr.Newf("", strict.Index(field, i)+sub, p, "port %d repeats %s; Istio requires a ServiceEntry's port numbers unique", p, strict.Index(field, j)+sub))
		}
	}
	return errs
}
