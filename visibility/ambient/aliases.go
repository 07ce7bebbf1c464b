package ambient

import "bytes"

// How a DNS query reaches a name, as ztunnel's DNS proxy expands short names. The query is
// tried as given, then as its aliases in this order, the first answer winning:
//
//   - its expansion by label count: one label x becomes x.<client ns>.svc.<domain>; two
//     labels x.y become x.y.svc.<domain>; three labels ending in svc (x.y.svc) become
//     x.y.svc.<domain>;
//   - for each search domain of the client — <client ns>.svc.<domain>, svc.<domain>,
//     <domain>, in that order — that the query ends with, the query with that suffix
//     stripped, then that name's expansion (no further stripping). An answer reached this
//     way is a CNAME to the stripped name.
//
// A client namespace of "" has no one-label expansion and no <client ns>.svc.<domain>
// search domain. ztunnel's "preferred namespace" option would rank after the canonical
// entry, which always exists among the entries a client can see, so it never decides; it is
// not modelled.

// aliasKind says how an alias came from the query.
type aliasKind int

const (
	aliasExpanded         aliasKind = iota // the query's expansion by label count
	aliasStripped                          // the query with a search domain stripped
	aliasStrippedExpanded                  // the stripped name's expansion
)

// maxAliases is the most aliases a query has: its expansion, and for each of three search
// domains the stripped name and its expansion.
const maxAliases = 7

// aliasList holds a query's aliases, built without allocating: the names side by side in
// buf, each item naming its bytes, its kind and the search domain stripped (see
// searchDomain; -1 for the query's own expansion).
type aliasList struct {
	buf   [maxAliases * len(nameBuf{})]byte
	used  int
	n     int
	items [maxAliases]aliasItem
}

type aliasItem struct {
	from, to int
	kind     aliasKind
	sd       int
}

func (l *aliasList) name(k int) []byte { return l.buf[l.items[k].from:l.items[k].to] }

// add appends a name made of the parts (nil parts are skipped, and a "." goes between).
func (l *aliasList) add(kind aliasKind, sd int, first []byte, rest ...string) {
	from := l.used
	n := from + copy(l.buf[from:], first)
	for _, p := range rest {
		if n+1+len(p) > len(l.buf) {
			return
		}
		l.buf[n] = '.'
		n++
		n += copy(l.buf[n:], p)
	}
	l.items[l.n] = aliasItem{from, n, kind, sd}
	l.n++
	l.used = n
}

// hasAliases reports whether the normalized query h has any alias for client: a label-count
// expansion, or a search domain to strip (every one ends with the cluster domain). Most
// misses have none, and the alias list is not worth building for them.
func (ix *Index) hasAliases(client string, h []byte) bool {
	if _, n := ix.expansion(client, h); n > 0 {
		return true
	}
	_, ok := stripSuffix(h, [3]string{ix.domain})
	return ok
}

// aliases fills l with the aliases of the normalized query h for client, in order.
func (ix *Index) aliases(client string, h []byte, l *aliasList) {
	ix.expand(l, client, h, aliasExpanded, -1)
	for k := range 3 {
		var sd [3]string // the search domain's parts, joined with "."
		switch k {
		case 0:
			if client == "" {
				continue
			}
			sd = [3]string{client, "svc", ix.domain}
		case 1:
			sd = [3]string{"svc", ix.domain}
		case 2:
			sd = [3]string{ix.domain}
		}
		stripped, ok := stripSuffix(h, sd)
		if !ok {
			continue
		}
		l.add(aliasStripped, k, stripped)
		ix.expand(l, client, stripped, aliasStrippedExpanded, k)
	}
}

// searchDomain returns the client's search domain k: 0 <client>.svc.<domain>, 1
// svc.<domain>, 2 <domain>.
func (ix *Index) searchDomain(client string, k int) string {
	switch k {
	case 0:
		return client + ".svc." + ix.domain
	case 1:
		return "svc." + ix.domain
	}
	return ix.domain
}

// expand adds the expansion of name by its label count, if it has one.
func (ix *Index) expand(l *aliasList, client string, name []byte, kind aliasKind, sd int) {
	if parts, n := ix.expansion(client, name); n > 0 {
		l.add(kind, sd, name, parts[:n]...)
	}
}

// expansion returns the n labels that name's expansion by label count appends (n is 0 when
// it has none).
func (ix *Index) expansion(client string, name []byte) (parts [3]string, n int) {
	switch dots := bytes.Count(name, []byte{'.'}); {
	case dots == 0 && client != "":
		return [3]string{client, "svc", ix.domain}, 3
	case dots == 1:
		return [3]string{"svc", ix.domain}, 2
	case dots == 2 && bytes.HasSuffix(name, []byte(".svc")):
		return [3]string{ix.domain}, 1
	}
	return parts, 0
}

// stripSuffix returns h without "." followed by the parts joined with ".", if h ends so and
// something remains.
func stripSuffix(h []byte, parts [3]string) ([]byte, bool) {
	end := len(h)
	for k := len(parts) - 1; k >= 0; k-- {
		p := parts[k]
		if p == "" {
			continue
		}
		if end < len(p)+1 || string(h[end-len(p):end]) != p || h[end-len(p)-1] != '.' {
			return nil, false
		}
		end -= len(p) + 1
	}
	if end == 0 {
		return nil, false
	}
	return h[:end], true
}
