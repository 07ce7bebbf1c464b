package ambient

import (
	"cmp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Finding is one result of a lint: Path (what it is about: "policies[1].matchingRules[0]",
// "defaultServiceExportTo", "ServiceEntry shop/api"), Code, Level (the code's: note, warning
// or error) and Message; String renders one as a report line:
//
//	WARNING NoAddressForDNS ServiceEntry platform/quiet: no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream
//
// Every lint of meshscope reports in this one shape.
type Finding = report.Finding

// The codes Index.Lint finds in the inventory itself. Its findings about the policies carry
// the codes of visibility.Resolver.LintNamespaces: visibility.SelectorMatchesNoNamespace and
// visibility.PolicyDecidesNoEntry.
var (
	// ExportToUnknownNamespace (error): an exportTo names a namespace the inventory does not
	// have: sidecars there see nothing of the service.
	ExportToUnknownNamespace = report.NewCode("ExportToUnknownNamespace", report.Error)
	// NoAddressForDNS (warning): an entry with no address for any of its hosts: ztunnel's
	// DNS proxy never answers for it (give it spec.addresses, or a resolution Istio
	// allocates for).
	NoAddressForDNS = report.NewCode("NoAddressForDNS", report.Warning)
	// PartialWildcardDNS (warning): an entry's partial wildcard host (*x.example.com,
	// *-foo.example.com) with an address. Istio's sidecars match it against every host
	// ending in what follows its "*", but ztunnel's DNS proxy (and LookupHost, which models
	// it) tries only the query and the *. wildcards at its label boundaries, so it never
	// answers through a partial wildcard: a query only the partial wildcard covers goes
	// upstream, and the client's traffic leaves as unknown traffic.
	PartialWildcardDNS = report.NewCode("PartialWildcardDNS", report.Warning)
)

// Lint reads the configuration against the index's inventory: rules whose selector selects
// none of its namespaces and policies that decide none of its ServiceEntries
// (visibility.SelectorMatchesNoNamespace and visibility.PolicyDecidesNoEntry, as
// visibility.Resolver.LintNamespaces finds them), exportTo lists naming namespaces it does
// not have (a service's, or the mesh's defaultServiceExportTo), entries DNS never answers
// for (no address for any host), and partial wildcard hosts ztunnel's DNS proxy never
// answers through, with codes ExportToUnknownNamespace, NoAddressForDNS and
// PartialWildcardDNS. The inventory's namespaces are those of inventory.Inventory.NamespaceNames.
// Findings are sorted: policies in order (Path "policies[i]" or
// "policies[i].matchingRules[j]"), then the mesh default (Path "defaultServiceExportTo"),
// then services by kind, namespace and name (Path "ServiceEntry shop/api").
func (ix *Index) Lint() []Finding {
	if ix == nil {
		return nil
	}
	nss := ix.inv.NamespaceNames()
	if len(nss) == 0 {
		return nil
	}
	labelsOf := make(map[string]map[string]string, len(nss))
	for _, ns := range nss {
		labelsOf[ns] = ix.inv.Namespaces[ns]
	}
	var entryNamespaces []string
	for i := range ix.services {
		if ix.services[i].Kind == inventory.ServiceEntry {
			entryNamespaces = append(entryNamespaces, ix.services[i].Namespace)
		}
	}
	out := ix.resolver.LintNamespaces(labelsOf, entryNamespaces)
	add := func(path string, code report.Code, format string, args ...any) {
		out = append(out, report.New(path, code, format, args...))
	}
	known := make(map[string]bool, len(nss))
	for _, ns := range nss {
		known[ns] = true
	}
	order := make([]int, len(ix.services))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := &ix.services[a], &ix.services[b]
		return cmp.Or(int(x.Kind)-int(y.Kind), strings.Compare(x.Namespace, y.Namespace), strings.Compare(x.Name, y.Name))
	})
	unknown := func(list []string) []string { // each once: an annotation may repeat one
		var out []string
		for _, e := range list {
			if e != names.Wildcard && e != "." && e != "~" && !known[e] && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
		return out
	}
	for _, e := range unknown(ix.meshDefault) {
		add("defaultServiceExportTo", ExportToUnknownNamespace, "the mesh's default exportTo names namespace %q, which the inventory does not have: it is the exportTo of every service that gives none", e)
	}
	for _, i := range order {
		s := &ix.services[i]
		ref := s.Ref().String()
		for _, e := range unknown(s.ExportTo) {
			add(ref, ExportToUnknownNamespace, "exportTo names namespace %q, which the inventory does not have: sidecars there see nothing of it", e)
		}
		if s.Kind == inventory.ServiceEntry && len(s.Hosts) > 0 && !slices.ContainsFunc(s.Hosts, s.AnswersFor) {
			add(ref, NoAddressForDNS, "no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream")
		}
		for _, h := range s.Hosts {
			if isPartialWildcard(hosts.Normalize(h)) && s.AnswersFor(h) {
				add(ref, PartialWildcardDNS, "%s is a partial wildcard: ztunnel's DNS proxy never answers through it (it tries only *. wildcards at a query's label boundaries, "+
					"then forwards the query upstream, as LookupHost does), while Istio's sidecars and waypoints match it", h)
			}
		}
	}
	return out
}
