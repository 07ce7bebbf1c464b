package visibility

import (
	"slices"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// The special exportTo values.
const (
	exportToAll  = names.Wildcard // every namespace
	exportToOwn  = "."            // the entry's own namespace
	exportToNone = "~"            // no namespace
)

// ValidateExportTo reports every problem with the exportTo list of an entry in namespace.
// Valid lists are: empty (the mesh default applies), "*" alone, "~" alone, or "." and namespace
// names (lowercase RFC 1123 labels) without repeats, where "." counts as the entry's own
// namespace. Errors name the index and say, in Istio's words, what its validation says:
// `exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource`.
func ValidateExportTo(namespace string, exportTo []string) error {
	var errs []*FieldError
	if r := names.Label(namespace); r != "" {
		errs = append(errs, fielderr.Newf("", "namespace", namespace, "%q %s", namespace, r))
	}
	return joinProblems(append(errs, ExportToProblems("exportTo", namespace, exportTo, EntryExportTo)...))
}

// EffectiveExportTo returns the namespaces an entry is exported to for sidecars and gateways:
// the declared list, or meshDefault when it is empty (itself ["*"] when empty), narrowed by
// the entry's visibility v when applyToSidecars is set:
//
//   - ["~"] stays ["~"];
//   - PUBLIC keeps the list;
//   - NAMESPACE gives ["."] if the list contains "*", "." or the own namespace, else ["~"];
//   - NONE gives ["~"].
//
// Without applyToSidecars the list is returned unchanged, whatever v. Visibility therefore
// narrows exportTo and never widens it. When the list is unchanged, the returned slice is the
// one passed in (declared or meshDefault), not a copy; treat it as read-only. Results for
// invalid lists are unspecified: validate with ValidateExportTo first.
func EffectiveExportTo(declared, meshDefault []string, namespace string, v Visibility, applyToSidecars bool) []string {
	list := declared
	if len(list) == 0 {
		list = meshDefault
	}
	if len(list) == 0 {
		list = []string{exportToAll}
	}
	if !applyToSidecars || slices.Equal(list, []string{exportToNone}) {
		return list
	}
	switch v.effective() {
	case None:
		return []string{exportToNone}
	case Namespace:
		if slices.Contains(list, exportToAll) || slices.Contains(list, exportToOwn) || slices.Contains(list, namespace) {
			return []string{exportToOwn}
		}
		return []string{exportToNone}
	}
	return list
}

// ExportedTo reports whether a client in namespace client sees an entry of namespace whose
// effective exportTo is effective: it contains "*", or "." and the client is in the entry's
// namespace, or the client's namespace by name. A client namespace of "" sees only "*".
func ExportedTo(effective []string, namespace, client string) bool {
	for _, e := range effective {
		switch e {
		case exportToAll:
			return true
		case exportToNone:
		case exportToOwn:
			if client != "" && client == namespace {
				return true
			}
		default:
			if client != "" && e == client {
				return true
			}
		}
	}
	return false
}

// ExportToRule says whose exportTo list ExportToProblems checks, which decides what a
// repeat is and which values are allowed.
type ExportToRule int

const (
	// EntryExportTo: a ServiceEntry's spec.exportTo, as Istio validates it: "." counts as the
	// entry's own namespace when looking for repeats (Istio refuses [".", "shop"] in shop), and
	// "~" (exported to no one) may only stand alone.
	EntryExportTo ExportToRule = iota
	// AnnotationExportTo: a Kubernetes Service's networking.istio.io/exportTo annotation,
	// whose repeats are accepted: Istio does not validate the annotation and reads it as a
	// set.
	AnnotationExportTo
	// MeshExportTo: a mesh default (defaultServiceExportTo, defaultVirtualServiceExportTo,
	// defaultDestinationRuleExportTo), where "." repeats only itself, and "*" may stand
	// beside other entries: Istio does not validate these, and each release reads such a mix
	// in its own way (package visibility/mesh, Config). "~" beside other entries, which Istio
	// also accepts, stays refused until the views read a mesh default release by release
	// (ExportedTo would let [".", "~"] export to the own namespace, which 1.30.3 on hides).
	MeshExportTo
	// ConfigExportTo: a VirtualService's or a DestinationRule's spec.exportTo, as Istio
	// validates it: as EntryExportTo, but "~" is refused (Istio allows it on ServiceEntries
	// only).
	ConfigExportTo
	// SelectorRuleExportTo: the spec.exportTo of a DestinationRule with a workloadSelector:
	// as ConfigExportTo, and the list may name no namespace but the rule's own ("." or its
	// name, once).
	SelectorRuleExportTo
)

// ExportToProblems checks the exportTo list at field, of an object in namespace ("" for a
// mesh default), and returns its problems, each naming field[i] and the value (or field
// and the list, for a problem of the list as a whole). Valid lists are: empty (the mesh
// default applies), "*" alone, "~" alone (but for ConfigExportTo and SelectorRuleExportTo),
// or "." and namespace names (lowercase RFC 1123 labels) without repeats (see ExportToRule
// for what a repeat is, and where repeats are accepted); a mesh default may also hold "*"
// beside the others.
//
// For the lists Istio validates (EntryExportTo, ConfigExportTo, SelectorRuleExportTo), each
// problem Istio's validation finds is reported with Istio's words, followed by where it is:
//
//	spec.exportTo[1]: duplicate entries in exportTo for entry shop (it repeats spec.exportTo[0], ".")
//	spec.exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource
//	spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects
//
// One check is meshscope's own: Istio accepts an entry with upper-case letters (it names
// no namespace, since namespace names are lower case), which is refused here.
func ExportToProblems(field, namespace string, list []string, rule ExportToRule) []*FieldError {
	switch rule {
	case EntryExportTo, ConfigExportTo, SelectorRuleExportTo:
		return istioExportToProblems(field, namespace, list, rule)
	}
	var errs []*FieldError
	seen := newExportToSet(len(list))
	for i, v := range list {
		at := func() string { return strict.Index(field, i) } // spelt for a problem only
		switch v {
		case exportToAll, exportToNone:
			if len(list) > 1 && !(rule == MeshExportTo && v == exportToAll) {
				errs = append(errs, fielderr.Newf("", at(), v, "%q must be the only value", v))
			}
			continue
		case exportToOwn:
		default:
			if r := names.Label(v); r != "" {
				errs = append(errs, fielderr.Newf("", at(), v, notExportToEntry, v, r))
				continue
			}
		}
		if rule == AnnotationExportTo {
			continue
		}
		if j := seen.find(v); j >= 0 {
			errs = append(errs, fielderr.Newf("", at(), v, "%q repeats %s (%q)", v, strict.Index(field, j), list[j]))
		} else {
			seen.add(v, i)
		}
	}
	return errs
}

// notExportToEntry is the problem of an exportTo entry that is none of the special values and
// not a namespace name, given the entry and why it is not a name.
const notExportToEntry = "%q is not \"*\", \".\", \"~\" or a namespace name: %s"

// istioExportToProblems checks a list as Istio's validation does: each entry in turn against
// the set of the entries before it ("." standing for the namespace), an entry already in the
// set being a repeat and any other joining the set if it is valid ("~" only on a
// ServiceEntry); then the list as a whole.
func istioExportToProblems(field, namespace string, list []string, rule ExportToRule) []*FieldError {
	var errs []*FieldError
	set := newExportToSet(len(list))
	public, none := -1, -1 // the entries that put "*" and "~" in the set
	for i, v := range list {
		at := func() string { return strict.Index(field, i) } // spelt for a problem only
		key := v
		if v == exportToOwn {
			key = namespace
		}
		if j := set.find(key); j >= 0 {
			if key != v {
				errs = append(errs, fielderr.Newf("", at(), v, "duplicate entries in exportTo: . and current namespace %s (it repeats %s, %q)", namespace, strict.Index(field, j), list[j]))
			} else {
				errs = append(errs, fielderr.Newf("", at(), v, "duplicate entries in exportTo for entry %s (it repeats %s, %q)", v, strict.Index(field, j), list[j]))
			}
			continue
		}
		switch {
		case v == exportToNone && rule != EntryExportTo:
			errs = append(errs, fielderr.Newf("", at(), v, "exportTo ~ (none) is not allowed for Istio configuration objects"))
			continue
		case v == exportToNone:
			none = i
		case v == exportToAll:
			public = i
		case v == exportToOwn:
		case !names.IstioLabel(v):
			errs = append(errs, fielderr.Newf("", at(), v, "only .,*, or a valid DNS 1123 label is allowed as exportTo entry: %q %s", v, names.Label(v)))
			continue
		default:
			if r := names.Label(v); r != "" {
				// Istio's label admits upper case; a namespace name does not.
				errs = append(errs, fielderr.Newf("", at(), v, notExportToEntry, v, r))
			}
		}
		set.add(key, i)
	}
	if rule == SelectorRuleExportTo && set.len() > 0 {
		switch {
		case set.find(namespace) < 0:
			errs = append(errs, fielderr.Newf("", field, list, "destination rule with workload selector cannot have exportTo beyond current namespace"))
		case set.len() > 1:
			errs = append(errs, fielderr.Newf("", field, list, "destination rule with workload selector cannot have multiple entries in exportTo"))
		}
	}
	if public >= 0 && len(list) > 1 {
		errs = append(errs, fielderr.Newf("", strict.Index(field, public), exportToAll, "cannot have both public (*) and non-public exportTo values for a resource"))
	}
	if none >= 0 && len(list) > 1 {
		errs = append(errs, fielderr.Newf("", strict.Index(field, none), exportToNone, "cannot export service entry to no one (~) and someone"))
	}
	return errs
}

// exportToSet is a set of the entries of an exportTo list, each with the index of the entry
// that put it there: for a list of up to len(short) entries, an array scanned in place,
// without allocating; for a longer one, a map.
type exportToSet struct {
	short [16]exportToKey
	n     int
	long  map[string]int
}

// exportToKey is an entry of an exportToSet and the index of the list entry that put it there.
type exportToKey struct {
	key string
	at  int
}

// newExportToSet returns an empty set for the entries of a list of size entries: a map when
// they may not all fit in short. It returns the set by value, so that a caller's set, and the
// header of its map, can stay on the stack.
func newExportToSet(size int) exportToSet {
	var s exportToSet
	if size > len(s.short) {
		s.long = make(map[string]int, size)
	}
	return s
}

// find returns the index stored with key, or -1 when key is not in the set.
func (s *exportToSet) find(key string) int {
	if s.long != nil {
		if at, ok := s.long[key]; ok {
			return at
		}
		return -1
	}
	for _, k := range s.short[:s.n] {
		if k.key == key {
			return k.at
		}
	}
	return -1
}

// add puts key, which is not in the set, in it, with the index at; the set holds no more
// entries than the list it was made for.
func (s *exportToSet) add(key string, at int) {
	if s.long != nil {
		s.long[key] = at
		return
	}
	s.short[s.n] = exportToKey{key, at}
	s.n++
}

// len returns the number of entries in the set.
func (s *exportToSet) len() int {
	if s.long != nil {
		return len(s.long)
	}
	return s.n
}
