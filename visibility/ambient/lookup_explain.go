package ambient

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Verdict is what became of a candidate in a lookup; Candidate is one service that claims a
// looked-up host or address, with its visibility decision, its verdict, and the reason in
// words; Step is one level of a lookup — an exact host, a wildcard (*.b.c), an address or a
// CIDR (its Key) — with the services claiming it in rank order. They are the one shape
// every explanation of meshscope's views is in (visibility/inventory's).
type (
	Verdict   = inventory.Verdict
	Candidate = inventory.Candidate
	Step      = inventory.Step
)

// The verdicts of a lookup explanation: Chosen, the candidate answers the lookup; Hidden,
// it is not visible to the client (NONE, or NAMESPACE of another namespace), for which it
// does not exist; Outranked, it is visible but another comes first; NotReached, an earlier
// level answered; NoAddress, it has no address for the host, so ztunnel's DNS proxy does
// not answer for it; Undetermined, it may answer: the release leaves the choice among the
// candidates so marked to the order ztunnel received them in (see Explanation).
const (
	Chosen       = inventory.Chosen
	Hidden       = inventory.Hidden
	Outranked    = inventory.Outranked
	NotReached   = inventory.NotReached
	NoAddress    = inventory.NoAddress
	Undetermined = inventory.Undetermined
)

// Explanation is how a lookup reached its answer: every name tried — for a host the query,
// then its short-name aliases, up to the one that answered; for an address the address alone
// — with every level of it and every candidate at each, and why it was chosen, hidden,
// outranked, not reached, or has no address.
type Explanation struct {
	Client string `json:"client"`
	Query  string `json:"query"`
	// Answer is the service that answers; nil when the query is forwarded upstream (a host)
	// or passed through (an address).
	Answer *inventory.ServiceRef `json:"answer,omitempty"`
	// CNAME is the name the answer was reached through when a search domain was stripped
	// from the query: the answer is a CNAME to it.
	CNAME string `json:"cname,omitempty"`
	// Undetermined, when the release leaves the answer to the order ztunnel received the
	// candidates in, are the services one of which answers (Answer is nil).
	Undetermined []inventory.ServiceRef `json:"undetermined,omitempty"`
	// Names are the names tried, in order; none for a query that cannot be a host.
	Names []NameTried `json:"names,omitempty"`
}

// NameTried is one name a lookup tried: the query as given or one of its aliases, with the
// levels it tried (each a Step) and their candidates.
type NameTried struct {
	Name string `json:"name"`
	// Via says how the name came from the query: "the query as given", "short name …",
	// "search domain … stripped", …
	Via      string `json:"via"`
	Answered bool   `json:"answered"`
	Levels   []Step `json:"levels"`
}

// String renders the explanation a candidate a line.
func (e Explanation) String() string {
	var b strings.Builder
	client := e.Client
	if client == "" {
		client = `""`
	}
	fmt.Fprintf(&b, "%s from namespace %s: ", e.Query, client)
	switch {
	case len(e.Undetermined) > 0:
		refs := make([]string, len(e.Undetermined))
		for i, r := range e.Undetermined {
			refs[i] = r.String()
		}
		fmt.Fprintf(&b, "answered by one of %s: which one, the inventory does not determine", strings.Join(refs, ", "))
	case e.Answer != nil && e.CNAME != "":
		fmt.Fprintf(&b, "answered by %s, as a CNAME to %s", e.Answer, e.CNAME)
	case e.Answer != nil:
		fmt.Fprintf(&b, "answered by %s", e.Answer)
	case isAddress(e.Query):
		b.WriteString("no visible service; the traffic passes through to its original destination")
	default:
		b.WriteString("no visible service with an address; ztunnel forwards the query to the upstream resolver")
	}
	if len(e.Names) == 1 {
		writeLevels(&b, e.Names[0].Levels, "  ", true)
		return b.String()
	}
	for _, n := range e.Names {
		fmt.Fprintf(&b, "\n  %s (%s)", n.Name, n.Via)
		if !n.Answered && len(n.Levels) == 0 {
			b.WriteString(": no service claims it")
		}
		writeLevels(&b, n.Levels, "    ", true)
	}
	return b.String()
}

