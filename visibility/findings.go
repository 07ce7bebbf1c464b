package visibility

import "github.com/meshscope/meshscope/internal/report"

// Finding is one result of a lint: Path (what it is about, as the user wrote it:
// "policies[1].matchingRules[0]", "ServiceEntry shop/api", "serviceSettings[0].hosts[2]"),
// Code, Level (the code's: note, warning or error) and Message. Resolver.Lint and LintNamespaces report
// in this one shape, as every lint and check of meshscope does (the views' lints too), so a
// program prints and gates on them alike; String renders one as a report line:
//
//	WARNING Shadowed policies[2]: policies[0] matches every namespace this policy matches, so this policy never decides
type Finding = report.Finding

// The codes of Resolver.Lint: the configuration read alone.
var (
	// Unreachable (warning): an earlier policy matches every namespace, so this one is
	// never tried.
	Unreachable = report.NewCode("Unreachable", report.Warning)
	// Shadowed (warning): an earlier policy matches every namespace this one matches, so
	// this one never decides.
	Shadowed = report.NewCode("Shadowed", report.Warning)
	// NeverMatches (warning): the policy's rules contradict each other (team in (a) and team
	// in (b)).
	NeverMatches = report.NewCode("NeverMatches", report.Warning)
	// Redundant (note): the policy gives the default visibility and no later policy gives
	// another, so removing it changes no entry's visibility; it only costs evaluation.
	Redundant = report.NewCode("Redundant", report.Note)
	// NoOpRule (note): an empty selector in a policy with other rules; it matches everything
	// and adds nothing to the conjunction.
	NoOpRule = report.NewCode("NoOpRule", report.Note)
	// DuplicateRule (note): a rule that requires nothing more than an earlier rule of its
	// policy.
	DuplicateRule = report.NewCode("DuplicateRule", report.Note)
)

// The codes of Resolver.LintNamespaces: the configuration read against a cluster's
// namespaces and ServiceEntries.
var (
	// SelectorMatchesNoNamespace (warning): a rule's selector selects none of the
	// inventory's namespaces (a typo such as tema: platform), so its policy decides nothing
	// here.
	SelectorMatchesNoNamespace = report.NewCode("SelectorMatchesNoNamespace", report.Warning)
	// PolicyDecidesNoEntry (warning): no ServiceEntry of the inventory is decided by the
	// policy.
	PolicyDecidesNoEntry = report.NewCode("PolicyDecidesNoEntry", report.Warning)
)
