// Package exportto is the one home of what an Istio exportTo list means: which lists are
// valid (Problems, in Istio's words), the list an object goes by when it declares none (the
// mesh default of its kind, as each Istio release reads it: DefaultList, ListOf,
// RuleListOf), how serviceEntryVisibility narrows a service's list (Narrow), and, read once
// into a Set, whether the object is exported to a namespace.
//
// An exportTo list holds "*" (every namespace), "~" (none), "." (the object's own
// namespace) or namespace names:
//
//	s := exportto.Parse([]string{".", "web"}, "shop") // a VirtualService of shop
//	s.To("shop") // true: "." is its own namespace
//	s.To("web")  // true: named
//	s.To("ops")  // false
//
// An object that declares no list goes by the mesh default of its kind —
// defaultServiceExportTo, defaultVirtualServiceExportTo — and by ["*"] when the mesh gives
// none. A DestinationRule reads defaultDestinationRuleExportTo otherwise: a default holding
// "." keeps rules without a list in their namespace, and any other default leaves them
// exported everywhere; a rule with a workloadSelector is exported to its namespace alone:
//
//	exportto.ListOf(nil, []string{"web"})                // ["web"]
//	exportto.RuleListOf(nil, []string{".", "web"}, false) // ["."]
//	exportto.RuleListOf(nil, []string{"web"}, false)      // ["*"]
//
// Which list a mesh default makes depends on the Istio release (DefaultList): from 1.30.3
// the default as written; before, istiod honours only "." and "*" in it, so a default of
// names alone hides every object without its own list:
//
//	exportto.DefaultList([]string{"web"}, release.Make("1.30.2", "", nil)) // ["~"]
//	exportto.DefaultList([]string{"web"}, release.Make("1.30.3", "", nil)) // ["web"]
//	exportto.DefaultList([]string{".", "*"}, release.Make("1.29", "", nil)) // ["."]
//
// The public package visibility offers ValidateExportTo, EffectiveExportTo and ExportedTo
// to users on top of this one; the views parse each object's list once, into a Set.
package exportto
