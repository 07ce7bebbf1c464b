package chain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/testkit"
)

// consulCase is a case of the recorded answers of Consul's own compiler (testdata/README.md
// says how they were made).
type consulCase struct {
	testkit.Case
	Request testkit.ChainRequest
	Entries []json.RawMessage
	Consul  consulAnswer
}

func request(r testkit.ChainRequest) Request {
	return Request{Service: exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Service}, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}
}

// consulAnswer is what Consul answered for a case: a refusal, or the chain.
type consulAnswer struct {
	Stage  string // "validate" or "compile" when Consul refused; "" when it compiled
	Errors []string
	testkit.ChainAnswer
}

// The differences meshscope keeps on purpose, each counted by name.
const (
	classAgree      = "agree"
	classEnterprise = "Enterprise fields Consul CE refuses, accepted"     // meshscope models Consul Enterprise
	classFilter     = "subset filter not parsed"                          // its expression language is Consul's
	classStart      = "failover candidate resolving to the start dropped" // Consul lists the start again
	// Not a difference of meshscope's: the recording handed Consul's compiler every entry,
	// while Consul's server hands it only the entries it reads for the chain (see
	// loadedFrom). Counted where compiling from every entry gives exactly Consul's answer.
	classNotRead = "a local resolver Consul's server does not read for the chain (the recording compiled every entry)"
)

// TestAgainstConsul feeds every recorded case to loadResolvers and Compile and compares the
// answer with Consul's: the validation error (any of an entry's problems, as Consul reports
// one of them in map order), the compile error, or the protocol, the start target, every
// target's fields and every resolver node's failover list. Only the deliberate differences
// named above may remain, and the cases in which the server reads fewer entries than the
// recording handed the compiler (classNotRead, checked by compiling from every entry); each
// is counted.
func TestAgainstConsul(t *testing.T) {
	cases := testkit.LoadCases[consulCase](t, "testdata/consul-chain.json", 1500)
	counts := testkit.Compare(t, cases, func(tc consulCase, counts map[string]int) []string {
		class, problem := compareWithConsul(tc)
		if problem != "" {
			return []string{problem}
		}
		counts[class]++
		return nil
	})
	require.Greater(t, counts[classAgree], 1200)
}

// compareWithConsul returns the class of the case, or what disagrees.
func compareWithConsul(tc consulCase) (class, problem string) {
	e, problems := entriesOf(tc.Entries)
	want := tc.Consul
	if want.Stage == "validate" {
		return compareValidation(want.Errors, problems)
	}
	for entry, errs := range problems {
		return "", fmt.Sprintf("Consul accepts every entry, meshscope refuses %s: %v", entry, errs)
	}
	class, problem = compareCompiled(request(tc.Request), e, want, true)
	if problem == "" {
		return class, ""
	}
	if _, again := compareCompiled(request(tc.Request), e, want, false); again == "" {
		return classNotRead, "" // from every entry: Consul's answer, up to the deliberate classes
	}
	return "", problem
}

// compareCompiled compiles the request from the entries Consul's server reads for it
// (asRead), or from every entry, and compares the answer with Consul's.
func compareCompiled(req Request, e Entries, want consulAnswer, asRead bool) (class, problem string) {
	cc, err := NewCompiler(e)
	if err != nil {
		return "", fmt.Sprintf("NewCompiler: %v", err)
	}
	var c *Chain
	if err = errors.Join(checkRequest(req)...); err == nil {
		c, err = cc.compileFrom(req, asRead)
	}
	if want.Stage == "compile" {
		if err == nil {
			return "", fmt.Sprintf("Consul refuses to compile (%s), meshscope compiles %s", want.Errors[0], c.Start)
		}
		for _, fe := range fielderr.Split(err) {
			var f *FieldError
			if errors.As(fe, &f) && f.Detail == want.Errors[0] {
				return classAgree, ""
			}
		}
		return "", fmt.Sprintf("Consul: %s; meshscope: %v", want.Errors[0], err)
	}
	if err != nil {
		return "", fmt.Sprintf("Consul compiles, meshscope: %v", err)
	}
	for node, target := range want.Resolvers {
		if node != "resolver:"+target || target != want.Start {
			return "", fmt.Sprintf("Consul has resolver node %s (target %s); meshscope's chains have one, the start's (%s)", node, target, want.Start)
		}
	}
	for node := range want.Failover {
		if node != "resolver:"+want.Start {
			return "", fmt.Sprintf("Consul gives resolver node %s a failover list; meshscope gives only the start (%s) one", node, want.Start)
		}
	}
	problem, startDropped := testkit.CompareChain(want.ChainAnswer, answer(c))
	switch {
	case problem != "":
		return "", problem
	case startDropped:
		return classStart, ""
	}
	return classAgree, ""
}

