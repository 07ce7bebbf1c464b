package peermeta

import (
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// ServiceExplanation is why one service is exported as it is: its exported-services rule,
// its chain (or why it does not compile) and whether Consul would export it to a peer.
type ServiceExplanation struct {
	Rule     exports.Explanation `json:"rule"`
	Chain    string              `json:"chain,omitempty"`
	ChainErr string              `json:"chainError,omitempty"`
	// PeerSafe is "safe", "no chain", or Consul's refusal to export the chain to a peer.
	PeerSafe string `json:"peerExport,omitempty"`
	// Findings are the chain's, which Chain renders under its targets.
	Findings []chain.Finding `json:"-"`
}

// String renders the explanation: "EXPLAIN" and the rule, the chain, the peer-export verdict.
func (e ServiceExplanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "EXPLAIN %s\n", e.Rule)
	switch {
	case e.ChainErr != "":
		fmt.Fprintf(&b, "chain: %s\n", e.ChainErr)
	case e.Chain != "":
		fmt.Fprintf(&b, "%s\n", e.Chain)
	}
	fmt.Fprintf(&b, "export to a peer: %s\n", e.PeerSafe)
	return b.String()
}

// ExplainService explains the service named as Lookup reads a name: its rule, its chain
// compiled in the exporter's datacenter, and whether it is safe to export to a peer.
func (in Input) ExplainService(name string) (ServiceExplanation, error) {
	s, err := in.Lookup(name)
	if err != nil {
		return ServiceExplanation{}, err
	}
	e := ServiceExplanation{Rule: in.Exports.Explain(s), PeerSafe: "safe"}
	c, err := chain.Compile(in.request(s), in.Entries)
	if err != nil {
		e.ChainErr, e.PeerSafe = err.Error(), "no chain"
		return e, nil
	}
	e.Chain, e.Findings = c.Explain(), c.Findings()
	if err := c.CheckPeerExport(); err != nil {
		e.PeerSafe = err.Error()
	}
	return e, nil
}

// ExplainRequest follows a request through the chain of the service named as Lookup reads
// a name (chain.Chain.ExplainRequest).
func (in Input) ExplainRequest(name string, r chain.HTTPRequest) (*chain.RequestExplanation, error) {
	s, err := in.Lookup(name)
	if err != nil {
		return nil, err
	}
	c, err := chain.Compile(in.request(s), in.Entries)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", name, err)
	}
	return c.ExplainRequest(r)
}

// request is the chain request of s in the exporter's datacenter and trust domain.
func (in Input) request(s exports.ServiceName) chain.Request {
	return chain.Request{Service: s, Datacenter: in.Exporter.Datacenter, TrustDomain: in.Exporter.TrustDomain}
}
