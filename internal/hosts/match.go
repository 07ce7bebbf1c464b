package hosts

import "strings"

// isWildcard reports whether h is a wildcard host or pattern: one that starts with "*".
func isWildcard(h string) bool { return h != "" && h[0] == '*' }

// Covers reports whether the host pattern pattern covers host, as Istio's host.Name.SubsetOf
// reads two hosts, compared as written (case and a trailing dot count; see Normalize): an
// exact pattern covers only itself; a wildcard "*" + s covers an exact host that ends with s,
// and a wildcard host whose part after its "*" ends with s. So *.a.b covers x.a.b and
// *.x.a.b but not a.b, "*" covers every host, and no exact pattern covers a wildcard host.
func Covers(pattern, host string) bool {
	if !isWildcard(pattern) {
		return pattern == host
	}
	if isWildcard(host) {
		host = host[1:]
	}
	return strings.HasSuffix(host, pattern[1:])
}

// Matches is Istio's host.Name.Matches: whether hosts a and b overlap, that is, whether
// either covers the other (see Covers). Two exact hosts match when they are equal; a
// wildcard matches the exact hosts it covers; of two wildcards, the one with the shorter
// part after "*" must end the other's.
func Matches(a, b string) bool {
	aw, bw := isWildcard(a), isWildcard(b)
	switch {
	case aw && bw:
		if len(a) < len(b) {
			return strings.HasSuffix(b[1:], a[1:])
		}
		return strings.HasSuffix(a[1:], b[1:])
	case aw:
		return strings.HasSuffix(b, a[1:])
	case bw:
		return strings.HasSuffix(a, b[1:])
	}
	return a == b
}

// MoreSpecific reports whether pattern a is more specific than pattern b, which is how Istio
// picks among the patterns that cover one host: an exact pattern before a wildcard, and of
// two wildcards the longer. Two different patterns that cover the same host never tie, so
// the most specific of them is unique.
func MoreSpecific(a, b string) bool {
	aw, bw := isWildcard(a), isWildcard(b)
	if aw != bw {
		return bw
	}
	return len(a) > len(b)
}
