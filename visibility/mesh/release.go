package mesh

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/visibility"
)

// Release is the istiod release, compatibilityVersion and flags an answer is for, as
// Config.Release resolves them: which release (Version, Minor, Assumed when the Config names
// none), how it behaves, cause by cause (Has), and how an output names it on its first line
// (String: "Istio 1.30.3, compatibilityVersion 1.29
// (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)"). The zero Release is the newest release
// meshscope models. A Release is a value, safe to copy and share.
type Release = release.Release

// Cause is one difference between Istio releases that changes what a proxy or ztunnel is
// given; Release.Has says which way a release behaves, Since the first release that behaves
// the new way, and Differences which causes two releases differ by — what an upgrade
// between them can change.
type Cause = release.Cause

// The causes (see Cause); each is documented, with the releases it separates, where the
// views answer it.
const (
	DestinationNamespace   = release.DestinationNamespace   // 1.30.0, with PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE
	DefaultExportToLists   = release.DefaultExportToLists   // 1.30.3
	ListenerOrder          = release.ListenerOrder          // 1.30.3
	SidecarExclusions      = release.SidecarExclusions      // 1.31
	ServiceEntryVisibility = release.ServiceEntryVisibility // 1.31
	ExactHostListeners     = release.ExactHostListeners     // 1.31
	ZtunnelCanonicalHost   = release.ZtunnelCanonicalHost   // 1.29
	ZtunnelRankedAddress   = release.ZtunnelRankedAddress   // 1.30
	ZtunnelCIDRs           = release.ZtunnelCIDRs           // 1.30
)

// The istiod flags meshscope reads (Config.PilotEnv): PickBestServiceNamespace and
// AmbientMultiNetwork are honoured; the others change an answer meshscope gives only for
// their default, so any other value is refused as not modelled.
const (
	PickBestServiceNamespace     = release.PickBestServiceNamespace     // on by default, 1.30 on
	AmbientMultiNetwork          = release.AmbientMultiNetwork          // off by default
	EnhancedDestinationRuleMerge = release.EnhancedDestinationRuleMerge // on by default
	UnifiedSidecarScope          = release.UnifiedSidecarScope          // on by default
	ScopeGatewayToNamespace      = release.ScopeGatewayToNamespace      // off by default
)

// Newest is the release answered for when a Config names none.
const Newest = release.Newest

// Differences returns the causes releases a and b behave differently under, in the order
// of the Cause constants.
func Differences(a, b Release) []Cause { return release.Differences(a, b) }

// Release returns the release, compatibilityVersion and flags the Config is answered for:
// Istio (the newest release meshscope models when ""), CompatibilityVersion and PilotEnv.
// It is meant for a Config Validate accepts; of one it refuses, an Istio meshscope does not
// model reads as the newest release.
func (c *Config) Release() Release {
	if c == nil {
		return Release{}
	}
	return release.Make(c.Istio, c.CompatibilityVersion, c.PilotEnv)
}

// AppliedVisibility returns serviceEntryVisibility as the release applies it: Visibility
// from 1.31 on; nil before, whatever Visibility holds — istiod 1.28 to 1.30 does not know
// the field and drops it without a word (Findings says so), so no ServiceEntry is hidden, no
// condition is written and no waypoint is refused. The views read the block through it.
func (c *Config) AppliedVisibility() *visibility.Config {
	if c == nil || !c.Release().Has(ServiceEntryVisibility) {
		return nil
	}
	return c.Visibility
}

// loadState is what Load finds besides the fields, while it reads: where the release
// settings are written (for its messages) and what the release overrides or ignores (for
// Config.Notes).
type loadState struct {
	istio, compat settingAt
	env           map[string]settingAt
	// below are the env values of the values' top level, which a compatibility profile
	// setting the same flag overrides.
	below map[string]settingAt
	notes []visibility.Finding
}

// settingAt is a value as Load read it, and where: the object and the path in it.
type settingAt struct{ value, where, path string }

// problem returns a problem with the setting of value: placed where Load read that value,
// else at the Go field's name.
func (s settingAt) problem(value, field string, detail string) *FieldError {
	if s.path != "" && s.value == value {
		return &FieldError{Where: s.where, Field: s.path, Value: value, Detail: detail}
	}
	return &FieldError{Field: field, Value: value, Detail: detail}
}

// at spells where the setting is written, for a finding.
func (s settingAt) at() string { return strict.At(s.where) + s.path }

// pilotEnvField is the Go field of the flag name's value.
func pilotEnvField(name string) string {
	return fielderr.Root(fielderr.GoValue).Child("pilotEnv").Key(name).String()
}

