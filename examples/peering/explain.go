package main

import (
	"fmt"
	"slices"
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
	parts := strings.Split(arg, "/")
	var s exports.ServiceName
	switch len(parts) {
	case 1:
		s = exports.ServiceName{Partition: r.Partition, Name: parts[0]}
	case 3:
		s = exports.ServiceName{Partition: parts[0], Namespace: parts[1], Name: parts[2]}
	default:
		return nil, fmt.Errorf("-explain %q: want name or partition/namespace/name", arg)
	}
	s = s.Canonical()
	known := in.input(x, in.config, r.exporter("")).Candidates()
	if s.Partition != r.Partition || !slices.Contains(known, s) {
		names := make([]string, len(known))
		for i, k := range known {
			names[i] = k.String()
		}
		return nil, fmt.Errorf("-explain %q: no such service in the catalog or the resolvers; services: %s", arg, list(names))
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
