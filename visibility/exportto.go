package visibility

import (
	"slices"

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
// namespace. Errors name the index and value: `exportTo[2]: "*" must be the only value`.
func ValidateExportTo(namespace string, exportTo []string) error {
	var errs []*FieldError
	if r := names.Label(namespace); r != "" {
		errs = append(errs, problem("", "namespace", namespace, "%q %s", namespace, r))
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
// repeat is.
type ExportToRule int

const (
	// EntryExportTo: a ServiceEntry's spec.exportTo, where "." counts as the entry's own
	// namespace when looking for repeats (Istio refuses [".", "shop"] in shop).
	EntryExportTo ExportToRule = iota
	// AnnotationExportTo: a Kubernetes Service's networking.istio.io/exportTo annotation,
	// whose repeats are accepted: Istio does not validate the annotation and reads it as a
	// set.
	AnnotationExportTo
	// MeshExportTo: a mesh default (defaultServiceExportTo), where "." repeats only itself.
	MeshExportTo
)

// ExportToProblems checks the exportTo list at field, of an object in namespace ("" for a
// mesh default), and returns its problems, each naming field[i] and the value. Valid lists
// are: empty (the mesh default applies), "*" alone, "~" alone, or "." and namespace names
// (lowercase RFC 1123 labels) without repeats (see ExportToRule for what a repeat is, and
// where repeats are accepted).
func ExportToProblems(field, namespace string, list []string, rule ExportToRule) []*FieldError {
	var errs []*FieldError
	var seen map[string]int // for long lists; short ones are scanned
	if len(list) > 16 {
		seen = make(map[string]int, len(list))
	}
	key := func(v string) string {
		if v == exportToOwn && rule == EntryExportTo {
			return namespace
		}
		return v
	}
	for i, v := range list {
		at := strict.Index(field, i)
		switch v {
		case exportToAll, exportToNone:
			if len(list) > 1 {
				errs = append(errs, problem("", at, v, "%q must be the only value", v))
			}
			continue
		case exportToOwn:
		default:
			if r := names.Label(v); r != "" {
				errs = append(errs, problem("", at, v, "%q is not \"*\", \".\", \"~\" or a namespace name: %s", v, r))
				continue
			}
		}
		if rule == AnnotationExportTo {
			continue
		}
		k := key(v)
		j := -1
		if seen != nil {
			if first, dup := seen[k]; dup {
				j = first
			} else {
				seen[k] = i
			}
		} else {
			j = slices.IndexFunc(list[:i], func(w string) bool { return w != exportToAll && w != exportToNone && key(w) == k })
		}
		if j >= 0 {
			errs = append(errs, problem("", at, v, "%q repeats %s (%q)", v, strict.Index(field, j), list[j]))
		}
	}
	return errs
}
