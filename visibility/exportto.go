package visibility

import (
	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
)

// ValidateExportTo reports every problem with the exportTo list of an entry in namespace.
// Valid lists are: empty (the mesh default applies), "*" alone, "~" alone, or "." and namespace
// names (lowercase RFC 1123 labels) without repeats, where "." counts as the entry's own
// namespace. Errors name the index and say, in Istio's words, what its validation says:
// `exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource`.
func ValidateExportTo(namespace string, exportTo []string) error {
	var errs []*FieldError
	if r := names.Label(namespace); r != "" {
		errs = append(errs, fielderr.Root(fielderr.Object).Child("namespace").Problemf(namespace, "%q %s", namespace, r))
	}
	return joinProblems(append(errs, exportto.Problems(exportToField, namespace, exportTo, exportto.Entry)...))
}

// exportToField is the path ValidateExportTo names the list by.
func exportToField() fielderr.Path { return fielderr.Root(fielderr.Object).Child("exportTo") }

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
// one passed in (declared or meshDefault), not a copy; treat every returned slice as
// read-only. Results for invalid lists are unspecified: validate with ValidateExportTo first.
func EffectiveExportTo(declared, meshDefault []string, namespace string, v Visibility, applyToSidecars bool) []string {
	list := exportto.ListOf(declared, meshDefault)
	if !applyToSidecars {
		return list
	}
	return exportto.Narrow(list, namespace, v.narrowing())
}

// narrowing is what visibility v does to an exportTo list for sidecars and gateways.
func (v Visibility) narrowing() exportto.Narrowing {
	switch v.effective() {
	case None:
		return exportto.ToNone
	case Namespace:
		return exportto.ToOwn
	}
	return exportto.Keep
}

// ExportedTo reports whether a client in namespace client sees an entry of namespace whose
// effective exportTo is effective: it contains "*", or "." and the client is in the entry's
// namespace, or the client's namespace by name. A client namespace of "" sees only "*".
// Results for invalid lists are unspecified.
func ExportedTo(effective []string, namespace, client string) bool {
	return exportto.Parse(effective, namespace).To(client)
}
