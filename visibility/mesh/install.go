package mesh

import (
	"maps"
	"slices"

	"github.com/meshscope/meshscope/internal/meshfile"
	"github.com/meshscope/meshscope/internal/release"
)

// takeInstalls sets c's release settings — Istio, CompatibilityVersion, PilotEnv — from
// what the install objects of a stream say (see meshfile.Install), recording where each is
// written, and returns the problems: a setting two objects give, a flag set from valueFrom.
// A tag that names no release sets nothing (recorded for Findings).
func (c *Config) takeInstalls(installs []meshfile.Install, claims meshfile.Claims, st *loadState) []error {
	var errs []error
	claim := func(in meshfile.Install, what string, s meshfile.Setting) bool {
		if err := claims.Claim(meshfile.Doc{Object: in.Object}, what, s.Path); err != nil {
			errs = append(errs, err)
			return false
		}
		return true
	}
	for _, in := range installs {
		at := func(value, path string) settingAt { return settingAt{value, in.Object.Where(), path} }
		if s := in.Tag; s.Set() && claim(in, "istiod image tag", s) {
			if v, ok := release.TagVersion(s.Value); ok {
				c.Istio, st.istio = v, at(v, s.Path)
			} else {
				st.notes = append(st.notes, noteTag(at(s.Value, s.Path)))
			}
		}
		if s := in.CompatibilityVersion; s.Set() && claim(in, "compatibilityVersion", s) {
			c.CompatibilityVersion, st.compat = s.Value, at(s.Value, s.Path)
		}
		for _, name := range slices.Sorted(maps.Keys(in.Env)) {
			s := in.Env[name]
			if _, known := release.LookupFlag(name); !known {
				if problem := flagNearMiss(name); problem != "" {
					errs = append(errs, &FieldError{Where: in.Object.Where(), Field: s.Path, Value: name, Detail: problem})
				}
				continue
			}
			if !claim(in, name, s) {
				continue
			}
			if s.ValueFrom {
				errs = append(errs, &FieldError{Where: in.Object.Where(), Field: s.Path, Value: name,
					Detail: name + " is set from valueFrom, which meshscope cannot read: set it in the values, or in the Config's PilotEnv"})
				continue
			}
			if c.PilotEnv == nil {
				c.PilotEnv = map[string]string{}
			}
			c.PilotEnv[name] = s.Value
			if st.env == nil {
				st.env, st.below = map[string]settingAt{}, map[string]settingAt{}
			}
			st.env[name] = at(s.Value, s.Path)
			if s.BelowProfile {
				st.below[name] = at(s.Value, s.Path)
			}
		}
	}
	return errs
}

// applyProfile applies the chart's precedence once the release and compatibilityVersion are
// known: an env value of the values' top level is overridden by a compatibilityVersion
// profile that sets the same flag (the chart copies pilot.* — the profile's pilot.env
// included — over the top level), so it leaves PilotEnv, and a note names it.
func (c *Config) applyProfile(st *loadState) {
	v, problem := release.ParseVersion(c.Istio)
	if c.Istio == "" {
		v, problem = release.Version{Minor: release.NewestMinor, Patch: -1}, ""
	}
	if problem != "" {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(st.below)) {
		if s := st.below[name]; release.ProfileSets(v, c.CompatibilityVersion, name) && st.env[name] == s {
			st.notes = append(st.notes, noteOverridden(name, s, c.CompatibilityVersion))
			delete(c.PilotEnv, name)
			delete(st.env, name)
		}
	}
	if len(c.PilotEnv) == 0 {
		c.PilotEnv = nil
	}
}
