package store

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
)

// The answers of Consul's server (testdata/README.md says how they were recorded).
type serverVectors struct {
	Cases []serverCase
}

type serverCase struct {
	Name    string
	Request vectorRequest
	Entries []json.RawMessage
	Writes  []testkit.Write
	Consul  struct {
		Protocol, Start string
		Targets         map[string]serverTarget
		Failover        map[string][]string // resolver node -> its failover target IDs
		Resolvers       map[string]string   // resolver node -> its target
	}
}

// vectorRequest is a recorded request, its service spelt as three strings.
type vectorRequest struct{ Service, Namespace, Partition, Datacenter, TrustDomain string }

func (r vectorRequest) request() chain.Request {
	return chain.Request{Service: exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Service}, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}
}

type serverTarget struct {
	ID, Service, ServiceSubset, Namespace, Partition, Datacenter, Peer, SNI, SpiffeID, ConnectTimeout, Filter string
	OnlyPassing                                                                                               bool
}

// The classes of the comparison: each write agreeing by stage, and the differences meshscope
// keeps on purpose.
const (
	writeAccepted   = "write accepted, as by Consul"
	writeDecode     = "write refused at decode, with Consul's message"
	writeValidate   = "write refused at validate, with Consul's message"
	writeStore      = "write refused at store, with Consul's message"
	writeEnterprise = "write Consul CE refuses for an Enterprise field, left out"
	writeFilter     = "write Consul refuses for a subset filter, left out"
	chainAgrees     = "chain compiled from what Apply stored, as Consul's"
	chainStart      = "chain: a failover candidate resolving to the start dropped"
)

// TestApplyAgainstConsul replays every recorded case through Config.Apply — every write's
// acceptance, its stage and Consul's message among the reasons — and compiles the request's
// chain from what Apply stored, comparing it with the chain Consul's server compiled.
func TestApplyAgainstConsul(t *testing.T) {
	data, err := os.ReadFile("testdata/consul-chain-server.json")
	require.NoError(t, err)
	var v serverVectors
	require.NoError(t, json.Unmarshal(data, &v))
	require.Len(t, v.Cases, 1500)
	counts := map[string]int{}
	for _, tc := range v.Cases {
		for _, problem := range replayCase(tc, counts) {
			t.Errorf("%s: %s", tc.Name, problem)
		}
	}
	for _, class := range slices.Sorted(maps.Keys(counts)) {
		t.Logf("%-62s %5d", class, counts[class])
	}
	require.Greater(t, counts[writeStore], 800)
	require.Greater(t, counts[chainAgrees], 1400)
}

// replayCase returns what disagrees in one case, counting the classes.
func replayCase(tc serverCase, counts map[string]int) []string {
	c, problems := replayWrites(tc.Entries, tc.Writes, counts)
	if len(problems) > 0 {
		return problems // the chain is compiled from another store
	}
	got, err := chain.Compile(tc.Request.request(), c.Entries)
	if err != nil {
		return []string{fmt.Sprintf("Consul's server compiles the chain of what it stored; meshscope: %v", err)}
	}
	class, problem := compareServerChain(tc, got)
	if problem != "" {
		return []string{problem}
	}
	counts[class]++
	return nil
}

// replayWrites is the replay of every recorded file of writes: it writes the entries, in
// order, with one Config.Apply, and compares each outcome with Consul's — acceptance, stage,
// and Consul's words ending a reason (after the path or the chain meshscope names) —,
// counting each class, alone and by kind. A write Consul CE refuses for an Enterprise field
// or for a subset filter is left out (Consul did not store it; meshscope accepts it). It
// returns the Config the writes leave and what disagrees.
func replayWrites(entries []json.RawMessage, writes []testkit.Write, counts map[string]int) (Config, []string) {
	var problems []string
	var kept []json.RawMessage
	var want []int // index into writes of each kept entry
	for i, w := range writes {
		switch {
		case strings.HasSuffix(w.Error, "requires Consul Enterprise"):
			counts[writeEnterprise]++
		case strings.HasPrefix(w.Error, "Filter for subset "):
			counts[writeFilter]++
		default:
			kept = append(kept, entries[i])
			want = append(want, i)
		}
	}
	var c Config
	if len(kept) == 0 {
		return c, nil
	}
	all, err := json.Marshal(kept)
	if err != nil {
		panic(err)
	}
	outs, err := c.Apply(all)
	if err != nil {
		return c, []string{fmt.Sprintf("Apply: %v", err)}
	}
	for k, o := range outs {
		w := writes[want[k]]
		class := writeAccepted
		switch {
		case w.Accepted && o.Accepted:
		case w.Accepted:
			problems = append(problems, fmt.Sprintf("write %d: Consul accepts, meshscope: %s", want[k], o))
			continue
		case o.Accepted:
			problems = append(problems, fmt.Sprintf("write %d: Consul refuses (%s: %s), meshscope accepts", want[k], w.Stage, w.Error))
			continue
		case string(o.Stage) != w.Stage || !slices.ContainsFunc(o.Reasons, func(r string) bool { return r == w.Error || strings.HasSuffix(r, ": "+w.Error) }):
			problems = append(problems, fmt.Sprintf("write %d: Consul refuses (%s: %q), meshscope: %q", want[k], w.Stage, w.Error, o))
			continue
		case w.Stage == "decode":
			class = writeDecode
		case w.Stage == "validate":
			class = writeValidate
		default:
			class = writeStore
		}
		counts[class]++
		counts[class+": "+o.Kind]++
	}
	return c, problems
}

// compareServerChain compares the chain compiled from what Apply stored with Consul's.
func compareServerChain(tc serverCase, c *chain.Chain) (class, problem string) {
	want := tc.Consul
	class = chainAgrees
	if want.Protocol != c.Protocol || want.Start != c.Start {
		return "", fmt.Sprintf("chain: Consul %s start %s; meshscope %s start %s", want.Protocol, want.Start, c.Protocol, c.Start)
	}
	for node, target := range want.Resolvers {
		if node != "resolver:"+target || (target != want.Start && len(want.Failover[node]) > 0) {
			return "", fmt.Sprintf("chain: Consul has resolver node %s (target %s) with failover", node, target)
		}
	}
	failover := want.Failover["resolver:"+want.Start]
	if got := c.Targets[c.Start].Failover; !slices.Equal(failover, got) {
		without := slices.DeleteFunc(slices.Clone(failover), func(id string) bool { return id == want.Start })
		if !slices.Equal(without, got) {
			return "", fmt.Sprintf("chain: failover: Consul %v; meshscope %v", failover, got)
		}
		class = chainStart
	}
	have := map[string]serverTarget{}
	for id, t := range c.Targets {
		have[id] = serverTarget{ID: t.ID, Service: t.Service.Name, ServiceSubset: t.Subset, Namespace: t.Service.Namespace, Partition: t.Service.Partition,
			Datacenter: t.Datacenter, Peer: t.Peer, SNI: t.SNI, SpiffeID: t.SpiffeID, ConnectTimeout: t.ConnectTimeout.String(),
			Filter: t.Filter, OnlyPassing: t.OnlyPassing}
	}
	wantTargets := map[string]serverTarget{}
	for id, t := range want.Targets {
		d, err := time.ParseDuration(t.ConnectTimeout)
		if err != nil {
			return "", fmt.Sprintf("target %s: ConnectTimeout %q", id, t.ConnectTimeout)
		}
		t.ConnectTimeout = d.String()
		wantTargets[id] = t
	}
	if diff := cmp.Diff(wantTargets, have); diff != "" {
		return "", "chain: targets (-Consul +meshscope):\n" + diff
	}
	return class, ""
}
