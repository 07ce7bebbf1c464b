package ambient

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Answer is the service a group of client namespaces gets for a query.
type Answer struct {
	// Clients are namespaces; "*" stands for every namespace not listed, including
	// namespaces the inventory does not have (and a client without a namespace).
	Clients []string `json:"clients"`
	// Service answers; nil when the query is forwarded upstream or passed through. As in
	// Diff (see AnswerChange), a host's answer is the name's own: the short-name aliases
	// LookupHost tries when the name itself has no answer are not followed.
	Service *inventory.ServiceRef `json:"service,omitempty"`
	// Undetermined, when the release leaves the answer to the order ztunnel received the
	// candidates in, are the services one of which answers (Service is nil).
	Undetermined []inventory.ServiceRef `json:"undetermined,omitempty"`
}

// Conflict is a host, wildcard host, address or CIDR claimed by services of several
// namespaces, with the answer each client namespace gets.
type Conflict struct {
	Key      string                 `json:"key"`
	Services []inventory.ServiceRef `json:"services"`
	Answers  []Answer               `json:"answers"`
}

// Conflicts returns every host, wildcard host, address and CIDR claimed by services of more
// than one namespace — either itself, or along its lookup path (the *. wildcards and
// containing CIDRs a lookup falls through to; a partial wildcard, through which no DNS lookup
// answers, is on no path but its own) with client namespaces getting different answers: hosts,
// then wildcard hosts, addresses and CIDRs, each sorted.
// Services are listed in lookup order (level by level, in rank order). Answers say which
// client namespaces get which service: the namespaces that own a service on the path by
// name, and "*" for all others.
func (ix *Index) Conflicts() []Conflict {
	if ix == nil || ix.t == nil {
		return nil
	}
	var out []Conflict
	t := ix.t
	add := func(key string, levels []level) {
		// A partial wildcard's level is shown in explanations, but no DNS lookup answers
		// through it: it is on no query's lookup path but its own.
		levels = slices.DeleteFunc(levels, func(l level) bool { return l.partial })
		if len(levels) == 0 || !ix.multiNamespace(levels) {
			return
		}
		answers := ix.answers(levels)
		if len(answers) == 1 && !ix.multiNamespace(levels[:1]) {
			return // shared along the path, but everyone gets the same answer
		}
		conf := Conflict{Key: key, Answers: answers}
		for _, l := range levels {
			for _, i := range ix.members(l) {
				conf.Services = append(conf.Services, ix.services[i].Ref())
			}
		}
		out = append(out, conf)
	}
	for _, h := range slices.Sorted(t.hosts.all) {
		add(h, ix.hostLevels(h))
	}
	for _, s := range slices.Sorted(maps.Keys(t.wild)) {
		add("*"+s, ix.hostLevels("*"+s))
	}
	for _, a := range slices.SortedFunc(t.addrs.all, netip.Addr.Compare) {
		add(a.String(), ix.addrLevels(netip.PrefixFrom(a, a.BitLen())))
	}
	pfxs := slices.SortedFunc(maps.Keys(t.prefixes), hosts.ComparePrefixes)
	for _, p := range pfxs {
		add(p.String(), ix.addrLevels(p))
	}
	return out
}

// members returns the entries of a level that answer for its key.
func (ix *Index) members(l level) []int32 {
	if l.set < 0 {
		return nil
	}
	return ix.t.all(l.set)
}

func (ix *Index) multiNamespace(levels []level) bool {
	first := ""
	for _, l := range levels {
		for _, i := range ix.members(l) {
			switch ns := ix.services[i].Namespace; {
			case first == "":
				first = ns
			case ns != first:
				return true
			}
		}
	}
	return false
}

// answers groups the clients of a lookup path by the service they get, in the order of each
// group's first client; linear in the namespaces on the path.
func (ix *Index) answers(levels []level) []Answer {
	var nss []string
	for _, l := range levels {
		for _, i := range ix.members(l) {
			nss = append(nss, ix.services[i].Namespace)
		}
	}
	slices.Sort(nss)
	nss = append(slices.Compact(nss), "*")
	var out []Answer
	group := map[int32]int{} // answering entry (-1: none) -> its answer in out
	for _, ns := range nss {
		client := ns
		if ns == AllOtherNamespaces {
			client = "" // owns nothing on the path: sees what every other namespace sees
		}
		e, at := ix.answer(levels, client)
		if j, ok := group[e]; ok {
			out[j].Clients = append(out[j].Clients, ns)
			continue
		}
		a := Answer{Clients: []string{ns}}
		switch {
		case e >= 0:
			r := ix.services[e].Ref()
			a.Service = &r
		case e == undetermined:
			a.Undetermined = ix.undeterminedAmong(levels[at])
		}
		group[e] = len(out)
		out = append(out, a)
	}
	return out
}
