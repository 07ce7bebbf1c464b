package release

import (
	"slices"
	"strconv"
	"strings"
)

// Release is the istiod release, compatibilityVersion and flags an answer is for. The zero
// Release is the newest release meshscope models, with no compatibilityVersion and no flag
// set. A Release is a value: immutable, safe to copy and to share.
type Release struct {
	v      Version // Minor 0: none given, the newest
	compat string
	flags  []setting // the flags set, by name
}

// setting is a flag set to a value.
type setting struct {
	name  string
	value bool
}

// Make returns the Release of a configuration that names release istio ("" for the newest),
// compatibilityVersion compat ("" for none) and sets env (flag name → value; names meshscope
// does not read are left out). It does not validate: a configuration's Validate refuses
// what Make would misread (a release not modelled, a value that is no boolean); an istio
// that is not a release gives the newest.
func Make(istio, compat string, env map[string]string) Release {
	var r Release
	if v, problem := ParseVersion(istio); problem == "" && Modelled(v) == "" {
		r.v = v
	}
	r.compat = compat
	for name, value := range env {
		if _, ok := LookupFlag(name); !ok {
			continue
		}
		if b, ok := ParseBool(value); ok {
			r.flags = append(r.flags, setting{name, b})
		}
	}
	slices.SortFunc(r.flags, func(a, b setting) int { return strings.Compare(a.name, b.name) })
	return r
}

// Equal reports whether r and o are the same release, compatibilityVersion and flags
// (go-cmp compares Releases with it).
func (r Release) Equal(o Release) bool {
	return r.v == o.v && r.compat == o.compat && slices.Equal(r.flags, o.flags)
}

// ver is the version answered for.
func (r Release) ver() Version {
	if r.v.Minor == 0 {
		return Version{Minor: NewestMinor, Patch: -1}
	}
	return r.v
}

// Version returns the release answered for, as given ("1.30", "1.30.3"), or "1.31" when
// none was given.
func (r Release) Version() string { return r.ver().String() }

// Minor returns the minor version answered for: 28 to 31.
func (r Release) Minor() int { return r.ver().Minor }

// Assumed reports whether no release was given, so that the newest is answered for.
func (r Release) Assumed() bool { return r.v.Minor == 0 }

// CompatibilityVersion returns the compatibilityVersion ("" for none).
func (r Release) CompatibilityVersion() string { return r.compat }

// FlagSet returns the value the configuration sets the flag name to, and whether it sets it.
func (r Release) FlagSet(name string) (value, set bool) {
	i := slices.IndexFunc(r.flags, func(s setting) bool { return s.name == name })
	if i < 0 {
		return false, false
	}
	return r.flags[i].value, true
}

// Flag returns the value istiod runs the flag name with: the value set, else the one the
// compatibilityVersion profile sets, else the default; false for a flag the release does not
// have (it behaves as without it) or one meshscope does not read.
func (r Release) Flag(name string) bool {
	f, ok := LookupFlag(name)
	if !ok || r.Minor() < f.Since {
		return false
	}
	if v, set := r.FlagSet(name); set {
		return v
	}
	if ProfileSets(r.ver(), r.compat, name) {
		return false
	}
	return f.Default
}

// Has reports whether the release behaves cause c's new way (see the causes): its release is
// c's first or later, and, for DestinationNamespace, PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE
// is on.
func (r Release) Has(c Cause) bool {
	if !r.ver().has(c) {
		return false
	}
	if c == DestinationNamespace {
		return r.Flag(PickBestServiceNamespace)
	}
	return true
}

// Differences returns the causes a and b behave differently under, in the order of Causes:
// what an upgrade from one to the other can change.
func Differences(a, b Release) []Cause {
	var out []Cause
	for _, c := range Causes() {
		if a.Has(c) != b.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// String names the release and the flags it runs with, as an output's first line says it:
//
//	Istio 1.31 (none given: the newest release meshscope models)
//	Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)
//
// The flags listed are those the configuration sets and those its compatibilityVersion
// profile sets, by name; one the release does not have is named as ignored.
func (r Release) String() string {
	var b strings.Builder
	b.WriteString("Istio ")
	b.WriteString(r.Version())
	if r.compat != "" {
		b.WriteString(", compatibilityVersion ")
		b.WriteString(r.compat)
	}
	var flags []string
	for _, f := range Flags {
		_, set := r.FlagSet(f.Name)
		switch {
		case set && r.Minor() < f.Since:
			flags = append(flags, f.Name+" ignored: Istio "+r.Version()+" does not have it")
		case set || ProfileSets(r.ver(), r.compat, f.Name):
			flags = append(flags, f.Name+"="+strconv.FormatBool(r.Flag(f.Name)))
		}
	}
	switch {
	case r.Assumed() && len(flags) > 0:
		b.WriteString(" (none given: the newest release meshscope models; " + strings.Join(flags, ", ") + ")")
	case r.Assumed():
		b.WriteString(" (none given: the newest release meshscope models)")
	case len(flags) > 0:
		b.WriteString(" (" + strings.Join(flags, ", ") + ")")
	}
	return b.String()
}