// writeLevels writes each level and its candidates, a line each, with each candidate's
// visibility decision when decisions is set.
func writeLevels(b *strings.Builder, levels []Step, indent string, decisions bool) {
	for _, l := range levels {
		fmt.Fprintf(b, "\n%s%s:", indent, l.Key)
		for _, c := range l.Candidates {
			if decisions {
				fmt.Fprintf(b, "\n%s  %s %s: %s: %s", indent, c.Service, c.Decision, c.Verdict, c.Reason)
			} else {
				fmt.Fprintf(b, "\n%s  %s: %s: %s", indent, c.Service, c.Verdict, c.Reason)
			}
		}
	}
}

func isAddress(q string) bool {
	_, err := netip.ParseAddr(q)
	return err == nil
}

// level is a candidate set to try, in order: the entries that answer for its key (set, or
// -1 when none does), and those that claim it without an address (mute).
type level struct {
	key     string
	set     int32
	mute    []int32
	cidr    bool
	addr    bool // an exact address
	partial bool // a partial wildcard: shown, but ztunnel's DNS proxy never answers through it
}

// hostLevels returns the levels a lookup of the normalized name h tries that hold
// candidates, with or without an address: the exact host (unless h is itself a wildcard,
// which no exact host equals), then every wildcard matching h, the longest first.
func (ix *Index) hostLevels(h string) []level {
	if ix == nil || ix.t == nil || h == "" {
		return nil
	}
	t := ix.t
	var out []level
	add := func(key string, set int32, ok, partial bool) {
		if m := t.mute[key]; ok || len(m) > 0 {
			if !ok {
				set = -1
			}
			out = append(out, level{key: key, set: set, mute: m, partial: partial})
		}
	}
	if _, wild := cutWildcard(h); !wild {
		c, ok := t.host(h)
		add(h, c, ok, false)
	}
	for _, w := range t.allLens {
		i := wildAt(w, h)
		if i < 0 {
			continue
		}
		c, ok := t.wild[h[i:]]
		self := i == 1 && h[0] == '*' // the query is this wildcard host's name: an exact match
		add("*"+h[i:], c, ok, h[i] != '.' && !self)
	}
	return out
}

// addrLevels returns the levels a lookup of the addresses in p tries: the exact address when
// p is one, then every CIDR containing p, longest first.
func (ix *Index) addrLevels(p netip.Prefix) []level {
	if ix == nil || ix.t == nil {
		return nil
	}
	var out []level
	t := ix.t
	a := p.Addr()
	if p.Bits() == a.BitLen() {
		if c, ok := t.addr(a); ok {
			out = append(out, level{key: a.String(), set: c, addr: true})
		}
	}
	lengths := t.lengths6
	if a.Is4() {
		lengths = t.lengths4
	}
	for _, l := range lengths {
		if l > p.Bits() {
			continue
		}
		q, _ := a.Prefix(l)
		if c, ok := t.prefixes[q]; ok {
			out = append(out, level{key: q.String(), set: c, cidr: true})
		}
	}
	return out
}

// answer applies the lookup rules to levels: a non-CIDR level answers with its pick; the
// CIDR levels (which come last) answer with the client's own entry at the longest prefix,
// else the canonical entry at the longest prefix. It returns the entry and its level, or -1;
// undetermined and its level when the release leaves that level's answer to ztunnel's
// arrival order.
func (ix *Index) answer(levels []level, client string) (int32, int) {
	first := len(levels)
	for i, l := range levels {
		if l.cidr {
			first = i
			break
		}
		if l.set < 0 || l.partial {
			continue
		}
		if e := ix.pick(l.set, client); e != -1 {
			return e, i
		}
	}
	for i := first; i < len(levels); i++ {
		if e := ix.ownEntry(levels[i].set, client); e >= 0 {
			return e, i
		}
	}
	for i := first; i < len(levels); i++ {
		if e := ix.canonical(levels[i].set); e >= 0 {
			return e, i
		}
	}
	return -1, -1
}

