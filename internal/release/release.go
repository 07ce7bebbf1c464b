// Package release holds what meshscope knows about the Istio releases it models: which
// releases those are, how a release is named (Config.Istio, an image tag), the
// compatibilityVersion profiles each release ships, the istiod flags that change an answer,
// and, for every difference between releases that changes what a proxy or ztunnel is given
// (a Cause), the first release that behaves the new way. Package visibility/mesh exports the
// Release value as mesh.Release; the views ask it, cause by cause, how to answer.
//
// meshscope models 1.28 (from 1.28.1: 1.28.0's ztunnel answered wildcard queries reached
// through a search domain with a CNAME and lacked 1.28's per-namespace de-duplication of
// ServiceEntries), 1.29, 1.30 and 1.31. A minor version alone ("1.30") answers as the patch
// release its behaviour was recorded from (1.28.10, 1.29.6, 1.30.3, the 1.31 build); a patch
// release answers as its minor does, except where a cause names the patch (1.30.0–1.30.2
// lack the default-exportTo and listener-order changes of 1.30.3).
package release

import (
	"strconv"
	"strings"
)

// The releases modelled: minor versions of Istio 1.x.
const (
	OldestMinor = 28
	NewestMinor = 31
)

// Newest is the release answered for when none is given.
const Newest = "1.31"

// recordedPatch is, per modelled minor, the patch release its behaviour was recorded from:
// what a minor version given alone answers as.
var recordedPatch = map[int]int{28: 10, 29: 6, 30: 3, 31: 0}

// Version is an Istio release, 1.Minor.Patch. Patch is -1 when only the minor is given.
type Version struct{ Minor, Patch int }

// String spells the version: "1.30", "1.30.3".
func (v Version) String() string {
	s := "1." + strconv.Itoa(v.Minor)
	if v.Patch >= 0 {
		s += "." + strconv.Itoa(v.Patch)
	}
	return s
}

// patch is the patch release v answers as: its own, or its minor's recorded one.
func (v Version) patch() int {
	if v.Patch >= 0 {
		return v.Patch
	}
	return recordedPatch[v.Minor]
}

// atLeast reports whether v answers as minor.patch or a later release.
func (v Version) atLeast(minor, patch int) bool {
	return v.Minor > minor || v.Minor == minor && v.patch() >= patch
}

// ParseVersion reads a release as Config.Istio names it: "1.MINOR" or "1.MINOR.PATCH",
// decimal numbers without leading zeros, read as text ("1.30" is 1.30, not 1.3). It returns
// why s is not one ("" when it is); whether meshscope models it is Modelled's question.
func ParseVersion(s string) (Version, string) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, "is not a release: want 1.MINOR or 1.MINOR.PATCH, as 1.30 or 1.30.3"
	}
	nums := make([]int, 3)
	nums[2] = -1
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return Version{}, "is not a release: want 1.MINOR or 1.MINOR.PATCH, as 1.30 or 1.30.3 (" + strconv.Quote(p) + " is not a decimal number without leading zeros)"
		}
		nums[i] = n
	}
	if nums[0] != 1 {
		return Version{}, "is not an Istio 1.x release; meshscope models " + ModelledList()
	}
	return Version{Minor: nums[1], Patch: nums[2]}, ""
}

// number reads a decimal number of at most 6 digits without a leading zero (but "0").
func number(s string) (int, bool) {
	if s == "" || len(s) > 6 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// Modelled returns why meshscope does not answer for v ("" when it does), naming the
// releases it models.
func Modelled(v Version) string {
	switch {
	case v.Minor == 28 && v.Patch == 0:
		return "is not modelled: 1.28.0's ztunnel answered a wildcard host reached through a search domain with a CNAME, and its istiod lacked 1.28's per-namespace de-duplication of ServiceEntries; meshscope models " + ModelledList()
	case v.Minor < OldestMinor || v.Minor > NewestMinor:
		return "is not a release meshscope models; it models " + ModelledList()
	}
	return ""
}

// ModelledList names the modelled releases for a message.
func ModelledList() string {
	return "1.28 (1.28.1 on), 1.29, 1.30 and 1.31"
}

// TagVersion reads the release an image tag names: a version, optionally followed by a
// variant or pre-release suffix ("1.30.3", "1.30.3-distroless", "1.31.0-rc.0"), gives the
// version without it. A tag that names no version — "latest", a digest (sha256:…), a build
// ("master-abc123") — gives false: it says nothing about the release.
func TagVersion(tag string) (string, bool) {
	v, _, _ := strings.Cut(tag, "-")
	if _, problem := ParseVersion(v); problem != "" {
		return "", false
	}
	return v, true
}
