package ambient

// Lint reads the configuration against the index's inventory: rules whose selector selects
// none of its namespaces, policies that decide none of its ServiceEntries, exportTo lists
// naming namespaces it does not have (a service's, or the mesh default's), entries DNS
// never answers for (no address for any host), and partial wildcard hosts ztunnel's DNS
// proxy never answers through, with codes SelectorMatchesNoNamespace, PolicyDecidesNoEntry,
// ExportToUnknownNamespace, NoAddressForDNS and PartialWildcardDNS. Findings are sorted:
// policies in order (Path "policies[i]" or "policies[i].matchingRules[j]"), then the mesh
// default (Path "defaultServiceExportTo"), then services by kind, namespace and name (Path
// "ServiceEntry shop/api").
func (ix *Index) Lint() []Finding {
	if ix == nil || len(ix.entries) == 0 && len(ix.namespaces) == 0 {
		return nil
	}
	var out []Finding
	add := func(path string, code report.Code, format string, args ...any) {
		out = append(out, report.New(path, code, format, args...))
	}
	r := ix.resolver
	if r.Enabled() {
		decided := make([]bool, len(r.policies))
		for i := range ix.entries {
			if p := ix.entries[i].decision.Policy; p >= 0 && ix.services[i].Kind == ServiceEntry {
				decided[p] = true
			}
		}
		for i, p := range r.policies {
			for j, ru := range p.rules {
				if ru.selector.Empty() || ix.anyNamespace(ru.selector) {
					continue
				}
				add(fmt.Sprintf("policies[%d].matchingRules[%d]", i, j), SelectorMatchesNoNamespace,
					"the selector %s selects none of the inventory's %d namespaces", ru.text, len(ix.namespaces))
			}
			if !decided[i] {
				add(fmt.Sprintf("policies[%d]", i), PolicyDecidesNoEntry, "decides none of the inventory's ServiceEntries")
			}
		}
	}
	known := make(map[string]bool, len(ix.namespaces))
	for _, ns := range ix.namespaces {
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
			if e != exportToAll && e != exportToOwn && e != exportToNone && !known[e] && !slices.Contains(out, e) {
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
		if s.Kind == ServiceEntry && len(s.Hosts) > 0 && !slices.ContainsFunc(s.Hosts, func(h string) bool { return s.answersFor(normalizeHost(h)) }) {
			add(ref, NoAddressForDNS, "no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream")
		}
		for _, h := range s.Hosts {
			if n := normalizeHost(h); isPartialWildcard(n) && s.answersFor(n) {
				add(ref, PartialWildcardDNS, "%s is a partial wildcard: ztunnel's DNS proxy never answers through it (it tries only *. wildcards at a query's label boundaries, "+
					"then forwards the query upstream, as LookupHost does), while Istio's sidecars and waypoints match it", h)
			}
		}
	}
	return out
}

// anyNamespace reports whether the selector selects one of the inventory's namespaces.
func (ix *Index) anyNamespace(sel labels.Selector) bool {
	for _, ns := range ix.namespaces {
		if sel.Matches(labels.Set(ix.nsLabels[ns])) {
			return true
		}
	}
	return false
}
