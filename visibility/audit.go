package visibility

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/report"
)

// AllOtherNamespaces stands, in an audit, for every namespace other than the entry's own,
// including namespaces that do not exist yet.
const AllOtherNamespaces = names.Wildcard

// Change is how one thing differs between two configurations: Key names it, Before and
// After are its value on each side, Gained and Lost what it gains and loses when its value is
// a set or decides one. Every dry run of meshscope reports in this shape.
type Change[K, V, E any] = report.Change[K, V, E]

// EntryChange is a ServiceEntry (Key) whose visibility changes from Before to After. Gained
// and Lost list the client namespaces that start or stop seeing the entry: its own namespace
// by name, and AllOtherNamespaces ("*") for every other one.
type EntryChange = Change[ServiceRef, Decision, string]

// AnswerChange is a query whose answer changes for some clients (Key): they get Before under
// the old configuration and After under the new; nil means forwarded upstream (a host) or
// passed through (an address).
type AnswerChange = Change[Question, *ServiceRef, struct{}]

// Question is a query — a host or an address — and the client namespaces asking it whose
// answer changes alike.
type Question struct {
	Query string `json:"query"`
	// Clients are the client namespaces. Every namespace of the inventory whose answer
	// changes is listed by name; "*" (AllOtherNamespaces) stands only for namespaces the
	// inventory does not have, and a client without a namespace.
	Clients []string `json:"clients"`
}

// Audit is the dry run of a visibility change over one inventory: nothing is enforced.
type Audit struct {
	Entries   []EntryChange  `json:"entries"`
	Hosts     []AnswerChange `json:"hosts"`
	Addresses []AnswerChange `json:"addresses"`
}

// Diff compares two configurations over the same inventory: every ServiceEntry whose
// visibility changes, with the namespaces that gain or lose it, and every host and address
// of those entries whose answer changes for some client namespace. Entries are sorted by
// namespace and name, queries by host or address. Either resolver may be nil (the feature
// off). The inventory is validated as NewIndex does.
func Diff(old, new *Resolver, inv Inventory) (Audit, error) {
	before, err := NewIndex(old, inv)
	if err != nil {
		return Audit{}, err
	}
	after, err := NewIndex(new, inv)
	if err != nil {
		return Audit{}, err
	}
	a := Audit{Entries: []EntryChange{}, Hosts: []AnswerChange{}, Addresses: []AnswerChange{}}
	hosts := map[string]bool{}
	prefixes := map[netip.Prefix]bool{}
	for i := range before.entries {
		b, n := &before.entries[i], &after.entries[i]
		if b.decision.Visibility == n.decision.Visibility {
			continue
		}
		svc := &before.services[i]
		ch := EntryChange{Key: svc.Ref(), Before: b.decision, After: n.decision}
		was, is := reach(b.decision.Visibility), reach(n.decision.Visibility)
		for k, label := range []string{svc.Namespace, AllOtherNamespaces} {
			switch {
			case is[k] && !was[k]:
				ch.Gained = append(ch.Gained, label)
			case was[k] && !is[k]:
				ch.Lost = append(ch.Lost, label)
			}
		}
		a.Entries = append(a.Entries, ch)
		for _, h := range svc.Hosts {
			hosts[normalizeHost(h)] = true
		}
		for _, p := range svc.allAddresses() {
			prefixes[canonical(p)] = true
		}
	}
	slices.SortFunc(a.Entries, func(x, y EntryChange) int {
		return cmp.Or(strings.Compare(x.Key.Namespace, y.Key.Namespace), strings.Compare(x.Key.Name, y.Key.Name))
	})
	nss := before.namespaces
	for _, h := range slices.Sorted(maps.Keys(hosts)) {
		a.Hosts = append(a.Hosts, changes(h, before.answers(before.hostLevels(h)), after.answers(after.hostLevels(h)), nss)...)
	}
	pfxs := slices.SortedFunc(maps.Keys(prefixes), comparePrefixes)

	for _, p := range pfxs {
		q := p.String()
		if p.Bits() == p.Addr().BitLen() {
			q = p.Addr().String()
		}
		a.Addresses = append(a.Addresses, changes(q, before.answers(before.addrLevels(p)), after.answers(after.addrLevels(p)), nss)...)
	}
	return a, nil
}

// starLast orders namespaces by name with "*" (every other namespace) last.
func starLast(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == AllOtherNamespaces:
		return 1
	case b == AllOtherNamespaces:
		return -1
	}
	return strings.Compare(a, b)
}

// reach says whether a visibility reaches the own namespace ([0]) and the others ([1]).
func reach(v Visibility) [2]bool {
	switch v.Effective() {
	case Public:
		return [2]bool{true, true}
	case Namespace:
		return [2]bool{true, false}
	}
	return [2]bool{false, false}
}

// changes compares the grouped answers of one query before and after, per client: the
// namespaces the answers list by name, then the inventory's other namespaces (which get the
// "*" answers), then "*" for namespaces outside the inventory. Its cost is linear in the
// clients listed and in what it writes: the inventory's other namespaces are visited only
// when their answer changes, and then each is written.
func changes(query string, before, after []Answer, inventory []string) []AnswerChange {
	b, n := answerIndex(before), answerIndex(after)
	clients := make([]string, 0, len(b)+len(n))
	for c := range b {
		clients = append(clients, c)
	}
	for c := range n {
		if _, ok := b[c]; !ok {
			clients = append(clients, c)
		}
	}
	answerOf := func(m map[string]*ServiceRef, client string) *ServiceRef {
		if a, ok := m[client]; ok {
			return a
		}
		return m[AllOtherNamespaces]
	}
	if !equalRef(answerOf(b, AllOtherNamespaces), answerOf(n, AllOtherNamespaces)) {
		for _, ns := range inventory { // the "*" answer changes: for every namespace not listed
			_, inB := b[ns]
			_, inN := n[ns]
			if !inB && !inN {
				clients = append(clients, ns)
			}
		}
	}
	slices.SortFunc(clients, starLast)
	type pair struct{ before, after refKey }
	group := map[pair]int{}
	var out []AnswerChange
	for _, c := range clients {
		x, y := answerOf(b, c), answerOf(n, c)
		if equalRef(x, y) {
			continue
		}
		k := pair{keyOf(x), keyOf(y)}
		if j, ok := group[k]; ok {
			out[j].Key.Clients = append(out[j].Key.Clients, c)
			continue
		}
		group[k] = len(out)
		out = append(out, AnswerChange{Key: Question{Query: query, Clients: []string{c}}, Before: x, After: y})
	}
	return out
}

// answerIndex maps each client of grouped answers to its service.
func answerIndex(as []Answer) map[string]*ServiceRef {
	m := map[string]*ServiceRef{}
	for _, a := range as {
		for _, c := range a.Clients {
			m[c] = a.Service
		}
	}
	return m
}

// refKey is a comparable form of a *ServiceRef, nil included.
type refKey struct {
	set bool
	ref ServiceRef
}

func keyOf(r *ServiceRef) refKey {
	if r == nil {
		return refKey{}
	}
	return refKey{true, *r}
}
