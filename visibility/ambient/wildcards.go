package ambient

import "github.com/meshscope/meshscope/internal/names"

// How a lookup finds the wildcard hosts that match a name. A wildcard host is "*" and a
// suffix: *.b.c matches every name ending in .b.c, the partial wildcard *x.b.c every name
// ending in x.b.c, as Istio matches hosts — but a DNS lookup tries only the *. ones, as
// ztunnel's DNS proxy does; explanations show the partial ones too, as never answering. The
// index keys its wildcard table by the suffix;
// a DNS lookup of a name probes the table at the name's label boundaries where some *.
// wildcard's suffix could start (TestWildcardProbes, BenchmarkLookupNameWildcards beside
// BenchmarkLookupNameWildcardsEveryBoundary), and an explanation also at the lengths of the
// partial ones.

// wildLen is a length some wildcard suffix has (what follows its "*"), and which kinds of
// suffix have it: those starting with "." (*.b.c, matched at a label boundary of a query) and
// those that do not (the partial wildcard *x.b.c, matched inside a label). A lookup tries only
// these lengths, and at each only the kind of suffix the query's byte there allows, so a
// query costs a probe per label boundary a wildcard can start at, plus one per length of a
// partial wildcard.
type wildLen struct {
	n     int
	kinds uint8 // dotted | partial
}

const (
	dotted  = 1 << iota // a suffix ".b.c"
	partial             // a suffix "x.b.c"
)

// wildLengths returns the lengths of the suffixes, longest first, with their kinds.
func wildLengths(suffixes ...[]string) []wildLen {
	var kinds [names.MaxSubdomain + 2]uint8
	for _, list := range suffixes {
		for _, s := range list {
			if len(s) == 0 || len(s) >= len(kinds) {
				continue // a ServiceEntry host is never "*" alone, nor longer than a name
			}
			if s[0] == '.' {
				kinds[len(s)] |= dotted
			} else {
				kinds[len(s)] |= partial
			}
		}
	}
	var out []wildLen
	for n := len(kinds) - 1; n > 0; n-- {
		if kinds[n] != 0 {
			out = append(out, wildLen{n, kinds[n]})
		}
	}
	return out
}

// wildAt returns where in h the suffix of length w.n starts, or -1 when h is shorter or the
// byte there does not allow w's kinds of suffix. A *. suffix matches at a label boundary
// inside h, never at its start: ".b.c" is no name under *.b.c, and a lookup never probes
// there.
func wildAt(w wildLen, h string) int {
	i := len(h) - w.n
	switch {
	case i < 0:
		return -1
	case h[i] == '.' && i > 0 && w.kinds&dotted != 0, h[i] != '.' && w.kinds&partial != 0:
		return i
	}
	return -1
}

// lengthSet is a set of suffix lengths (at most a DNS name's).
type lengthSet [(names.MaxSubdomain + 64) / 64]uint64

func (s *lengthSet) has(n int) bool { return n < len(s)*64 && s[n/64]&(1<<(n%64)) != 0 }
func (s *lengthSet) empty() bool    { return *s == lengthSet{} }

// dottedLengths returns the lengths of the *. suffixes (".b.c"): where a DNS lookup probes the
// wildcard table, at the query's label boundaries, as ztunnel's DNS proxy matches no partial
// wildcard. A query pays a probe only at a boundary some wildcard's suffix starts at.
func dottedLengths(suffixes []string) lengthSet {
	var s lengthSet
	for _, x := range suffixes {
		if len(x) > 0 && x[0] == '.' && len(x) < len(s)*64 {
			s[len(x)/64] |= 1 << (len(x) % 64)
		}
	}
	return s
}

// isPartialWildcard reports whether h is a partial wildcard host: "*" then label characters
// (*x.b.c, *-x.b.c, *x), not *.b.c.
func isPartialWildcard(h string) bool { return len(h) > 1 && h[0] == '*' && h[1] != '.' }
