package inventory

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
)

// Validate reports every problem of an inventory built in Go — what Load refuses of the
// objects it reads, checked by the same code — each naming the item and its field as the
// Go value spells them ("Services[3] (ServiceEntry a/x): Hosts[0]: …"): a cluster domain
// that is not a DNS name; for a service an unknown kind, an empty namespace or name, two
// services of one kind with the same namespace and name, a host Istio's validation refuses
// in a ServiceEntry (a domain whose first label may be a wildcard label, *. or partial, and
// whose top level domain is not a number; "*" alone is refused), an invalid prefix among the addresses, an invalid exportTo, an unknown
// resolution, a port out of range (or, for a ServiceEntry, given twice), invalid selector
// labels, an allocated address that is not an IP or is for none of the service's hosts; for
// a Sidecar, a VirtualService or a DestinationRule what Istio's validation refuses (see
// Load, and the package documentation for the rules), an empty namespace or name, and two of
// one kind with one namespace and name. Every view of an inventory validates it.
func (inv *Inventory) Validate() error {
	if inv == nil {
		return nil
	}
	var errs []error
	if d := inv.Domain; d != "" {
		if r := hosts.DomainProblem(d); r != "" {
			errs = append(errs, goValue.Child("domain").Problem(d, strconv.Quote(d)+" "+r))
		}
	}
	type key struct {
		kind            Kind
		namespace, name string
	}
	errs = append(errs, checkItems(inv.Services, "services",
		func(s *Service) key { return key{s.Kind, s.Namespace, s.Name} },
		func(s *Service) []*FieldError { return checkService(nil, s) },
		func(s *Service) (string, string, string) { return s.Kind.String(), s.Namespace, s.Name },
		func(s *Service) string { return kindWords(s.Kind) })...)
	errs = append(errs, checkNamed(inv.Sidecars, "sidecars", "Sidecar",
		func(sc *Sidecar) (string, string) { return sc.Namespace, sc.Name }, checkSidecar)...)
	errs = append(errs, checkNamed(inv.VirtualServices, "virtualServices", "VirtualService",
		func(vs *VirtualService) (string, string) { return vs.Namespace, vs.Name },
		func(p []*FieldError, vs *VirtualService) []*FieldError {
			return checkVirtualService(checkNamespaceName(p, vs.Namespace, vs.Name), goValue, vs, nil)
		})...)
	errs = append(errs, checkNamed(inv.DestinationRules, "destinationRules", "DestinationRule",
		func(dr *DestinationRule) (string, string) { return dr.Namespace, dr.Name },
		func(p []*FieldError, dr *DestinationRule) []*FieldError {
			return checkDestinationRule(checkNamespaceName(p, dr.Namespace, dr.Name), goValue, dr)
		})...)
	errs = append(errs, inv.validateGatewayAPI()...)
	return errors.Join(errs...)
}

// itemWhere names item i of the Inventory's list (its JSON name) for its problems:
// "Services[3] (ServiceEntry a/x)". It is spelt only for an item that has problems.
func itemWhere(list string, i int, kind, namespace, name string) string {
	return goValue.Child(list).Index(i).String() + " (" + kind + " " + namespace + "/" + name + ")"
}

// appendIn appends problems to errs, each with the Where that where spells, called only when
// there are problems.
func appendIn(errs []error, problems []*FieldError, where func() string) []error {
	if len(problems) == 0 {
		return errs
	}
	w := where()
	for _, p := range problems {
		errs = append(errs, fielderr.In(w, p))
	}
	return errs
}

// checkNamed validates the objects of one Istio kind (list is the JSON name of the
// Inventory's slice of them), naming each, and refuses a second object with one namespace and
// name.
func checkNamed[T any](objs []T, list, kind string, id func(*T) (namespace, name string), check func([]*FieldError, *T) []*FieldError) []error {
	return checkItems(objs, list,
		func(o *T) [2]string {
			ns, name := id(o)
			return [2]string{ns, name}
		},
		func(o *T) []*FieldError { return check(nil, o) },
		func(o *T) (string, string, string) {
			ns, name := id(o)
			return kind, ns, name
		},
		func(*T) string { return kind })
}

