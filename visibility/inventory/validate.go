package inventory

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/visibility"
)

// Validate reports every problem of an inventory built in Go — what Load refuses of the
// objects it reads, checked by the same code — each naming the item and its field as the
// Go value spells them ("Services[3] (ServiceEntry a/x): Hosts[0]: …"): a cluster domain
// that is not a DNS name; for a service an unknown kind, an empty namespace or name, two
// services of one kind with the same namespace and name, a host that is not a DNS name
// (whose first label may be a wildcard label, *. or partial, as Istio validates hosts; "*"
// alone is refused), an invalid prefix among the addresses, an invalid exportTo, an unknown
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
			errs = append(errs, &FieldError{Field: "Domain", Value: d, Detail: strconv.Quote(d) + " " + r})
		}
	}
	type key struct {
		kind            Kind
		namespace, name string
	}
	seen := make(map[key]int, len(inv.Services))
	for i := range inv.Services {
		s := &inv.Services[i]
		problems := checkService(nil, s)
		k := key{s.Kind, s.Namespace, s.Name}
		if j, dup := seen[k]; dup {
			problems = append(problems, &FieldError{Detail: fmt.Sprintf("a second %s %s/%s (the first is Services[%d])", kindWords(s.Kind), s.Namespace, s.Name, j), Err: ErrDuplicate})
		} else {
			seen[k] = i
		}
		where := fmt.Sprintf("%s (%s %s/%s)", strict.Index("Services", i), s.Kind, s.Namespace, s.Name)
		for _, p := range problems {
			p.Where = where
			errs = append(errs, p)
		}
	}
	errs = append(errs, checkSidecars(inv.Sidecars)...)
	errs = append(errs, checkVirtualServices(inv.VirtualServices)...)
	errs = append(errs, checkDestinationRules(inv.DestinationRules)...)
	return errors.Join(errs...)
}

// checkVirtualServices validates the VirtualServices of an inventory, naming each.
func checkVirtualServices(vss []VirtualService) []error {
	var errs []error
	seen := make(map[[2]string]int, len(vss))
	f := routingFields{}
	for i := range vss {
		vs := &vss[i]
		problems := checkNamespaceName(nil, vs.Namespace, vs.Name)
		problems = checkVirtualService(problems, vs, &f)
		problems = duplicateProblems(problems, seen, "VirtualService", "VirtualServices", i, vs.Namespace, vs.Name)
		where := routingWhere("VirtualServices", i, "VirtualService", vs.Namespace, vs.Name)
		for _, p := range problems {
			p.Where = where
			errs = append(errs, p)
		}
	}
	return errs
}

// checkDestinationRules validates the DestinationRules of an inventory, naming each.
func checkDestinationRules(drs []DestinationRule) []error {
	var errs []error
	seen := make(map[[2]string]int, len(drs))
	f := routingFields{}
	for i := range drs {
		dr := &drs[i]
		problems := checkNamespaceName(nil, dr.Namespace, dr.Name)
		problems = checkDestinationRule(problems, dr, &f)
		problems = duplicateProblems(problems, seen, "DestinationRule", "DestinationRules", i, dr.Namespace, dr.Name)
		where := routingWhere("DestinationRules", i, "DestinationRule", dr.Namespace, dr.Name)
		for _, p := range problems {
			p.Where = where
			errs = append(errs, p)
		}
	}
	return errs
}

// checkNamespaceName checks the namespace and name of an Istio object built in Go.
func checkNamespaceName(errs []*FieldError, namespace, name string) []*FieldError {
	if namespace == "" {
		errs = append(errs, problem("", "Namespace", "", "must not be empty"))
	} else if r := names.Label(namespace); r != "" {
		errs = append(errs, problem("", "Namespace", namespace, "%q %s", namespace, r))
	}
	if name == "" {
		errs = append(errs, problem("", "Name", "", "must not be empty"))
	}
	return errs
}

// duplicateProblems refuses the second object of a kind with one namespace and name (list
// names the inventory's slice of them).
func duplicateProblems(errs []*FieldError, seen map[[2]string]int, kind, list string, i int, namespace, name string) []*FieldError {
	k := [2]string{namespace, name}
	if j, dup := seen[k]; dup {
		return append(errs, &FieldError{Detail: fmt.Sprintf("a second %s %s/%s (the first is %s[%d])", kind, namespace, name, list, j), Err: ErrDuplicate})
	}
	seen[k] = i
	return errs
}

// kindWords names a kind in a sentence.
func kindWords(k Kind) string {
	if k == KubernetesService {
		return "Kubernetes Service"
	}
	return k.String()
}

// checkService checks what a service carries, naming fields as Service does.
func checkService(errs []*FieldError, s *Service) []*FieldError {
	if s.Kind != ServiceEntry && s.Kind != KubernetesService {
		errs = append(errs, problem("", "Kind", int(s.Kind), "unknown kind %d", int(s.Kind)))
	}
	if s.Namespace == "" {
		errs = append(errs, problem("", "Namespace", "", "must not be empty"))
	}
	if s.Name == "" {
		errs = append(errs, problem("", "Name", "", "must not be empty"))
	}
	errs = checkHosts(errs, "Hosts", s.Hosts, nil)
	errs = checkAddresses(errs, "Addresses", s.Addresses)
	if s.Namespace != "" {
		errs = append(errs, visibility.ExportToProblems("ExportTo", s.Namespace, s.ExportTo, exportToRule(s.Kind))...)
	}
	errs = checkResolution(errs, "Resolution", s.Resolution)
	errs = checkPorts(errs, "Ports", "", s.Kind, s.Ports)
	if len(s.Selector) > 0 {
		errs = checkWorkloadLabels(errs, "Selector", s.Selector)
	}
	return checkAutoAddresses(errs, "AutoAddresses", s)
}

// exportToRule is the rule of the exportTo list a service of kind k carries.
func exportToRule(k Kind) visibility.ExportToRule {
	if k == KubernetesService {
		return visibility.AnnotationExportTo
	}
	return visibility.EntryExportTo
}

// checkSidecars validates the Sidecars of an inventory, naming each.
func checkSidecars(scs []Sidecar) []error {
	var errs []error
	seen := make(map[[2]string]int, len(scs))
	for i := range scs {
		sc := &scs[i]
		where := fmt.Sprintf("%s (Sidecar %s/%s)", strict.Index("Sidecars", i), sc.Namespace, sc.Name)
		problems := checkSidecar(nil, sc)
		k := [2]string{sc.Namespace, sc.Name}
		if j, dup := seen[k]; dup {
			problems = append(problems, &FieldError{Detail: fmt.Sprintf("a second Sidecar %s/%s (the first is Sidecars[%d])", sc.Namespace, sc.Name, j), Err: ErrDuplicate})
		} else {
			seen[k] = i
		}
		for _, p := range problems {
			p.Where = where
			errs = append(errs, p)
		}
	}
	return errs
}
