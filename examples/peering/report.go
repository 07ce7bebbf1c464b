package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/peermeta"
)

// report is everything the program shows; it is also the JSON output.
type report struct {
	TrustDomain string `json:"trustDomain"`
	Datacenter  string `json:"datacenter"`
	Partition   string `json:"partition"`
	// Findings are the findings about the input (the entries skipped, the mesh gateways);
	// those of each peer, -explain and the dry run are in their own parts.
	Findings []peermeta.Finding           `json:"findings"`
	Peers    []peermeta.Replication       `json:"peers"`
	Explain  *peermeta.ServiceExplanation `json:"explain,omitempty"`
	// Chains are the chains of the services replicated with one, by service, as Consul's
	// /v1/discovery-chain gives them; Request is -explain-request's answer.
	Chains  []*chain.Chain            `json:"chains"`
	Request *chain.RequestExplanation `json:"request,omitempty"`
	// Call is -may's answer.
	Call   *peermeta.Call `json:"call,omitempty"`
	DryRun *dryRun        `json:"dryRun,omitempty"`
}

// dryRun is a proposal's dry run: the writes Consul refuses — the same for every peer, so
// listed once — and how each peer's replication changes.
type dryRun struct {
	Refused  []string                   `json:"refused"`
	Peers    []peermeta.ReplicationDiff `json:"peers"` // without their Refused
	Calls    []peermeta.CallChange      `json:"calls"` // the calls the change allows or denies
	findings []peermeta.Finding         // Refused, as findings
}

// build reads everything and works out the report.
func build(o options) (*report, error) {
	in, err := o.read()
	if err != nil {
		return nil, err
	}
	rep := &report{TrustDomain: in.trustDomain, Datacenter: in.datacenter, Partition: o.partition, Findings: []peermeta.Finding{}}
	x, err := compile(in.config, "")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(x.Partitions(), o.partition) {
		return nil, fmt.Errorf("-partition %q has no exported-services entry; partitions with one: %s", o.partition, list(x.Partitions()))
	}
	if err := o.needCatalog(x, in, ""); err != nil {
		return nil, err
	}
	for _, err := range fielderr.Split(rep.exporter("").CheckLocation(in.api.Gateways)) {
		var fe *peermeta.FieldError // the flags name the exporter's fields
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("-%s %q: %s", strings.ToLower(strings.TrimPrefix(fe.Field, "Exporter.")), fe.Value, fe.Detail)
		}
	}
	var after *proposal
	if p, err := o.proposed(in.config); err != nil {
		return nil, err
	} else if p != nil {
		after = p
		if err := o.needCatalog(after.x, in, "proposed "); err != nil {
			return nil, err
		}
	}
	// The dry run covers the peers of both sides: a change may add or drop a peer.
	peers := x.PeersIn(o.partition)
	dryPeers := peers
	if after != nil {
		dryPeers = slices.Compact(slices.Sorted(slices.Values(slices.Concat(peers, after.x.PeersIn(o.partition)))))
	}
	if o.peer != "" {
		if !slices.Contains(dryPeers, o.peer) {
			return nil, fmt.Errorf("-peer %q: the exported-services entry of partition %q names no such peer; it names: %s", o.peer, o.partition, list(dryPeers))
		}
		peers = slices.DeleteFunc(peers, func(p string) bool { return p != o.peer }) // none when only the proposal names it
		dryPeers = []string{o.peer}
	}
	rep.Findings = slices.Concat(rep.Findings, in.config.Findings, peermeta.CheckGateways(in.api.Gateways))
	if after != nil {
		rep.Findings = append(rep.Findings, after.config.Findings...)
	}
	rep.Peers = []peermeta.Replication{}
	for _, p := range peers {
		r, err := peermeta.Replicate(in.input(x, in.config, rep.exporter(p)))
		if err != nil {
			return nil, err
		}
		rep.Peers = append(rep.Peers, r)
	}
	if o.explain != "" {
		e, err := in.input(x, in.config, rep.exporter("")).ExplainService(o.explain)
		if err != nil {
			return nil, fmt.Errorf("-explain %w", err)
		}
		rep.Explain = &e
	}
	if o.explainRequest != "" {
		if rep.Request, err = in.input(x, in.config, rep.exporter("")).ExplainRequest(o.service, o.chainRequest); err != nil {
			return nil, fmt.Errorf("-service %w", err)
		}
	}
	rep.Chains = rep.chains()
	acl, err := intentions.ParseACL(o.defaultPolicy)
	if err != nil {
		return nil, usageError{"-default-policy: " + err.Error()}
	}
	calls, err := rep.calls(in, in.config, x)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, calls.Lint(acl)...)
	if o.may != "" {
		caller, service, err := peermeta.ParseCall(o.may)
		if err == nil {
			var call peermeta.Call
			call, err = calls.May(caller, service, o.callRequest, acl)
			rep.Call = &call
		}
		if err != nil {
			return nil, fmt.Errorf("-may %q: %w", o.may, err)
		}
	}
	if after != nil {
		outs, left, err := store.Replay(in.config, after.config)
		if err != nil {
			return nil, err
		}
		refused := peermeta.ReplicationDiff{Refused: peermeta.Refused(outs)}
		rep.DryRun = &dryRun{Refused: refused.Refused, findings: refused.AllFindings()}
		xl, err := compile(left, "proposed ")
		if err != nil {
			return nil, err
		}
		then, err := rep.calls(in, left, xl)
		if err != nil {
			return nil, err
		}
		rep.DryRun.Calls = peermeta.DiffCalls(calls, then, acl, o.callRequest)
		for _, p := range dryPeers {
			d, err := peermeta.Diff(in.input(x, in.config, rep.exporter(p)), in.input(after.x, after.config, rep.exporter(p)))
			if err != nil {
				return nil, err
			}
			d.Refused = nil
			rep.DryRun.Peers = append(rep.DryRun.Peers, d)
		}
	}
	return rep, nil
}

