package sidecar

// gammaPrecedence is what Gateway API precedence reads of an http entry's match: the kind of
// its path (uri) match and the path's length, whether it matches a method, and how many
// headers and query parameters it matches.
type gammaPrecedence struct {
	rank, length         int
	method               bool
	headers, queryParams int
}

// The ranks of a path match: exact before prefix before regular expression before none.
const (
	gammaRankNone   = 0
	gammaRankRegex  = 1
	gammaRankPrefix = 2
	gammaRankExact  = 3
)

// gammaLess reports whether entry a comes before entry b in Gateway API precedence, as istiod
// orders the http entries of the VirtualServices it makes: an entry without a match after
// every entry with one; then the higher path rank, the longer path, a method match before
// none, more headers, more query parameters. Entries it does not order keep their order
// (the sort is stable). A match that only holds a port (an entry without a match under a
// parentRef with a port) ranks as a match without a path.
func gammaLess(a, b *gammaEntry) bool {
	switch {
	case len(a.route.Match) == 0:
		return false
	case len(b.route.Match) == 0:
		return true
	}
	x, y := a.extra.prec, b.extra.prec
	switch {
	case x.rank != y.rank:
		return x.rank > y.rank
	case x.length != y.length:
		return x.length > y.length
	case x.method != y.method:
		return x.method
	case x.headers != y.headers:
		return x.headers > y.headers
	}
	return x.queryParams > y.queryParams
}

// gammaCompare is gammaLess as a comparison for slices.SortStableFunc.
func gammaCompare(a, b gammaEntry) int {
	switch {
	case gammaLess(&a, &b):
		return -1
	case gammaLess(&b, &a):
		return 1
	}
	return 0
}
