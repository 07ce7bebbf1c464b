package ambient

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// AllOtherNamespaces stands, in an audit, for every namespace other than the entry's own,
// including namespaces that do not exist yet.
const AllOtherNamespaces = "*"

// EntryChange is a ServiceEntry (Key) whose visibility changes from Before to After. Gained
// and Lost list the client namespaces that start or stop seeing the entry: its own namespace
// by name, and AllOtherNamespaces ("*") for every other one. It is the one shape every dry
// run of meshscope reports in (report.Change): Key names what changes, Before and After are
// its value on each side, Gained and Lost what it gains and loses.
type EntryChange = report.Change[inventory.ServiceRef, visibility.Decision, string]

// AnswerChange is a query whose answer changes for some clients (Key): they get Before under
// the configuration before the change and After under the one after; nil means forwarded
// upstream (a host) or passed through (an address). Gained and Lost are always empty.
//
// A host's answer is that of the name itself — its exact level, then its wildcards, as the
// first name of Index.ExplainHost. When none of them answers, LookupHost goes on to the
// name's short-name aliases (those of a name of one or two labels, of one ending in .svc,
// or in the cluster domain: db.cluster.local is also tried as db.<client>.svc.cluster.local),
// which the audit does not follow: for such a name, nil means that the name itself has no
// answer, and a client may still get one through an alias.
type AnswerChange = report.Change[Question, *inventory.ServiceRef, struct{}]

// Question is a query — a host or an address — and the client namespaces asking it whose
// answer changes alike.
type Question struct {
	Query string `json:"query"`
	// Clients are namespaces by name, or AllOtherNamespaces ("*") alone: every namespace
	// not named by another change of this query nor in Except — namespaces the inventory
	// does not have and a client without a namespace included.
	Clients []string `json:"clients"`
	// Except, beside "*", names the namespaces with a service on the query's lookup path
	// whose answer does not change.
	Except []string `json:"except,omitempty"`
}

// Audit is the dry run of a visibility change over one inventory: nothing is enforced.
type Audit struct {
	Entries   []EntryChange  `json:"entries"`
	Hosts     []AnswerChange `json:"hosts"`
	Addresses []AnswerChange `json:"addresses"`
}

// Diff compares two mesh configurations over the same inventory — their
// serviceEntryVisibility, the one field of the mesh configuration ztunnel's view reads:
// every ServiceEntry whose visibility changes, with the namespaces that gain or lose it, and
// every host and address whose answer changes for some client namespace — those of the
// changed entries, and those of the inventory a lookup of which falls through to them: a
// host under a changed *. wildcard host, an address or CIDR inside a changed CIDR. Entries
// are sorted by namespace and name, queries by host or address; the changes of one query
// list the namespaces they name in order, the "*" change (every other namespace) last.
// Either configuration may be nil (Istio's defaults: the feature off); their releases may
// differ only where ztunnel's view does not (1.30 and 1.31: the upgrade that makes
// serviceEntryVisibility apply), else Diff refuses them. Both are validated,
// each problem placed under "before" or "after", and the inventory is validated once, as New
// does; every problem is reported.
//
// Diff costs what New costs, twice (a pass over the index's keys finds the queries that fall
// through to a changed wildcard or CIDR), plus what it writes: a query's changes are found
// from the few namespaces whose answer can change — those with a service on the query's
// lookup path when what everyone else gets changes (each is then written, by name or in
// Except), else only those whose services go to or from NONE — never by asking every
// namespace of the inventory.
func Diff(before, after *mesh.Config, inv *inventory.Inventory) (Audit, error) {
	var problems fielderr.Collector
	rb, err := compile("before", before)
	problems.Put(err)
	ra, err := compile("after", after)
	problems.Put(err)
	problems.Put(validate(inv))
	problems.Put(sameZtunnel(before, after))
	if err := problems.Err(); err != nil {
		return Audit{}, err
	}
	d := &differ{before: build(rb, before, inv), after: build(ra, after, inv)} // their candidate sets numbered alike
	return d.audit(), nil
}

// audit is Diff's work on the two indexes.
func (d *differ) audit() Audit {
	a := Audit{Entries: []EntryChange{}, Hosts: []AnswerChange{}, Addresses: []AnswerChange{}}
	hostSet := map[string]bool{}
	prefixes := map[netip.Prefix]bool{}
	for i := range d.before.decisions {
		b, n := d.before.decisions[i], d.after.decisions[i]
		if b.Visibility == n.Visibility {
			continue
		}
		svc := &d.before.services[i]
		a.Entries = append(a.Entries, entryChange(svc.Ref(), b, n))
		for _, h := range svc.Hosts {
			hostSet[hosts.Normalize(h)] = true
		}
		for _, p := range svc.AllAddresses() {
			prefixes[hosts.Canonical(p)] = true
		}
		if (b.Visibility == visibility.None) != (n.Visibility == visibility.None) {
			d.ownChanged(int32(i))
		}
	}
	d.before.fallingThrough(hostSet, prefixes)
	slices.SortFunc(a.Entries, func(x, y EntryChange) int {
		return cmp.Or(strings.Compare(x.Key.Namespace, y.Key.Namespace), strings.Compare(x.Key.Name, y.Key.Name))
	})
	for _, h := range slices.Sorted(maps.Keys(hostSet)) {
		a.Hosts = d.changes(a.Hosts, h, d.before.hostLevels(h))
	}
	for _, p := range slices.SortedFunc(maps.Keys(prefixes), hosts.ComparePrefixes) {
		q := p.String()
		if p.IsSingleIP() {
			q = p.Addr().String()
		}
		a.Addresses = d.changes(a.Addresses, q, d.before.addrLevels(p))
	}
	return a
}

