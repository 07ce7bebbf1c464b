package report

// The codes of package visibility, each with its level. visibility exports them under the
// same names, with their documentation.
const (
	Unreachable                Code = "Unreachable"
	Shadowed                   Code = "Shadowed"
	NeverMatches               Code = "NeverMatches"
	Redundant                  Code = "Redundant"
	NoOpRule                   Code = "NoOpRule"
	DuplicateRule              Code = "DuplicateRule"
	SelectorMatchesNoNamespace Code = "SelectorMatchesNoNamespace"
	PolicyDecidesNoEntry       Code = "PolicyDecidesNoEntry"
	ExportToUnknownNamespace   Code = "ExportToUnknownNamespace"
	NoAddressForDNS            Code = "NoAddressForDNS"
	PartialWildcardDNS         Code = "PartialWildcardDNS"
	ScopeNeverMatches          Code = "ScopeNeverMatches"
	ScopeLocalConfig           Code = "ScopeLocalConfig"
	ScopeSettingOverridden     Code = "ScopeSettingOverridden"
	ScopeHostNeverMatches      Code = "ScopeHostNeverMatches"
	ScopeDefaultKept           Code = "ScopeDefaultKept"
	ScopeDefaultDropped        Code = "ScopeDefaultDropped"
	ScopeDefaultStaysDropped   Code = "ScopeDefaultStaysDropped"
)

// istioLevel is the level of a code of package visibility; ok is false for any other code.
func istioLevel(c Code) (l Level, ok bool) {
	if l, ok := sidecarLevel(c); ok {
		return l, true
	}
	if l, ok := releaseLevel(c); ok {
		return l, true
	}
	switch c {
	case Redundant, NoOpRule, DuplicateRule, ScopeLocalConfig, ScopeSettingOverridden:
		return Note, true
	case Unreachable, Shadowed, NeverMatches, SelectorMatchesNoNamespace, PolicyDecidesNoEntry, NoAddressForDNS, PartialWildcardDNS, ScopeNeverMatches,
		ScopeDefaultKept, ScopeDefaultDropped, ScopeDefaultStaysDropped:
		return Warning, true
	case ExportToUnknownNamespace, ScopeHostNeverMatches:
		return Error, true
	}
	return "", false
}

// The codes of package visibility/sidecar (View.Lint, and the notes of a gateway's view),
// each with its level.
const (
	ImportExcluded             Code = "ImportExcluded"
	ExactImportShadowed        Code = "ExactImportShadowed"
	RootSidecarWithSelector    Code = "RootSidecarWithSelector"
	RootSidecarNotDiscovered   Code = "RootSidecarNotDiscovered"
	SidecarNeverApplies        Code = "SidecarNeverApplies"
	CreationTimeTie            Code = "CreationTimeTie"
	ExportToAnnotationRepeats  Code = "ExportToAnnotationRepeats"
	RootNamespaceUnknown       Code = "RootNamespaceUnknown"
	RouteSubsetMissing         Code = "RouteSubsetMissing"
	HostRoutedTwice            Code = "HostRoutedTwice"
	RuleOutOfReach             Code = "RuleOutOfReach"
	CatchAllRuleMerged         Code = "CatchAllRuleMerged"
	ShortHostNeverMatches      Code = "ShortHostNeverMatches"
	GatewayScopeOrderDependent Code = "GatewayScopeOrderDependent"
	GatewayOwnServiceOutranked Code = "GatewayOwnServiceOutranked"
	DestinationTie             Code = "DestinationTie"
	HostRoutedByBoth           Code = "HostRoutedByBoth"
	RouteParentNotFound        Code = "RouteParentNotFound"
	RouteBackendUnresolved     Code = "RouteBackendUnresolved"
	RouteParentPortMissing     Code = "RouteParentPortMissing"
	ConsumerRouteLocal         Code = "ConsumerRouteLocal"
	RouteHiddenByExportTo      Code = "RouteHiddenByExportTo"
	RoutesAnswerBuildsNothing  Code = "RoutesAnswerBuildsNothing"
)

// sidecarLevel is the level of a code of the sidecar view; ok is false for any other code.
func sidecarLevel(c Code) (l Level, ok bool) {
	switch c {
	case ExportToAnnotationRepeats, ConsumerRouteLocal:
		return Note, true
	case ImportExcluded, ExactImportShadowed, RootSidecarWithSelector, RootSidecarNotDiscovered, SidecarNeverApplies, CreationTimeTie,
		RootNamespaceUnknown, HostRoutedTwice, RuleOutOfReach, CatchAllRuleMerged, ShortHostNeverMatches, GatewayScopeOrderDependent,
		GatewayOwnServiceOutranked, DestinationTie, HostRoutedByBoth, RouteParentPortMissing, RouteHiddenByExportTo, RoutesAnswerBuildsNothing:
		return Warning, true
	case RouteSubsetMissing, RouteParentNotFound, RouteBackendUnresolved:
		return Error, true
	}
	return "", false
}
