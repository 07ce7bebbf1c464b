package chain

import (
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

// router is a normalised copy of a router entry, with its links.
type router struct {
	ServiceRouter
	links
}

// splitter is a normalised copy of a splitter entry, with its links, and whether its weights
// as written sum to 100 only once rounded (SplitWeightsRounded).
type splitter struct {
	ServiceSplitter
	links
	roundedTo100 bool
}

// links is what NewCompiler works out once of a router or splitter: the services Consul's
// server reads next when it reads the entry (Related), and whether one of them is in another
// partition than the entry's, that is, whether a route or split leaves the entry's partition
// (CheckPeerExport's concern).
type links struct {
	related        []exports.ServiceName
	crossPartition bool
}

// linksOf returns the links of the entry of service own (canonical) relating related.
func linksOf(related []exports.ServiceName, own exports.ServiceName) links {
	return links{related: related, crossPartition: slices.ContainsFunc(related, func(s exports.ServiceName) bool { return s.Partition != own.Partition })}
}

// chainEntry is what NewCompiler asks of a resolver, router or splitter entry.
type chainEntry interface {
	ServiceName() exports.ServiceName
	Validate() error
}

// eachValid is NewCompiler's one validation loop, for resolvers, routers and splitters alike:
// it validates each entry of list and calls keep with each valid one that is the first of its
// service (canonical k). An invalid entry is a problem in c, each of its problems after
// "field[i] (service)"; a second entry of one service is one too, "duplicate of field[j]; one
// kind per service".
func eachValid[E any, P interface {
	*E
	chainEntry
}](list []E, field, kind string, c *fielderr.Collector, keep func(i int, e P, k exports.ServiceName)) {
	at := make(map[exports.ServiceName]int, len(list))
	for i := range list {
		e := P(&list[i])
		k := e.ServiceName()
		where := func() string { return fmt.Sprintf("%s[%d] (%s)", field, i, k) }
		if err := e.Validate(); err != nil {
			c.Put(fielderr.In(where(), err))
			continue
		}
		if prev, dup := at[k]; dup {
			c.Put(&FieldError{Where: where(), Value: k.String(), Detail: fmt.Sprintf("duplicate of %s[%d]; one %s per service", field, prev, kind), Err: errDuplicate})
			continue
		}
		at[k] = i
		keep(i, e, k)
	}
}

// indexRouting indexes normalised copies of the valid routers and splitters of e, reporting
// the others in c (see eachValid).
func (cc *Compiler) indexRouting(e Entries, c *fielderr.Collector) {
	cc.routers = make(map[exports.ServiceName]*router, len(e.Routers))
	cc.splitters = make(map[exports.ServiceName]*splitter, len(e.Splitters))
	rs := make([]router, len(e.Routers))
	eachValid(e.Routers, "Routers", "router", c, func(i int, r *ServiceRouter, k exports.ServiceName) {
		rs[i] = router{ServiceRouter: r.clone()}
		rs[i].normalize()
		rs[i].links = linksOf(rs[i].Related(), k)
		cc.routers[k] = &rs[i]
	})
	ss := make([]splitter, len(e.Splitters))
	eachValid(e.Splitters, "Splitters", "splitter", c, func(i int, s *ServiceSplitter, k exports.ServiceName) {
		ss[i] = splitter{ServiceSplitter: s.clone(), roundedTo100: roundedTo100(s.Splits)}
		ss[i].normalize()
		ss[i].links = linksOf(ss[i].Related(), k)
		cc.splitters[k] = &ss[i]
	})
}

// routingReads returns the services whose splitter Consul's server reads for the chain of
// start (canonical), in the order it first reaches them: with a router, the router's own
// service and each route destination's; without, start; then, from each splitter read, the
// services its splits name. Each of them also has its resolver read. unsafe is the first
// route or split among those read that leaves its entry's partition ("" when none does).
func (cc *Compiler) routingReads(start exports.ServiceName) (read []exports.ServiceName, unsafe string) {
	seen := map[exports.ServiceName]bool{}
	add := func(s exports.ServiceName) {
		if !seen[s] {
			seen[s] = true
			read = append(read, s)
		}
	}
	if r := cc.routers[start]; r != nil {
		for _, s := range r.related {
			add(s)
		}
		if r.crossPartition {
			unsafe = "cross-partition route destination"
		}
	} else {
		add(start)
	}
	for i := 0; i < len(read); i++ {
		if s := cc.splitters[read[i]]; s != nil {
			for _, t := range s.related {
				add(t)
			}
			if s.crossPartition && unsafe == "" {
				unsafe = "cross-partition split destination"
			}
		}
	}
	return read, unsafe
}
