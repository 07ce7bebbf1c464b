package visibility

import "github.com/meshscope/meshscope/internal/report"

// Finding is one result of a lint: Path (what it is about, as the user wrote it:
// "policies[1].matchingRules[0]", "ServiceEntry shop/api", "serviceSettings[0].hosts[2]"),
// Code, Level (the code's: note, warning or error) and Message. Resolver.Lint, Index.Lint and
// LintScope all report in this one shape, as every lint and check of meshscope does, so a
// program prints and gates on them alike; String renders one as a report line:
//
//	WARNING Shadowed policies[2]: policies[0] matches every namespace this policy matches, so this policy never decides
type Finding = report.Finding

// The codes of Resolver.Lint: the configuration read alone.
const (
	// Unreachable (warning): an earlier policy matches every namespace, so this one is
	// never tried.
	Unreachable = report.Unreachable
	// Shadowed (warning): an earlier policy matches every namespace this one matches, so
	// this one never decides.
	Shadowed = report.Shadowed
	// NeverMatches (warning): the policy's rules contradict each other (team in (a) and team
	// in (b)).
	NeverMatches = report.NeverMatches
	// Redundant (note): the policy gives the default visibility and no later policy gives
	// another, so removing it changes no entry's visibility; it only costs evaluation.
	Redundant = report.Redundant
	// NoOpRule (note): an empty selector in a policy with other rules; it matches everything
	// and adds nothing to the conjunction.
	NoOpRule = report.NoOpRule
	// DuplicateRule (note): a rule that requires nothing more than an earlier rule of its
	// policy.
	DuplicateRule = report.DuplicateRule
)

// The codes of Index.Lint: the configuration read against an inventory.
const (
	// SelectorMatchesNoNamespace (warning): a rule's selector selects none of the
	// inventory's namespaces (a typo such as tema: platform), so its policy decides nothing
	// here.
	SelectorMatchesNoNamespace = report.SelectorMatchesNoNamespace
	// PolicyDecidesNoEntry (warning): no ServiceEntry of the inventory is decided by the
	// policy.
	PolicyDecidesNoEntry = report.PolicyDecidesNoEntry
	// ExportToUnknownNamespace (error): an exportTo names a namespace the inventory does not
	// have: sidecars there see nothing of the service.
	ExportToUnknownNamespace = report.ExportToUnknownNamespace
	// NoAddressForDNS (warning): an entry with no address for any of its hosts: ztunnel's
	// DNS proxy never answers for it (give it spec.addresses, or a resolution Istio
	// allocates for).
	NoAddressForDNS = report.NoAddressForDNS
	// PartialWildcardDNS (warning): an entry's partial wildcard host (*x.example.com,
	// *-foo.example.com) with an address. Istio's sidecars match it against every host
	// ending in what follows its "*" (and SidecarView does), but ztunnel's DNS proxy (and
	// LookupHost, which models it) tries only the
	// query and the *. wildcards at its label boundaries, so it never answers through a
	// partial wildcard: a query only the partial wildcard covers goes upstream, and the
	// client's traffic leaves as unknown traffic.
	PartialWildcardDNS = report.PartialWildcardDNS
)

// The codes of LintScope.
const (
	// ScopeNeverMatches (warning): a config whose selector's requirements contradict each
	// other.
	ScopeNeverMatches = report.ScopeNeverMatches
	// ScopeLocalConfig (note): a LOCAL config, which never changes a scope: LOCAL is the
	// default and never overrides a GLOBAL match.
	ScopeLocalConfig = report.ScopeLocalConfig
	// ScopeSettingOverridden (note): a host pattern given again by a later setting, which
	// wins.
	ScopeSettingOverridden = report.ScopeSettingOverridden
	// ScopeHostNeverMatches (error): a serviceSettings host, or the host of
	// defaultConfig.discoveryAddress, with an upper-case letter or a trailing dot. Istio
	// matches hosts exactly as written and a Kubernetes Service's host is lower case without
	// a trailing dot, so the pattern matches no service: Web.Shop.svc.cluster.local never
	// makes web.shop.svc.cluster.local cluster-local.
	ScopeHostNeverMatches = report.ScopeHostNeverMatches
	// ScopeDefaultKept (warning): a clusterLocal: false setting that looks as if it opened
	// up one of Istio's default cluster-local hosts but does not drop it: the bare parent
	// kube-system.svc.<domain>, a wildcard such as *.svc.<domain> that covers a default, or
	// a near miss of a default: in another letter case, with a trailing dot, or without the
	// cluster domain (kubernetes.default.svc). Only a host equal to an exact default, or
	// ending in .kube-system.svc.<domain> for the wildcard default, drops it.
	ScopeDefaultKept = report.ScopeDefaultKept
	// ScopeDefaultDropped (warning): a clusterLocal: false on one host under
	// *.kube-system.svc.<domain> (a.kube-system.svc.<domain>), which drops that default for
	// every kube-system host, not only for the one named.
	ScopeDefaultDropped = report.ScopeDefaultDropped
	// ScopeDefaultStaysDropped (warning): a clusterLocal: true on a host under
	// *.kube-system.svc.<domain> after an earlier setting dropped that default: the default
	// stays dropped, and only the hosts this setting names are cluster-local again.
	ScopeDefaultStaysDropped = report.ScopeDefaultStaysDropped
)
