package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/scope"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// report is everything the program shows; it is also the JSON output.
type report struct {
	// Release names the Istio release answered for, and the flags it runs with, as the first
	// line does; NewRelease the proposed side's, in a dry run.
	Release    string               `json:"release"`
	NewRelease string               `json:"newRelease,omitempty"`
	Mesh       string               `json:"mesh"`
	Inventory  string               `json:"inventory"`
	Enabled    bool                 `json:"enabled"`
	Findings   []visibility.Finding `json:"findings"`
	// Proposed are the findings of the proposed configuration (-new-mesh, -new-inventory)
	// that the current one does not have: what the change introduces. -fail-on counts them.
	Proposed  []visibility.Finding  `json:"proposedFindings,omitempty"`
	Entries   []entryRow            `json:"entries"`
	Services  []scope.Scoped        `json:"services,omitempty"`
	Conflicts []ambient.Conflict    `json:"conflicts"`
	Explain   []ambient.Explanation `json:"explain,omitempty"`
	Sidecars  []proxyRow            `json:"sidecars"`
	// SidecarsOmitted counts the classes of proxies left out of Sidecars once it holds
	// sidecarBudget hosts (-proxy lists one class whatever its size).
	SidecarsOmitted int `json:"sidecarsOmitted,omitempty"`
	// SidecarExplain answers -explain-host for -proxy.
	SidecarExplain *sidecar.Explanation `json:"sidecarExplain,omitempty"`
	NewMesh        string               `json:"newMesh,omitempty"`
	NewInventory   string               `json:"newInventory,omitempty"`
	SidecarAudit   []sidecar.Change     `json:"sidecarAudit,omitempty"`
	Audit          *ambient.Audit       `json:"audit,omitempty"`
	Scope          []scope.Change       `json:"scopeChanges,omitempty"`
	// ScopeNote says, wherever scope is shown, when Istio applies it.
	ScopeNote string `json:"scopeNote,omitempty"`
	// Applied are the objects -apply applied; Upgrade is an upgrade's dry run (two releases).
	Applied []inventory.Applied `json:"applied,omitempty"`
	Upgrade *upgrade            `json:"upgrade,omitempty"`
	// SidecarNote says which of a release's differences from the newest the sidecar view
	// does not answer yet (see sidecarCauses).
	SidecarNote string `json:"sidecarNote,omitempty"`

	hosts   map[inventory.ServiceRef]string // each Kubernetes Service's host, for the scope table
	ignored bool                            // serviceEntryVisibility is configured, and the release ignores it
}

type entryRow struct {
	Namespace string              `json:"namespace"`
	Name      string              `json:"name"`
	Hosts     []string            `json:"hosts"`
	Addresses []string            `json:"addresses,omitempty"`
	DNS       bool                `json:"dnsAnswers"`
	Decision  visibility.Decision `json:"decision"`
	DecidedBy string              `json:"decidedBy"`
}

func build(o options) (*report, error) {
	in, err := load(o)
	if err != nil {
		return nil, err
	}
	cur := in.cur
	rep := &report{Release: cur.mesh.Release().String(), Mesh: cur.meshName, Inventory: cur.invName, Enabled: cur.resolver.Enabled(), Conflicts: cur.index.Conflicts(),
		Entries: []entryRow{}, hosts: map[inventory.ServiceRef]string{}, Applied: in.applied, ignored: cur.mesh.Visibility != nil && cur.mesh.AppliedVisibility() == nil}
	rep.Findings, _ = cur.findings()
	for s, d := range cur.index.Entries {
		if s.Kind == inventory.ServiceEntry {
			rep.Entries = append(rep.Entries, entryOf(s, d, cur.resolver))
		}
	}
	slices.SortFunc(rep.Entries, func(a, b entryRow) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	if len(cur.mesh.ServiceScopeConfigs) > 0 || len(cur.mesh.ServiceSettings) > 0 {
		rep.Services = cur.scoper.Services()
	}
	for _, s := range cur.scoper.Services() {
		rep.hosts[s.Service] = s.Host
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []ambient.Conflict{}
	}
	known := cur.inv.NamespaceNames() // -client and -proxy must name one of them
	for _, f := range []struct{ name, ns string }{{"-client", o.client}, {"-proxy", o.proxy}} {
		if f.ns != "" && !slices.Contains(known, f.ns) {
			return nil, fmt.Errorf("%s %q: the inventory has no such namespace; it has: %s", f.name, f.ns, strings.Join(known, ", "))
		}
	}
	rep.explain(o, cur)
	rep.sidecars(o, cur)
	if err := rep.dryRun(in); err != nil {
		return nil, err
	}
	rep.SidecarNote = sidecarNote(in)
	if len(rep.Services) > 0 || len(rep.Scope) > 0 {
		rep.ScopeNote = scopeNote
	}
	return rep, nil
}

// dryRun audits the proposed configuration against the current one: what ztunnel answers
// when the mesh configuration changes (its file or release), and for every change what each
// class of sidecars receives and the scope of each Kubernetes Service.
func (r *report) dryRun(in inputs) error {
	cur, next := in.cur, in.next
	if next == nil {
		return nil
	}
	r.NewRelease = next.mesh.Release().String()
	if next.meshName != cur.meshName {
		r.NewMesh = next.meshName
	}
	if next.invName != cur.invName {
		r.NewInventory = next.invName
	}
	if in.across {
		r.Upgrade = upgradeOf(cur, next)
	}
	if next.mesh != cur.mesh {
		audit, err := ambient.Diff(cur.mesh, next.mesh, cur.inv)
		var fe *ambient.FieldError
		switch {
		case err == nil:
			r.Audit = &audit
		case in.across && errors.As(err, &fe): // both were validated: the releases' ztunnels differ
			r.Upgrade.Ztunnel = "ztunnel's answers are not compared: " + fe.Detail + "; run each release alone (-istio) to see what its ztunnel answers"
		default:
			return fmt.Errorf("%s: %w", next.meshName, err)
		}
	}
	r.Scope = scope.Diff(cur.scoper, next.scoper)
	r.SidecarAudit = sidecar.Diff(cur.view, next.view)
	r.Proposed = proposedFindings(r.Findings, next)
	return nil
}

// explain answers -explain-host and -explain-addr for a client namespace.
func (r *report) explain(o options, c *config) {
	if o.explainHost == "" && o.explainAddr == "" || o.proxySet {
		return
	}
	if o.explainHost != "" {
		r.Explain = append(r.Explain, c.index.ExplainHost(o.client, o.explainHost))
	}
	if o.explainAddr != "" {
		r.Explain = append(r.Explain, c.index.ExplainAddress(o.client, o.addr))
	}
}

// entryOf is the row of the ServiceEntry s, decided d by r: its addresses as ztunnel's DNS
// proxy answers with them, and whether it answers at all.
func entryOf(s inventory.Service, d visibility.Decision, r *visibility.Resolver) entryRow {
	row := entryRow{Namespace: s.Namespace, Name: s.Name, Hosts: s.Hosts, Decision: d, DecidedBy: r.DecidedBy(d)}
	for _, h := range s.Hosts {
		a := s.AddressesFor(h)
		for _, p := range a {
			row.Addresses = append(row.Addresses, address(p))
		}
		row.DNS = row.DNS || len(a) > 0
	}
	slices.Sort(row.Addresses)
	row.Addresses = slices.Compact(row.Addresses)
	return row
}

// address spells an IP without its /32 or /128, a CIDR as it is.
func address(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}