// fallingThrough adds to hosts and prefixes, the queries of the changed entries, the
// queries of the index whose lookup path reaches one of them: every host the index holds
// (with an address or not) that a changed *. wildcard host covers, and every address and
// CIDR it holds inside a changed CIDR. A client that sees nothing at such a query's own
// level falls through to the changed wildcard or CIDR, and its answer changes with it:
// shop's NAMESPACE entry for api.example.com leaves every other namespace to the
// *.example.com entry. It costs a pass over the index's keys.
func (ix *Index) fallingThrough(hosts map[string]bool, prefixes map[netip.Prefix]bool) {
	suffixes := map[string]bool{} // ".b.c" of each changed *.b.c
	for h := range hosts {
		if s, wild := cutWildcard(h); wild && s[0] == '.' {
			suffixes[s] = true
		}
	}
	if len(suffixes) > 0 {
		visit := func(h string) {
			for i := 1; i < len(h); i++ {
				if h[i] == '.' && suffixes[h[i:]] {
					hosts[h] = true
					return
				}
			}
		}
		for h := range ix.t.hosts.all {
			visit(h)
		}
		for s := range ix.t.wild {
			visit("*" + s)
		}
		for h := range ix.t.mute {
			visit(h)
		}
	}
	var lengths4, lengths6 []int // of the changed CIDRs
	for p := range prefixes {
		switch {
		case p.IsSingleIP():
		case p.Addr().Is4():
			lengths4 = append(lengths4, p.Bits())
		default:
			lengths6 = append(lengths6, p.Bits())
		}
	}
	if len(lengths4)+len(lengths6) == 0 {
		return
	}
	slices.Sort(lengths4)
	slices.Sort(lengths6)
	lengths4, lengths6 = slices.Compact(lengths4), slices.Compact(lengths6)
	var inside []netip.Prefix
	visit := func(p netip.Prefix) {
		lengths := lengths6
		if p.Addr().Is4() {
			lengths = lengths4
		}
		for _, l := range lengths {
			if l >= p.Bits() {
				return
			}
			if q, _ := p.Addr().Prefix(l); prefixes[q] {
				inside = append(inside, p)
				return
			}
		}
	}
	for a := range ix.t.addrs.all {
		visit(netip.PrefixFrom(a, a.BitLen()))
	}
	for p := range ix.t.prefixes {
		visit(p)
	}
	for _, p := range inside {
		prefixes[p] = true
	}
}

// entryChange is the change of the entry ref from decision b to n, with the client
// namespaces that gain and lose it.
func entryChange(ref inventory.ServiceRef, b, n visibility.Decision) EntryChange {
	ch := EntryChange{Key: ref, Before: b, After: n}
	was, is := reach(b.Visibility), reach(n.Visibility)
	for k, label := range []string{ref.Namespace, AllOtherNamespaces} {
		switch {
		case is[k] && !was[k]:
			ch.Gained = append(ch.Gained, label)
		case was[k] && !is[k]:
			ch.Lost = append(ch.Lost, label)
		}
	}
	return ch
}

// reach says whether a visibility reaches the own namespace ([0]) and the others ([1]).
func reach(v visibility.Visibility) [2]bool {
	switch v {
	case visibility.Public, "", visibility.Unspecified:
		return [2]bool{true, true}
	case visibility.Namespace:
		return [2]bool{true, false}
	}
	return [2]bool{false, false}
}

// sameZtunnel refuses two configurations whose releases give ztunnel its view differently
// (see the package documentation, "Releases"), with ErrZtunnelReleases: Diff audits a
// visibility change, and two such releases would change answers for other reasons.
func sameZtunnel(before, after *mesh.Config) error {
	rb, ra := before.Release(), after.Release()
	for _, c := range mesh.Differences(rb, ra) {
		if c == mesh.ZtunnelCanonicalHost || c == mesh.ZtunnelRankedAddress || c == mesh.ZtunnelCIDRs {
			return &FieldError{Field: "after", Value: ra.Version(), Detail: fmt.Sprintf("%s gives ztunnel its view otherwise than %s does (%s): Diff audits a change of serviceEntryVisibility under releases whose ztunnel answers alike", ra, rb, c),
				Err: ErrZtunnelReleases}
		}
	}
	return nil
}
