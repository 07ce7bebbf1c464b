package chain

import (
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

// router is a normalised copy of a router entry, with what NewCompiler works out once: the
// services Consul's server reads next when it reads the router (Related), and whether one of
// them is in another partition than the router's, that is, whether a route leaves the
// router's partition (CheckPeerExport's concern).
type router struct {
	ServiceRouter
	related        []exports.ServiceName
	crossPartition bool
}

// splitter is a normalised copy of a splitter entry, likewise (a split leaves the splitter's
// partition), and whether its weights as written sum to 100 only once rounded
// (SplitWeightsRounded).
type splitter struct {
	ServiceSplitter
	related        []exports.ServiceName
	crossPartition bool
	roundedTo100   bool
}

// otherPartition reports whether a service of related is in another partition than own
// (both canonical).
func otherPartition(related []exports.ServiceName, own exports.ServiceName) bool {
	return slices.ContainsFunc(related, func(s exports.ServiceName) bool { return s.Partition != own.Partition })
}

// indexRouting validates and indexes the routers and splitters of e, reporting every
// invalid entry (each problem prefixed by the entry) and two entries of one kind for one
// service.
func (cc *Compiler) indexRouting(e Entries, c *fielderr.Collector) {
	cc.routers = make(map[exports.ServiceName]*router, len(e.Routers))
	cc.splitters = make(map[exports.ServiceName]*splitter, len(e.Splitters))
	rs := make([]router, len(e.Routers))
	at := make(map[exports.ServiceName]int, len(e.Routers))
	for i := range e.Routers {
		r := &e.Routers[i]
		k := r.ServiceName()
		where := fmt.Sprintf("Routers[%d] (%s)", i, k)
		if err := r.Validate(); err != nil {
			c.Put(fielderr.In(where, err))
			continue
		}
		if prev, dup := at[k]; dup {
			c.Put(&FieldError{Where: where, Value: k.String(), Detail: fmt.Sprintf("duplicate of Routers[%d]; one router per service", prev), Err: errDuplicate})
			continue
		}
		at[k] = i
		rs[i] = router{ServiceRouter: r.clone()}
		own := &rs[i]
		own.normalize()
		own.related = own.Related()
		own.crossPartition = otherPartition(own.related, k)
		cc.routers[k] = own
	}
	ss := make([]splitter, len(e.Splitters))
	clear(at)
	for i := range e.Splitters {
		s := &e.Splitters[i]
		k := s.ServiceName()
		where := fmt.Sprintf("Splitters[%d] (%s)", i, k)
		if err := s.Validate(); err != nil {
			c.Put(fielderr.In(where, err))
			continue
		}
		if prev, dup := at[k]; dup {
			c.Put(&FieldError{Where: where, Value: k.String(), Detail: fmt.Sprintf("duplicate of Splitters[%d]; one splitter per service", prev), Err: errDuplicate})
			continue
		}
		at[k] = i
		ss[i] = splitter{ServiceSplitter: s.clone(), roundedTo100: roundedTo100(s.Splits)}
		own := &ss[i]
		own.normalize()
		own.related = own.Related()
		own.crossPartition = otherPartition(own.related, k)
		cc.splitters[k] = own
	}
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