// checkItems validates the objects of one list of the Inventory (list is its JSON name) in
// one pass over them: check gives an object's problems, and an object whose key repeats an
// earlier object's is refused as a second one. Each problem is put in the object's place
// ("Services[3] (ServiceEntry a/x)", of the kind, namespace and name id gives), spelt only
// for an object with problems; words names the kind in the sentence of a second one.
func checkItems[T any, K comparable](objs []T, list string, key func(*T) K, check func(*T) []*FieldError,
	id func(*T) (kind, namespace, name string), words func(*T) string) []error {
	type bad struct {
		i        int
		problems []*FieldError
	}
	var bads []bad // the objects with problems, in order
	kh := newKeyHashes(len(objs))
	for i := range objs {
		o := &objs[i]
		hashKey(kh, i, key(o))
		if p := check(o); len(p) > 0 {
			bads = append(bads, bad{i, p})
		}
	}
	var errs []error
	report := func(b bad) {
		errs = appendIn(errs, b.problems, func() string {
			kind, ns, name := id(&objs[b.i])
			return itemWhere(list, b.i, kind, ns, name)
		})
	}
	repeatsOf(kh, len(objs), func(i int) K { return key(&objs[i]) }, func(i, j int) {
		for len(bads) > 0 && bads[0].i < i {
			report(bads[0])
			bads = bads[1:]
		}
		b := bad{i: i}
		if len(bads) > 0 && bads[0].i == i {
			b, bads = bads[0], bads[1:]
		}
		o := &objs[i]
		_, ns, name := id(o)
		second := goValue.Problem(nil, fmt.Sprintf("a second %s %s/%s (the first is %s)", words(o), ns, name, goValue.Child(list).Index(j)))
		second.Err = ErrDuplicate
		report(bad{i, append(b.problems, second)})
	})
	for _, b := range bads {
		report(b)
	}
	return errs
}

// checkNamespaceName checks the namespace and name of an Istio object built in Go.
func checkNamespaceName(errs []*FieldError, namespace, name string) []*FieldError {
	if namespace == "" {
		errs = append(errs, goValue.Child("namespace").Problem("", "must not be empty"))
	} else if r := names.Label(namespace); r != "" {
		errs = append(errs, goValue.Child("namespace").Problemf(namespace, "%q %s", namespace, r))
	}
	if name == "" {
		errs = append(errs, goValue.Child("name").Problem("", "must not be empty"))
	}
	return errs
}

// kindWords names a kind in a sentence.
func kindWords(k Kind) string {
	if k == KubernetesService {
		return "Kubernetes Service"
	}
	return k.String()
}

// checkService checks what a service built in Go carries, naming fields as Service does.
func checkService(errs []*FieldError, s *Service) []*FieldError {
	if s.Kind != ServiceEntry && s.Kind != KubernetesService {
		errs = append(errs, goValue.Child("kind").Problemf(int(s.Kind), "unknown kind %d", int(s.Kind)))
	}
	if s.Namespace == "" {
		errs = append(errs, goValue.Child("namespace").Problem("", "must not be empty"))
	}
	if s.Name == "" {
		errs = append(errs, goValue.Child("name").Problem("", "must not be empty"))
	}
	errs = checkHosts(errs, goValue, s.Hosts)
	errs = checkAddresses(errs, goValue, s.Addresses)
	if s.Namespace != "" && len(s.ExportTo) > 0 { // (an empty list is the mesh default)
		errs = append(errs, exportto.Problems(func() fielderr.Path { return goValue.Child("exportTo") }, s.Namespace, s.ExportTo, exportToRule(s.Kind))...)
	}
	errs = checkResolution(errs, goValue, s.Resolution)
	errs = checkPorts(errs, goValue, "", s.Kind, s.Ports)
	errs = checkProtocols(errs, s)
	errs = checkWorkloadLabels(errs, func() fielderr.Path { return selectorPath(goValue, s.Kind) }, s.Selector)
	return checkAutoAddresses(errs, goValue, s)
}

// checkProtocols checks a service's Protocols: none, or one per port, each a protocol Istio
// names ("" for one it sniffs).
func checkProtocols(errs []*FieldError, s *Service) []*FieldError {
	if len(s.Protocols) > 0 && len(s.Protocols) != len(s.Ports) {
		errs = append(errs, goValue.Child("protocols").Problemf(len(s.Protocols), "%d protocols for %d ports: give none, or one per port", len(s.Protocols), len(s.Ports)))
	}
	for i, p := range s.Protocols {
		if p != "" && ParseProtocol(p) != p {
			errs = append(errs, goValue.Child("protocols").Index(i).Problemf(p, "%q is not a protocol as Istio names it (HTTP, HTTP2, HTTP_PROXY, GRPC, GRPC-Web, HTTPS, TLS, TCP, UDP, Mongo, Redis, MySQL; \"\" sniffed)", p))
		}
	}
	return errs
}

// exportToRule is the rule of the exportTo list a service of kind k carries.
func exportToRule(k Kind) exportto.Rule {
	if k == KubernetesService {
		return exportto.Annotation
	}
	return exportto.Entry
}
