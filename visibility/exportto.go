package visibility

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"

	"github.com/meshscope/meshscope/internal/names"
)

// The special exportTo values.
const (
	ExportToAll  = names.Wildcard // every namespace
	ExportToOwn  = "."            // the entry's own namespace
	ExportToNone = "~"            // no namespace
)

// ValidateExportTo reports every problem with the exportTo list of an entry in namespace.
// Valid lists are: empty (the mesh default applies), "*" alone, "~" alone, or "." and
// namespace names (lowercase RFC 1123 labels) without repeats, where "." counts as the entry's
// own namespace. Errors name the index and value: `exportTo[2]: "*" must be the only value`.
func ValidateExportTo(namespace string, exportTo []string) error {
	return validateExportTo(namespace, exportTo, true)
}

func exportToIndex(i int) string { return "exportTo[" + strconv.Itoa(i) + "]" }

// validateExportTo checks a list; without an entry's namespace (the mesh default), "." is
// only checked against repeats of itself.
func validateExportTo(namespace string, exportTo []string, entry bool) error {
	var errs []error
	if r := names.Label(namespace); entry && r != "" {
		errs = append(errs, problem("", "namespace", namespace, "%q %s", namespace, r))
	}
	seen := make(map[string]int, len(exportTo))
	for i, v := range exportTo {
		switch v {
		case ExportToAll, ExportToNone:
			if len(exportTo) > 1 {
				errs = append(errs, problem("", exportToIndex(i), v, "%q must be the only value", v))
			}
			continue
		case ExportToOwn:
		default:
			if r := names.Label(v); r != "" {
				errs = append(errs, problem("", exportToIndex(i), v, "%q is not \"*\", \".\", \"~\" or a namespace name: %s", v, r))
				continue
			}
		}
		key := v
		if v == ExportToOwn && entry {
			key = namespace
		}
		if j, dup := seen[key]; dup {
			errs = append(errs, problem("", exportToIndex(i), v, "%q repeats exportTo[%d] (%q)", v, j, exportTo[j]))
			continue
		}
		seen[key] = i
	}
	return errors.Join(errs...)
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
		list = []string{ExportToAll}
	}
	if !applyToSidecars || slices.Equal(list, []string{ExportToNone}) {
		return list
	}
	switch v.Effective() {
	case None:
		return []string{ExportToNone}
	case Namespace:
		if slices.Contains(list, ExportToAll) || slices.Contains(list, ExportToOwn) || slices.Contains(list, namespace) {
			return []string{ExportToOwn}
		}
		return []string{ExportToNone}
	}
	return list
}

// ExportedTo reports whether a client in namespace client sees an entry of namespace whose
// effective exportTo is effective: it contains "*", or "." and the client is in the entry's
// namespace, or the client's namespace by name. A client namespace of "" sees only "*".
func ExportedTo(effective []string, namespace, client string) bool {
	for _, e := range effective {
		switch e {
		case ExportToAll:
			return true
		case ExportToNone:
		case ExportToOwn:
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

// renamed returns the exportTo problems of err with their field renamed: exportTo[2] becomes
// name[2], and namespace stays as it is.
func renamed(err error, name string) []*FieldError {
	var out []*FieldError
	for _, e := range fielderr.Split(err) {
		fe := *e.(*FieldError)
		if rest, ok := strings.CutPrefix(fe.Field, "exportTo"); ok {
			fe.Field = name + rest
		}
		out = append(out, &fe)
	}
	return out
}
