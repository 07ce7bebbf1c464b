package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
)

// serverCase is a case of the answers of Consul's server (testdata/README.md says how they
// were recorded).
type serverCase struct {
	testkit.Case
	Request testkit.ChainRequest
	Entries []json.RawMessage
	Writes  []testkit.Write
	Consul  testkit.ChainAnswer
}

func chainRequest(r testkit.ChainRequest) chain.Request {
	return chain.Request{Service: exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Service}, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}
}

// The classes of the comparison besides each write's (testkit.AgreeByStage, and
// testkit.WriteEnterprise): the differences meshscope keeps on purpose.
const (
	writeFilter = "write Consul refuses for a subset filter, left out"
	chainAgrees = "chain compiled from what Apply stored, as Consul's"
	chainStart  = "chain: a failover candidate resolving to the start dropped"
)

// TestApplyAgainstConsul replays every recorded case through Config.Apply — every write's
// acceptance, its stage and Consul's message among the reasons — and compiles the request's
// chain from what Apply stored, comparing it with the chain Consul's server compiled.
func TestApplyAgainstConsul(t *testing.T) {
	counts := testkit.Compare(t, testkit.LoadCases[serverCase](t, "testdata/consul-chain-server.json", 1500), replayCase)
	require.Greater(t, counts[testkit.WriteStore], 800)
	require.Greater(t, counts[chainAgrees], 1400)
}

// replayCase returns what disagrees in one case, counting the classes.
func replayCase(tc serverCase, counts map[string]int) []string {
	c, problems := replayWrites(tc.Entries, tc.Writes, counts)
	if len(problems) > 0 {
		return problems // the chain is compiled from another store
	}
	got, err := chain.Compile(chainRequest(tc.Request), c.Entries)
	if err != nil {
		return []string{fmt.Sprintf("Consul's server compiles the chain of what it stored; meshscope: %v", err)}
	}
	class, problem := compareServerChain(tc.Consul, got)
	if problem != "" {
		return []string{problem}
	}
	counts[class]++
	return nil
}

// replay is the replay of every recorded file of writes: each outcome is compared with
// Consul's — acceptance, stage, and Consul's words ending a reason (after the path or the
// chain meshscope names). A write Consul CE refuses for an Enterprise field or for a subset
// filter is left out (Consul did not store it; meshscope accepts it).
var replay = testkit.Replay{
	Leave: func(w testkit.Write) string {
		switch {
		case strings.HasSuffix(w.Error, "requires Consul Enterprise"):
			return testkit.WriteEnterprise
		case strings.HasPrefix(w.Error, "Filter for subset "):
			return writeFilter
		}
		return ""
	},
	Carries: func(w testkit.Write, r string) bool { return r == w.Error || strings.HasSuffix(r, ": "+w.Error) },
	Agree:   testkit.AgreeByStage,
}

// replayWrites writes the entries, in order, with one Config.Apply, judging each outcome
// (replay), and returns the Config the writes leave and what disagrees.
func replayWrites(entries []json.RawMessage, writes []testkit.Write, counts map[string]int) (Config, []string) {
	var c Config
	problems := replay.Run(entries, writes, func(data []byte) (any, error) { return c.Apply(data) }, counts)
	return c, problems
}

// compareServerChain compares the chain compiled from what Apply stored with Consul's: the
// chain Consul's server compiled may have resolver nodes besides the start's, without
// failover.
func compareServerChain(want testkit.ChainAnswer, c *chain.Chain) (class, problem string) {
	for node, target := range want.Resolvers {
		if node != "resolver:"+target || (target != want.Start && len(want.Failover[node]) > 0) {
			return "", fmt.Sprintf("chain: Consul has resolver node %s (target %s) with failover", node, target)
		}
	}
	problem, startDropped := testkit.CompareChain(want, answer(c))
	switch {
	case problem != "":
		return "", "chain: " + problem
	case startDropped:
		return chainStart, ""
	}
	return chainAgrees, ""
}

// answer is c as the recordings write a chain.
func answer(c *chain.Chain) testkit.ChainAnswer {
	a := testkit.ChainAnswer{Protocol: c.Protocol, Start: c.Start, Targets: map[string]testkit.ChainTarget{},
		Failover: map[string][]string{"resolver:" + c.Start: c.Targets[c.Start].Failover}}
	for id, t := range c.Targets {
		a.Targets[id] = testkit.ChainTarget{ID: t.ID, Service: t.Service.Name, ServiceSubset: t.Subset, Namespace: t.Service.Namespace,
			Partition: t.Service.Partition, Datacenter: t.Datacenter, Peer: t.Peer, SNI: t.SNI, SpiffeID: t.SpiffeID,
			ConnectTimeout: t.ConnectTimeout.String(), Filter: t.Filter, OnlyPassing: t.OnlyPassing}
	}
	return a
}