// ExplainHost explains LookupHost(client, host): each name tried — the query, then its
// short-name aliases (see LookupHost) up to the one that answered — with its levels and
// candidates, including those with no address (verdict NoAddress, with the reason).
func (ix *Index) ExplainHost(client, host string) Explanation {
	e := Explanation{Client: client, Query: host}
	var buf nameBuf
	h := normalizeInto(host, &buf)
	if len(h) == 0 || ix == nil || ix.t == nil {
		return e
	}
	try := func(name []byte, via string) bool {
		n := string(name)
		answer, levels, among := ix.explain(client, ix.hostLevels(n))
		e.Names = append(e.Names, NameTried{Name: n, Via: via, Answered: answer != nil || among != nil, Levels: levels})
		e.Answer, e.Undetermined = answer, among
		return answer == nil && among == nil
	}
	if !try(h, "the query as given") {
		return e
	}
	var l aliasList
	ix.aliases(client, h, &l)
	for k := range l.n {
		it := l.items[k]
		if !try(l.name(k), ix.aliasVia(client, it.kind, it.sd, h)) {
			if it.kind != aliasExpanded {
				e.CNAME = string(l.name(k))
			}
			break
		}
	}
	return e
}

// aliasVia says how an alias came from the query, for an explanation.
func (ix *Index) aliasVia(client string, kind aliasKind, sd int, query []byte) string {
	switch kind {
	case aliasExpanded:
		return "short name " + string(query) + " expanded"
	case aliasStripped:
		return "search domain " + ix.searchDomain(client, sd) + " stripped"
	}
	return "search domain " + ix.searchDomain(client, sd) + " stripped, then expanded"
}

// ExplainAddress explains LookupAddress(client, addr): its one name is the address as
// ztunnel looks it up (without a zone; IPv4 mapped into IPv6 unmapped), tried at the exact
// level and then at every CIDR containing it.
func (ix *Index) ExplainAddress(client string, addr netip.Addr) Explanation {
	e := Explanation{Client: client, Query: addr.String()}
	if !addr.IsValid() {
		return e
	}
	a := addr.WithZone("").Unmap()
	e.Query = a.String()
	answer, levels, among := ix.explain(client, ix.addrLevels(netip.PrefixFrom(a, a.BitLen())))
	e.Answer, e.Undetermined = answer, among
	e.Names = []NameTried{{Name: e.Query, Via: "the address as given", Answered: answer != nil || among != nil, Levels: levels}}
	return e
}

// explain applies the lookup rules to levels and says, for every candidate at each, why it
// was chosen, hidden, outranked, not reached, undetermined, or has no address. It returns
// the answer, nil for none, and, when the release leaves it undetermined, the candidates
// one of which answers.
func (ix *Index) explain(client string, levels []level) (*inventory.ServiceRef, []Step, []inventory.ServiceRef) {
	out := []Step{}
	ans, at := ix.answer(levels, client)
	var answer *inventory.ServiceRef
	var among []inventory.ServiceRef
	switch {
	case ans >= 0:
		ref := ix.services[ans].Ref()
		answer = &ref
	case ans == undetermined:
		among = ix.undeterminedAmong(levels[at])
	}
	for li, l := range levels {
		lv := Step{Key: l.key}
		var all []int32
		if l.set >= 0 {
			all = ix.t.all(l.set)
		}
		for _, i := range all {
			c := Candidate{Service: ix.services[i].Ref(), Decision: ix.decisions[i]}
			switch {
			case l.partial:
				c.Verdict, c.Reason = NotReached, partialWildcardNote
			case !ix.visible(i, client):
				c.Verdict, c.Reason = Hidden, ix.hiddenReason(i, client)
			case ans != -1 && li > at && !(l.cidr && levels[at].cidr):
				c.Verdict, c.Reason = NotReached, fmt.Sprintf("%s answered first", levels[at].key)
			case ans == undetermined && li == at:
				c.Verdict, c.Reason = Undetermined, ix.undeterminedReason(l)
			case i == ans && li == at:
				c.Verdict, c.Reason = Chosen, ix.chosenReason(i, client)
			default:
				c.Verdict, c.Reason = Outranked, ix.outrankReason(i, ans, client, l, levels[at])
			}
			lv.Candidates = append(lv.Candidates, c)
		}
		for _, i := range l.mute {
			lv.Candidates = append(lv.Candidates, Candidate{Service: ix.services[i].Ref(), Decision: ix.decisions[i],
				Verdict: NoAddress, Reason: ix.noAddressReason(i, l.key)})
		}
		out = append(out, lv)
	}
	return answer, out, among
}

