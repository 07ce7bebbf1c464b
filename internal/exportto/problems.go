package exportto

import (
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
)

// Rule says whose exportTo list Problems checks, which decides what a
// repeat is and which values are allowed.
type Rule int

const (
	// Entry: a ServiceEntry's spec.exportTo, as Istio validates it: "." counts as the
	// entry's own namespace when looking for repeats (Istio refuses [".", "shop"] in shop), and
	// "~" (exported to no one) may only stand alone.
	Entry Rule = iota
	// Annotation: a Kubernetes Service's networking.istio.io/exportTo annotation,
	// whose repeats are accepted: Istio does not validate the annotation and reads it as a
	// set.
	Annotation
	// Mesh: a mesh default (defaultServiceExportTo, defaultVirtualServiceExportTo,
	// defaultDestinationRuleExportTo), where "." repeats only itself, and "*" and "~" may
	// stand beside other entries: Istio does not validate these, and each release reads such
	// a mix in its own way (DefaultList): [".", "~"] keeps objects in their namespace up to
	// 1.30.2 and hides them from 1.30.3 on.
	Mesh
	// Config: a VirtualService's or a DestinationRule's spec.exportTo, as Istio
	// validates it: as Entry, but "~" is refused (Istio allows it on ServiceEntries
	// only).
	Config
	// SelectorRule: the spec.exportTo of a DestinationRule with a workloadSelector:
	// as Config, and the list may name no namespace but the rule's own ("." or its
	// name, once).
	SelectorRule
)

// Problems checks the exportTo list at the path at gives, of an object in namespace ("" for
// a mesh default), and returns its problems, each naming the list's entry (at()[i]) and the
// value, or the list and its value for a problem of the list as a whole. at is called only for
// a problem, so that a valid list costs nothing. Valid lists are: empty (the mesh
// default applies), "*" alone, "~" alone (but for Config and SelectorRule),
// or "." and namespace names (lowercase RFC 1123 labels) without repeats (see Rule
// for what a repeat is, and where repeats are accepted); a mesh default may also hold "*"
// and "~" beside the others.
//
// For the lists Istio validates (Entry, Config, SelectorRule), each
// problem Istio's validation finds is reported with Istio's words, followed by where it is:
//
//	spec.exportTo[1]: duplicate entries in exportTo for entry shop (it repeats spec.exportTo[0], ".")
//	spec.exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource
//	spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects
//
// One check is meshscope's own: Istio accepts an entry with upper-case letters (it names
// no namespace, since namespace names are lower case), which is refused here.
func Problems(at func() fielderr.Path, namespace string, list []string, rule Rule) []*fielderr.Error {
	switch rule {
	case Entry, Config, SelectorRule:
		return istioProblems(at, namespace, list, rule)
	}
	var errs []*fielderr.Error
	seen := make(map[string]int, len(list)) // entry -> the index of its first place (a map of a few entries allocates nothing)
	for i, v := range list {
		switch v {
		case All, None:
			if rule != Mesh {
				if len(list) > 1 {
					errs = append(errs, at().Index(i).Problemf(v, "%q must be the only value", v))
				}
				continue
			}
		case Own:
		default:
			if r := names.Label(v); r != "" {
				errs = append(errs, at().Index(i).Problemf(v, notExportToEntry, v, r))
				continue
			}
		}
		if rule == Annotation {
			continue
		}
		if j, ok := seen[v]; ok {
			errs = append(errs, at().Index(i).Problemf(v, "%q repeats %s (%q)", v, at().Index(j), list[j]))
		} else {
			seen[v] = i
		}
	}
	return errs
}

// notExportToEntry is the problem of an exportTo entry that is none of the special values and
// not a namespace name, given the entry and why it is not a name.
const notExportToEntry = "%q is not \"*\", \".\", \"~\" or a namespace name: %s"

// istioProblems checks a list as Istio's validation does: each entry in turn against
// the set of the entries before it ("." standing for the namespace), an entry already in the
// set being a repeat and any other joining the set if it is valid ("~" only on a
// ServiceEntry); then the list as a whole.
func istioProblems(at func() fielderr.Path, namespace string, list []string, rule Rule) []*fielderr.Error {
	var errs []*fielderr.Error
	set := make(map[string]int, len(list)) // entry -> the index of the list entry that put it there
	public, none := -1, -1                 // the entries that put "*" and "~" in the set
	for i, v := range list {
		key := Key(v, namespace)
		if j, ok := set[key]; ok {
			if key != v {
				errs = append(errs, at().Index(i).Problemf(v, "duplicate entries in exportTo: . and current namespace %s (it repeats %s, %q)", namespace, at().Index(j), list[j]))
			} else {
				errs = append(errs, at().Index(i).Problemf(v, "duplicate entries in exportTo for entry %s (it repeats %s, %q)", v, at().Index(j), list[j]))
			}
			continue
		}
		switch {
		case v == None && rule != Entry:
			errs = append(errs, at().Index(i).Problem(v, "exportTo ~ (none) is not allowed for Istio configuration objects"))
			continue
		case v == None:
			none = i
		case v == All:
			public = i
		case v == Own:
		case !names.IstioLabel(v):
			errs = append(errs, at().Index(i).Problemf(v, "only .,*, or a valid DNS 1123 label is allowed as exportTo entry: %q %s", v, names.Label(v)))
			continue
		default:
			if r := names.Label(v); r != "" {
				// Istio's label admits upper case; a namespace name does not.
				errs = append(errs, at().Index(i).Problemf(v, notExportToEntry, v, r))
			}
		}
		set[key] = i
	}
	if rule == SelectorRule && len(set) > 0 {
		switch {
		case !hasKey(set, namespace):
			errs = append(errs, at().Problem(list, "destination rule with workload selector cannot have exportTo beyond current namespace"))
		case len(set) > 1:
			errs = append(errs, at().Problem(list, "destination rule with workload selector cannot have multiple entries in exportTo"))
		}
	}
	if public >= 0 && len(list) > 1 {
		errs = append(errs, at().Index(public).Problem(All, "cannot have both public (*) and non-public exportTo values for a resource"))
	}
	if none >= 0 && len(list) > 1 {
		errs = append(errs, at().Index(none).Problem(None, "cannot export service entry to no one (~) and someone"))
	}
	return errs
}

// hasKey reports whether k is in m.
func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}