// releaseProblems reports the problems of the release settings: an Istio that is no
// release meshscope models, a compatibilityVersion the release has no profile for, a flag
// value istiod cannot read or meshscope does not model, a variable name that misspells a
// flag. Each is placed where Load read it (st; nil: the Go fields' names).
func (c *Config) releaseProblems(st *loadState) []error {
	if st == nil {
		st = &loadState{}
	}
	var errs []error
	v, ok := release.Version{Minor: release.NewestMinor, Patch: -1}, true
	if c.Istio != "" {
		var problem string
		if v, problem = release.ParseVersion(c.Istio); problem == "" {
			problem = release.Modelled(v)
		}
		if problem != "" {
			ok = false
			errs = append(errs, st.istio.problem(c.Istio, "Istio", "Istio "+strconv.Quote(c.Istio)+" "+problem))
		}
	}
	if cv := c.CompatibilityVersion; cv != "" && ok {
		if problem := release.CompatibilityProblem(v, cv); problem != "" {
			errs = append(errs, st.compat.problem(cv, "CompatibilityVersion", problem))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.PilotEnv)) {
		value := c.PilotEnv[name]
		if problem := release.FlagProblem(name, value); problem != "" {
			errs = append(errs, st.env[name].problem(value, pilotEnvField(name), name+"="+problem))
		} else if _, known := release.LookupFlag(name); !known {
			if problem := flagNearMiss(name); problem != "" {
				errs = append(errs, &FieldError{Field: pilotEnvField(name), Value: name, Detail: problem})
			}
		}
	}
	return errs
}

// The codes of Findings.
var (
	// IgnoredByRelease (warning): a setting the release ignores or overrides without a
	// word: serviceEntryVisibility before 1.31, an env value a compatibility profile
	// overrides.
	IgnoredByRelease = report.NewCode("IgnoredByRelease", report.Warning)
	// FlagNotInRelease (warning): a flag the release does not have.
	FlagNotInRelease = report.NewCode("FlagNotInRelease", report.Warning)
	// ReleaseNotGiven (note): the install's image tag names no release, so the newest is
	// answered for.
	ReleaseNotGiven = report.NewCode("ReleaseNotGiven", report.Note)
)

// flagNearMiss says which flag the variable name misspells, "" when none: a variable that is
// no flag meshscope reads is not read, so a misspelt one would change nothing silently.
func flagNearMiss(name string) string {
	if s := strict.Close(name, release.FlagNames()); s != "" {
		return "unknown variable " + strconv.Quote(name) + " (did you mean " + strconv.Quote(s) + "? as written, istiod does not read it)"
	}
	return ""
}

// Findings returns what the Config's release ignores or overrides, which changes what
// istiod does without a word: serviceEntryVisibility before 1.31 (IgnoredByRelease), a flag
// the release does not have (FlagNotInRelease), and what Load noted (Notes: an env value a
// compatibilityVersion profile overrides, an image tag that names no release —
// ReleaseNotGiven). Sorted by path.
func (c *Config) Findings() []visibility.Finding {
	if c == nil {
		return nil
	}
	r := c.Release()
	out := slices.Clone(c.Notes)
	if !r.Has(ServiceEntryVisibility) && c.Visibility != nil {
		out = append(out, ignoredVisibility(r, "serviceEntryVisibility", "", ""))
	}
	for _, name := range slices.Sorted(maps.Keys(c.PilotEnv)) {
		if f, ok := release.LookupFlag(name); ok && r.Minor() < f.Since {
			out = append(out, report.New(pilotEnvField(name), FlagNotInRelease, "Istio %s does not have %s (it came in 1.%d): istiod ignores it, and meshscope answers as the release does without it", r.Version(), name, f.Since))
		}
	}
	slices.SortStableFunc(out, report.Compare)
	return out
}

// noteOverridden is the note of an env value a compatibilityVersion profile overrides.
func noteOverridden(name string, s settingAt, compat string) visibility.Finding {
	return report.New(s.at(), IgnoredByRelease, "%s=%s is overridden by compatibilityVersion %s's profile, which sets pilot.env.%s=false: the chart copies pilot.* over the top level after merging the profile, so istiod runs with %s=false; set it under pilot.env to win",
		name, s.value, compat, name, name)
}

// noteTag is the note of an image tag that names no release.
func noteTag(s settingAt) visibility.Finding {
	return report.New(s.at(), ReleaseNotGiven, "the image tag %q names no release: meshscope answers for the newest release it models, %s; set the release (Config.Istio, or LoadFor) to answer for the one running", s.value, release.Newest)
}

// ignoredVisibility is the finding of a serviceEntryVisibility block, at path, that release
// r does not know; malformed, when not "", says what meshscope cannot read in it, and
// refusal how Istio 1.31 refuses the file for it.
func ignoredVisibility(r Release, path, malformed, refusal string) visibility.Finding {
	msg := "Istio " + r.Version() + " does not know serviceEntryVisibility (it came in 1.31): istiod drops it without a word — its strict decode fails only at debug level (" +
		strconv.Quote(`unknown field "serviceEntryVisibility" in istio.mesh.v1alpha1.MeshConfig`) +
		") and a lenient decode succeeds — so every ServiceEntry is PUBLIC, no status condition is written and no waypoint is refused; meshscope answers with the feature off"
	if malformed != "" {
		msg += "; as written the block is malformed (" + strings.ReplaceAll(malformed, "\n", "; ") + ")"
		if refusal != "" {
			msg += ", and Istio 1.31 refuses the whole mesh configuration: " + refusal
		}
	}
	return report.New(path, IgnoredByRelease, "%s", msg)
}
