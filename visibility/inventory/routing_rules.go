package inventory

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
)

// The name rules Istio's validation applies to VirtualServices and DestinationRules, each
// returning Istio's own words for what it refuses ("" when the value passes). They read
// names as Istio does: a DNS label may hold upper-case letters. Host rules live in
// internal/hosts.

// subsetNameProblem checks the name of a subset (a DestinationRule's, or one a route
// destination names).
func subsetNameProblem(name string) string {
	switch {
	case name == "":
		return "subset name cannot be empty"
	case !names.IstioLabel(name):
		return "subset name is invalid: " + name
	}
	return ""
}

// portProblem checks a port number.
func portProblem(n uint64) string {
	if n >= 1 && n <= 65535 {
		return ""
	}
	return fmt.Sprintf("port number %d must be in the range 1..65535", n)
}

// qualifiedName reports whether s is a Kubernetes qualified name as Istio reads one: letters,
// digits, '-', '_' and '.', starting and ending with a letter or digit.
func qualifiedName(s string) bool {
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// tagKeyProblem checks a label key as Istio does: a qualified name of at most 63
// characters, optionally after a DNS name of at most 253 characters and "/".
func tagKeyProblem(k string) string {
	prefix, name, slashed := strings.Cut(k, "/")
	if !slashed {
		prefix, name = "", k
	}
	ok := qualifiedName(name)
	if slashed {
		for l := range strings.SplitSeq(prefix, ".") {
			ok = ok && names.IstioLabelChars(l)
		}
	}
	switch {
	case !ok:
		return fmt.Sprintf("invalid tag key: %q", k)
	case len(prefix) > 253:
		return fmt.Sprintf("invalid tag key: %q (DNS prefix is too long)", k)
	case len(name) > names.MaxLabel:
		return fmt.Sprintf("invalid tag key: %q (name is too long)", k)
	}
	return ""
}

// checkTags checks labels as Istio checks a subset's labels and a match's sourceLabels
// (keys as tagKeyProblem, values empty or qualified names), each problem at its key under
// path. The labels are walked in key order only when one has a problem.
func checkTags(errs []*FieldError, path func() fielderr.Path, ls map[string]string) []*FieldError {
	bad := false
	for k, v := range ls {
		if tagKeyProblem(k) != "" || v != "" && !qualifiedName(v) {
			bad = true
			break
		}
	}
	if !bad {
		return errs
	}
	at := path()
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		v := ls[k]
		if r := tagKeyProblem(k); r != "" {
			errs = append(errs, at.Key(k).Problem(k, r))
		}
		if v != "" && !qualifiedName(v) {
			errs = append(errs, at.Key(k).Problemf(v, "invalid tag value: %q", v))
		}
	}
	return errs
}

// gatewayNamesProblems checks the gateways a VirtualService (or one of its matches) names, at
// the path field gives (built for a problem only), as Istio does: "namespace/name" of two DNS
// labels, or a name without "/" that is a domain ("mesh", or the legacy name.namespace form;
// see hosts.FQDN). Istio stops at the first name without "/", leaving the names after it
// unchecked, and so does this.
func gatewayNamesProblems(errs []*FieldError, field func() fielderr.Path, gateways []string) []*FieldError {
	for i, g := range gateways {
		ns, name, slashed := strings.Cut(g, "/")
		if !slashed {
			for _, r := range hosts.Problems(g, hosts.FQDN) {
				errs = append(errs, field().Index(i).Problem(g, r))
			}
			return errs
		}
		if ns == "" || name == "" {
			errs = append(errs, field().Index(i).Problem(g, "config namespace and gateway name cannot be empty"))
		}
		if !names.IstioLabel(ns) {
			errs = append(errs, field().Index(i).Problemf(g, "invalid value for namespace: %q", ns))
		}
		if !names.IstioLabel(name) {
			errs = append(errs, field().Index(i).Problemf(g, "invalid value for gateway name: %q", name))
		}
	}
	return errs
}

// jwtClaimHeader reports whether a header name is the form that routes on a JWT claim:
// @request.auth.claims (in any case) followed by .claim or [claim].
func jwtClaimHeader(name string) bool {
	const prefix = "@request.auth.claims"
	if len(name) < len(prefix) || !strings.EqualFold(name[:len(prefix)], prefix) {
		return false
	}
	rest := name[len(prefix):]
	return strings.HasPrefix(rest, ".") && len(rest) > 1 || strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") && len(rest) > 2
}

// headerNameProblem checks the name of a header a match reads.
func headerNameProblem(name string) string {
	switch name {
	case "":
		return "header name cannot be empty"
	case ":method", ":scheme", ":authority", ":path", ":status":
		return ""
	}
	if jwtClaimHeader(name) {
		return ""
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return "header name " + name + " is not a valid header name"
		}
	}
	return ""
}

// regexProblem checks a regular expression a match holds, named by where ("uri",
// "headers"): RE2, as Go's regexp reads it, of at most 1024 bytes.
func regexProblem(re, where string) string {
	if len(re) > 1024 {
		return fmt.Sprintf("%q: regex is too large, max length allowed is 1024", where)
	}
	if _, err := regexp.Compile(re); err != nil {
		return fmt.Sprintf("%q: %v; Istio uses RE2 style regex-based match (https://github.com/google/re2/wiki/Syntax)", where, err)
	}
	return ""
}
