package main

import (
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// explanation is -explain's answer for one service.
type explanation struct {
	Rule     exports.Explanation `json:"rule"`
	Chain    string              `json:"chain,omitempty"`
	ChainErr string              `json:"chainError,omitempty"`
	PeerSafe string              `json:"peerExport,omitempty"`
	// findings are the chain's, which Chain renders under its targets: the report counts
	// them with its own.
	findings []chain.Finding
}

func (e *explanation) String() string {
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

// explainService explains [partition/namespace/]name: its rule, its chain, its safety.
func (r *report) explainService(arg string, x *exports.Exports, in *inputs) (*explanation, error) {
	s, err := in.input(x, in.config, r.exporter("")).Lookup(arg)
	if err != nil {
		return nil, fmt.Errorf("-explain %w", err)
	}
	e := &explanation{Rule: x.Explain(s), PeerSafe: "safe"}
	c, err := chain.Compile(chain.Request{Service: s, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}, in.config.Entries)
	if err != nil {
		e.ChainErr = err.Error()
		e.PeerSafe = "no chain"
		return e, nil
	}
	e.Chain, e.findings = c.Explain(), c.Findings()
	if err := c.CheckPeerExport(); err != nil {
		e.PeerSafe = err.Error()
	}
	return e, nil
}

// explainRequest follows the request of -explain-request through -service's chain.
func (r *report) explainRequest(o options, x *exports.Exports, in *inputs) (*chain.RequestExplanation, error) {
	s, err := in.input(x, in.config, r.exporter("")).Lookup(o.service)
	if err != nil {
		return nil, fmt.Errorf("-service %w", err)
	}
	c, err := chain.Compile(chain.Request{Service: s, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}, in.config.Entries)
	if err != nil {
		return nil, fmt.Errorf("-service %q: %w", o.service, err)
	}
	return c.ExplainRequest(o.request)
}