// partialWildcardNote is why an entry of a partial wildcard level does not answer.
const partialWildcardNote = "a partial wildcard: Istio's host matching (sidecars, waypoints) matches it, but ztunnel's DNS proxy never answers through one: " +
	"it tries only the query and the *. wildcards at its label boundaries, and forwards the query upstream when none of them answers"

// noAddressReason says why entry i has no address for host (normalized), asking the service
// about its host as spec.hosts writes it.
func (ix *Index) noAddressReason(i int32, host string) string {
	s := &ix.services[i]
	spec := host
	for _, h := range s.Hosts {
		if hosts.Normalize(h) == host {
			spec = h
			break
		}
	}
	return "ztunnel forwards the query (" + cmp.Or(s.NoAddressReason(spec), "no address") + ")"
}

// visible reports whether entry i exists for client.
func (ix *Index) visible(i int32, client string) bool {
	if !ix.delivered(i) {
		return false
	}
	switch ix.decisions[i].Visibility {
	case visibility.None:
		return false
	case visibility.Namespace:
		return client != "" && client == ix.services[i].Namespace
	}
	return true
}

func (ix *Index) hiddenReason(i int32, client string) string {
	if !ix.delivered(i) {
		return ix.absentReason(i)
	}
	d := ix.decisions[i]
	if d.Visibility == visibility.None {
		return fmt.Sprintf("visibility NONE (%s): delivered to no data plane", decidedBy(d))
	}
	if client == "" {
		return fmt.Sprintf("visibility NAMESPACE (%s): a client without a namespace sees PUBLIC services only", decidedBy(d))
	}
	return fmt.Sprintf("visibility NAMESPACE (%s): only namespace %s sees it", decidedBy(d), ix.services[i].Namespace)
}

func decidedBy(d visibility.Decision) string {
	if d.Policy < 0 {
		return "the default"
	}
	return fmt.Sprintf("policies[%d]", d.Policy)
}

func (ix *Index) chosenReason(i int32, client string) string {
	s := &ix.services[i]
	switch {
	case client != "" && s.Namespace == client:
		return "the client's own namespace's entry comes first"
	case s.Kind == inventory.KubernetesService:
		return "the canonical service: a Kubernetes Service"
	}
	return "the canonical service: the highest-ranked PUBLIC entry"
}

func (ix *Index) outrankReason(i, ans int32, client string, l, at level) string {
	if ans < 0 {
		return "no visible service answers" // not reached in practice: a visible entry answers
	}
	e, w := &ix.services[i], &ix.services[ans]
	ownW := client != "" && w.Namespace == client
	ownE := client != "" && e.Namespace == client
	switch {
	case ownW && !ownE:
		return fmt.Sprintf("%s of the client's own namespace comes first", w.Ref())
	case l.key != at.key:
		return fmt.Sprintf("%s matched a longer prefix (%s)", w.Ref(), at.key)
	case w.Kind != e.Kind:
		return fmt.Sprintf("%s comes first: a Kubernetes Service before a ServiceEntry", w.Ref())
	case !w.CreationTime.Equal(e.CreationTime):
		return fmt.Sprintf("%s is older (created %s) and comes first", w.Ref(), w.CreationTime.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return fmt.Sprintf("%s comes first: same age, so namespace then name decide", w.Ref())
}