// entriesOf reads a case's entries as `consul config read` prints them: resolvers through
// loadResolvers (which validates), protocols from service-defaults and proxy-defaults. It
// returns the problems of each refused entry, by "kind/name".
func entriesOf(raw []json.RawMessage) (Entries, map[string][]error) {
	var e Entries
	problems := map[string][]error{}
	for _, r := range raw {
		var head struct {
			Kind, Name, Namespace, Partition, Protocol string
			Config                                     struct{ Protocol string }
		}
		if err := json.Unmarshal(r, &head); err != nil {
			panic(err)
		}
		switch head.Kind {
		case resolverKind:
			rs, err := loadResolvers(r)
			if err != nil {
				problems[head.Kind+"/"+head.Name] = fielderr.Split(err)
				continue
			}
			e.Resolvers = append(e.Resolvers, rs...)
		case "service-defaults":
			if e.Protocols == nil {
				e.Protocols = map[exports.ServiceName]string{}
			}
			e.Protocols[exports.ServiceName{Partition: head.Partition, Namespace: head.Namespace, Name: head.Name}] = head.Protocol
		case "proxy-defaults":
			e.DefaultProtocol = head.Config.Protocol
		default:
			panic("a vector of kind " + head.Kind)
		}
	}
	return e, problems
}

// compareValidation compares Consul's refusals (one problem of each refused entry, as
// "kind/name: message") with meshscope's.
func compareValidation(consul []string, problems map[string][]error) (class, problem string) {
	class = classAgree
	refused := map[string]bool{}
	for _, msg := range consul {
		entry, want, _ := strings.Cut(msg, ": ")
		refused[entry] = true
		found := slices.ContainsFunc(problems[entry], func(err error) bool {
			var f *FieldError
			return errors.As(err, &f) && f.Detail == want
		})
		switch {
		case found:
		case strings.HasSuffix(want, "requires Consul Enterprise"):
			class = classEnterprise
		case strings.HasPrefix(want, "Filter for subset "):
			class = classFilter
		default:
			return "", fmt.Sprintf("Consul refuses %s: %s; meshscope: %v", entry, want, problems[entry])
		}
	}
	for entry, errs := range problems {
		if !refused[entry] {
			return "", fmt.Sprintf("Consul accepts %s, meshscope refuses it: %v", entry, errs)
		}
	}
	return class, ""
}

// answer is c as the recordings write a chain.
func answer(c *Chain) testkit.ChainAnswer {
	a := testkit.ChainAnswer{Protocol: c.Protocol, Start: c.Start, Targets: map[string]testkit.ChainTarget{},
		Failover: map[string][]string{"resolver:" + c.Start: c.Targets[c.Start].Failover}}
	for id, t := range c.Targets {
		a.Targets[id] = testkit.ChainTarget{ID: t.ID, Service: t.Service.Name, ServiceSubset: t.Subset, Namespace: t.Service.Namespace,
			Partition: t.Service.Partition, Datacenter: t.Datacenter, Peer: t.Peer, SNI: t.SNI, SpiffeID: t.SpiffeID,
			ConnectTimeout: t.ConnectTimeout.String(), Filter: t.Filter, OnlyPassing: t.OnlyPassing}
	}
	return a
}
