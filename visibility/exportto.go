package visibility

import (
	"slices"

	"github.com/meshscope/meshscope/internal/names"
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
	return joinProblems(checkExportTo(errs, "exportTo", namespace, exportTo, entryList))
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