// chains returns the chain of each service a peer receives with one, once, by service.
func (r *report) chains() []*chain.Chain {
	out := []*chain.Chain{}
	for _, p := range r.Peers {
		for _, s := range p.Services {
			out = append(out, s.Chain)
		}
	}
	slices.SortFunc(out, func(a, b *chain.Chain) int { return a.Service.Compare(b.Service) })
	return slices.CompactFunc(out, func(a, b *chain.Chain) bool { return a.Service == b.Service })
}

// gated returns every finding the table prints, in its order: what -fail-on counts.
func (r *report) gated() []peermeta.Finding {
	all := slices.Clone(r.Findings)
	for i := range r.Peers {
		all = append(all, r.Peers[i].AllFindings()...)
	}
	if r.Explain != nil {
		all = append(all, r.Explain.Findings...) // printed with the chain
	}
	if r.DryRun != nil {
		all = append(all, r.DryRun.findings...)
	}
	return all
}

func (r *report) exporter(peer string) peermeta.Exporter {
	return peermeta.Exporter{Peer: peer, Partition: r.Partition, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}
}

// compile compiles the exported-services and chain entries of c, naming which side of a dry
// run ("proposed ") is wrong.
func compile(c store.Config, side string) (*exports.Exports, error) {
	x, err := c.Compile()
	return x, fielderr.In(strings.TrimSpace(side), err)
}

// needCatalog refuses to go on without -catalog when a "*" rule of x (side "proposed " for
// a dry run's) exports services: only the catalog says which services those are, and a
// report or a dry run without them would look complete.
func (o options) needCatalog(x *exports.Exports, in *inputs, side string) error {
	if in.catalogGiven {
		return nil
	}
	e, ok := x.Entry(o.partition)
	if !ok {
		return nil
	}
	for i, s := range e.Services {
		if s.Name == exports.Wildcard {
			return usageError{fmt.Sprintf("-catalog is required: Services[%d] of the %sexported-services entry of partition %q exports every service of namespace %q, and only the catalog says which those are (curl $CONSUL_HTTP_ADDR/v1/internal/ui/services)", i, side, o.partition, s.Namespace)}
		}
	}
	return nil
}

// proposal is the after side of a dry run.
type proposal struct {
	config store.Config
	x      *exports.Exports
}

// proposed reads the -new-config files and returns the after side, or nil when there are
// none. Everything but the config entries (catalog, health, trust domain) is the same on both
// sides.
func (o options) proposed(cur store.Config) (*proposal, error) {
	if len(o.newConfig) == 0 {
		return nil, nil
	}
	var p store.Config
	var errs []error
	for _, path := range o.newConfig {
		errs = append(errs, o.loadConfig(path, &p))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	after := &proposal{config: cur.Replace(p)}
	x, err := compile(after.config, "proposed ")
	if err != nil {
		return nil, err
	}
	after.x = x
	return after, nil
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
}
