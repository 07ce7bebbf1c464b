package testkit

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The chains recorded from Consul: what its compiler answered for a request (chain's
// testdata/consul-chain.json) and what its server compiled from the entries it stored
// (chain/store's testdata/consul-chain-server.json), both in one shape.

// ChainRequest is a recorded request for a chain, its service spelt as three strings.
type ChainRequest struct{ Service, Namespace, Partition, Datacenter, TrustDomain string }

// ChainTarget is a target of a chain as the recordings write it: ConnectTimeout a duration
// string such as "5s".
type ChainTarget struct {
	ID, Service, ServiceSubset, Namespace, Partition, Datacenter, Peer, SNI, SpiffeID, ConnectTimeout, Filter string
	OnlyPassing                                                                                               bool
}

// ChainAnswer is a compiled chain as the recordings write it: its protocol, the target its
// start resolves to, every target, and each resolver node's failover list (target IDs,
// repeats kept) and target, by node key ("resolver:" and the target's ID).
type ChainAnswer struct {
	Protocol, Start string
	Targets         map[string]ChainTarget
	Failover        map[string][]string
	Resolvers       map[string]string
}

// StartFailover returns the failover list of the start's resolver node.
func (a ChainAnswer) StartFailover() []string { return a.Failover["resolver:"+a.Start] }

// CompareChain compares meshscope's chain, got, with Consul's, want: the protocol, the start
// target, the start's failover list and every target's fields (timeouts compared as
// durations). It returns what disagrees, "" when they agree, and whether the failover lists
// differ only in Consul listing the start target again among them, which meshscope leaves
// out on purpose.
func CompareChain(want, got ChainAnswer) (problem string, startDropped bool) {
	if want.Protocol != got.Protocol || want.Start != got.Start {
		return fmt.Sprintf("Consul: %s start %s; meshscope: %s start %s", want.Protocol, want.Start, got.Protocol, got.Start), false
	}
	if failover := want.StartFailover(); !slices.Equal(failover, got.StartFailover()) {
		without := slices.DeleteFunc(slices.Clone(failover), func(id string) bool { return id == want.Start })
		if !slices.Equal(without, got.StartFailover()) {
			return fmt.Sprintf("failover: Consul %v; meshscope %v", failover, got.StartFailover()), false
		}
		startDropped = true
	}
	targets := map[string]ChainTarget{}
	for id, t := range want.Targets {
		d, err := time.ParseDuration(t.ConnectTimeout)
		if err != nil {
			return fmt.Sprintf("target %s: ConnectTimeout %q", id, t.ConnectTimeout), false
		}
		t.ConnectTimeout = d.String()
		targets[id] = t
	}
	if diff := cmp.Diff(targets, got.Targets); diff != "" {
		return "targets (-Consul +meshscope):\n" + diff, false
	}
	return "", startDropped
}
