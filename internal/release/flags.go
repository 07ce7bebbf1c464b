package release

import (
	"slices"
	"strconv"
	"strings"
)

// Flag is an istiod environment variable that changes an answer meshscope gives.
type Flag struct {
	// Name is the variable's name.
	Name string
	// Default is its value when unset, in every release that has it.
	Default bool
	// Since is the first minor release that reads it.
	Since int
	// Modelled: meshscope answers under either value. A flag that is not modelled may only
	// be set to its default.
	Modelled bool
	// What says what the flag decides, for messages.
	What string
}

// The flags meshscope reads.
const (
	PickBestServiceNamespace     = "PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"
	AmbientMultiNetwork          = "AMBIENT_ENABLE_MULTI_NETWORK"
	EnhancedDestinationRuleMerge = "ENABLE_ENHANCED_DESTINATIONRULE_MERGE"
	UnifiedSidecarScope          = "PILOT_UNIFIED_SIDECAR_SCOPE"
	ScopeGatewayToNamespace      = "PILOT_SCOPE_GATEWAY_TO_NAMESPACE"
)

// Flags are the istiod flags that change an answer meshscope gives, by name.
var Flags = []Flag{
	{AmbientMultiNetwork, false, OldestMinor, true, "whether istiod applies serviceScopeConfigs (multicluster service scope)"},
	{EnhancedDestinationRuleMerge, true, OldestMinor, false, "how DestinationRules of one host merge"},
	{PickBestServiceNamespace, true, 30, true, "which namespace's service a VirtualService destination adds to a sidecar"},
	{ScopeGatewayToNamespace, false, OldestMinor, false, "which Gateways a gateway proxy may select"},
	{UnifiedSidecarScope, true, OldestMinor, false, "how istiod builds a proxy's SidecarScope"},
}

// LookupFlag returns the flag named name, or false.
func LookupFlag(name string) (Flag, bool) {
	i := slices.IndexFunc(Flags, func(f Flag) bool { return f.Name == name })
	if i < 0 {
		return Flag{}, false
	}
	return Flags[i], true
}

// FlagNames returns the flags' names, sorted.
func FlagNames() []string {
	out := make([]string, len(Flags))
	for i, f := range Flags {
		out[i] = f.Name
	}
	return out
}

// ParseBool reads a flag's value as istiod does (strconv.ParseBool: 1, t, T, TRUE, true,
// True, 0, f, F, FALSE, false, False).
func ParseBool(value string) (bool, bool) {
	b, err := strconv.ParseBool(value)
	return b, err == nil
}

// FlagProblem returns why meshscope refuses the flag name set to value ("" when it
// accepts it): a value istiod cannot read as a boolean (it would log a warning and use the
// default), or a flag meshscope does not model set to other than its default. A name that
// is no flag meshscope reads is not judged (istiod has many that change nothing meshscope
// answers).
func FlagProblem(name, value string) string {
	f, ok := LookupFlag(name)
	if !ok {
		return ""
	}
	b, ok := ParseBool(value)
	switch {
	case !ok:
		return strconv.Quote(value) + " is not a boolean: istiod would log a warning and use the default, " + strconv.FormatBool(f.Default) + "; write true or false"
	case !f.Modelled && b != f.Default:
		return strconv.Quote(value) + ": meshscope does not model " + name + " (" + f.What + ") set to " + strconv.FormatBool(b) + "; it answers only for the default, " + strconv.FormatBool(f.Default)
	}
	return ""
}

// Profiles returns the compatibilityVersion profiles release minor ships
// (manifests/helm-profiles/compatibility-version-*.yaml): 1.25 up to the previous minor.
func Profiles(minor int) []string {
	var out []string
	for m := 25; m < minor; m++ {
		out = append(out, "1."+strconv.Itoa(m))
	}
	return out
}

// CompatibilityProblem returns why release v refuses compatibilityVersion cv ("" when it
// has a profile for it), in Helm's words: the chart fails with "unknown compatibility
// version <cv>".
func CompatibilityProblem(v Version, cv string) string {
	profiles := Profiles(v.Minor)
	if slices.Contains(profiles, cv) {
		return ""
	}
	return "unknown compatibility version " + cv + " (Helm's words: Istio " + v.String() + " ships profiles for " + strings.Join(profiles, ", ") + ")"
}

// ProfileSets reports whether compatibilityVersion cv's profile sets the flag name on
// release v, to false: the profiles of 1.25–1.29 set PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE
// on 1.30 and 1.31 (the releases that have the flag); no profile sets another flag meshscope
// reads.
func ProfileSets(v Version, cv, name string) bool {
	if name != PickBestServiceNamespace || v.Minor < 30 || cv == "" {
		return false
	}
	c, problem := ParseVersion(cv)
	return problem == "" && c.Patch < 0 && c.Minor >= 25 && c.Minor <= 29
}
