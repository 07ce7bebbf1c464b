package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
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
	// NewMesh and NewInventory name the proposed side's files, in a dry run.
	NewMesh      string           `json:"newMesh,omitempty"`
	NewInventory string           `json:"newInventory,omitempty"`
	SidecarAudit []sidecar.Change `json:"sidecarAudit,omitempty"`
	// GatewayAudit is the dry run of what gateways receive (a class per namespace: a gateway
	// deployed there), where it differs from the change of the same class of sidecars; and
	// RouteStatus of the status istiod writes on Gateway API routes.
	GatewayAudit []sidecar.Change            `json:"gatewayAudit,omitempty"`
	RouteStatus  []sidecar.RouteStatusChange `json:"routeStatusChanges,omitempty"`
	Audit        *ambient.Audit              `json:"audit,omitempty"`
	Scope        []scope.Change              `json:"scopeChanges,omitempty"`
	// ScopeNote says, wherever scope is shown, when Istio applies it.
	ScopeNote string `json:"scopeNote,omitempty"`
	// Applied are the objects -apply applied; Upgrade is an upgrade's dry run (two releases).
	Applied []inventory.Applied `json:"applied,omitempty"`
	Upgrade *upgrade            `json:"upgrade,omitempty"`

	hosts   map[inventory.ServiceRef]string // each Kubernetes Service's host, for the scope table
	ignored bool                            // serviceEntryVisibility is configured, and the release ignores it
}

type entryRow struct {
	Namespace string              `json:"namespace"`
	Name      string              `json:"name"`
	Hosts     []string            `json:"hosts"`
	Addresses []string            `json:"addresses,omitempty"` // as ztunnel's DNS proxy answers with them
	Decision  visibility.Decision `json:"decision"`
	DecidedBy string              `json:"decidedBy"`
}

// proxyRow is what one class of sidecar proxies receives: those of a namespace, or those of
// its workloads a workload Sidecar or DestinationRule selects.
type proxyRow struct {
	sidecar.Class
	Sidecar string           `json:"sidecar"`
	Hosts   []sidecar.Answer `json:"hosts"`
}

// upgrade is an upgrade's dry run: the causes the two releases differ by, each of which may
// change what a proxy or ztunnel gets, and the objects each release's webhook refuses (by
// release), which are left out of its view.
type upgrade struct {
	Causes  []mesh.Cause `json:"causes"`
	Refused []refusal    `json:"refused,omitempty"`
	// Ztunnel says why ztunnel's answers are not compared, when they are not.
	Ztunnel string `json:"ztunnel,omitempty"`
}

// refusal is an object a release's webhook refuses.
type refusal struct {
	Release string `json:"release"` // as the first line names it
	inventory.Refusal
}

// sidecarBudget is how many hosts the sidecar table lists, over all classes of proxies,
// before it leaves the other classes out (and says how many).
const sidecarBudget = 5000

func build(o options) (*report, error) {
	cur, next, err := load(o)
	if err != nil {
		return nil, err
	}
	known := cur.inv.NamespaceNames() // -client and -proxy must name one of them
	for _, f := range []struct{ name, ns string }{{"-client", o.client}, {"-proxy", o.proxy}} {
		if f.ns != "" && !slices.Contains(known, f.ns) {
			return nil, fmt.Errorf("%s %q: the inventory has no such namespace; it has: %s", f.name, f.ns, strings.Join(known, ", "))
		}
	}
	r := &report{Release: cur.mesh.Release().String(), Mesh: cur.meshName, Inventory: cur.invName, Enabled: cur.resolver.Enabled(), Conflicts: append([]ambient.Conflict{}, cur.index.Conflicts()...),
		Entries: []entryRow{}, Sidecars: []proxyRow{}, hosts: map[inventory.ServiceRef]string{}, ignored: cur.mesh.Visibility != nil && cur.mesh.AppliedVisibility() == nil}
	r.Findings, _ = cur.findings()
	for s, d := range cur.index.Entries {
		if s.Kind == inventory.ServiceEntry {
			r.Entries = append(r.Entries, entryOf(s, d, cur.resolver))
		}
	}
	slices.SortFunc(r.Entries, func(a, b entryRow) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	if len(cur.mesh.ServiceScopeConfigs) > 0 || len(cur.mesh.ServiceSettings) > 0 {
		r.Services = cur.scoper.Services()
	}
	for _, s := range cur.scoper.Services() {
		r.hosts[s.Service] = s.Host
	}
	if o.given["client"] && o.explainHost != "" {
		r.Explain = append(r.Explain, cur.index.ExplainHost(o.client, o.explainHost))
	}
	if o.given["client"] && o.explainAddr != "" {
		r.Explain = append(r.Explain, cur.index.ExplainAddress(o.client, o.addr))
	}
	if o.given["proxy"] && o.explainHost != "" {
		e := cur.view.ExplainHost(o.proxy, o.labels, o.explainHost)
		r.SidecarExplain = &e
	}
	r.sidecars(o, cur)
	if err := r.dryRun(cur, next); err != nil {
		return nil, err
	}
	if len(r.Services) > 0 || len(r.Scope) > 0 {
		r.ScopeNote = scopeNote
	}
	return r, nil
}

// sidecars fills the sidecar table: what each class of proxies receives (with -proxy alone,
// one class, whatever its size), until sidecarBudget hosts are listed — each namespace of a
// large mesh may receive every public service, and the whole table would hold their product.
func (r *report) sidecars(o options, c *config) {
	classes, one := c.view.Classes(), o.given["proxy"] && o.explainHost == ""
	if one {
		classes = []sidecar.Class{{Namespace: o.proxy, Workload: o.labels}}
	}
	listed := 0
	for i, cl := range classes {
		if listed >= sidecarBudget && !one {
			r.SidecarsOmitted = len(classes) - i
			break
		}
		hosts := c.view.Answers(cl.Namespace, cl.Workload)
		r.Sidecars = append(r.Sidecars, proxyRow{Class: cl, Sidecar: c.view.Proxy(cl.Namespace, cl.Workload).Sidecar, Hosts: hosts})
		listed += len(hosts)
	}
}

// dryRun audits the proposed configuration against the current one: what ztunnel answers
// when the mesh configuration changes (its file or release), and for every change what each
// class of sidecars and of gateways receives, the status istiod writes on routes, the scope
// of each Kubernetes Service, and the findings the change introduces.
func (r *report) dryRun(cur, next *config) error {
	if next == nil {
		return nil
	}
	r.NewRelease, r.NewMesh, r.NewInventory, r.Applied = next.mesh.Release().String(), next.meshName, next.invName, next.applied
	if r.NewRelease != r.Release {
		r.Upgrade = &upgrade{Causes: mesh.Differences(cur.mesh.Release(), next.mesh.Release())}
		for _, side := range []*config{cur, next} {
			for _, f := range side.refused {
				r.Upgrade.Refused = append(r.Upgrade.Refused, refusal{side.mesh.Release().String(), f})
			}
		}
	}
	if next.mesh != cur.mesh {
		audit, err := ambient.Diff(cur.mesh, next.mesh, cur.inv)
		var fe *ambient.FieldError
		switch {
		case err == nil:
			r.Audit = &audit
		case errors.As(err, &fe) && errors.Is(fe, ambient.ErrZtunnelReleases):
			r.Upgrade.Ztunnel = "ztunnel's answers are not compared: " + fe.Detail + "; run each release alone (-istio) to see what its ztunnel answers"
		default:
			return fmt.Errorf("%s: %w", next.meshName, err)
		}
	}
	r.Scope = scope.Diff(cur.scoper, next.scoper)
	r.SidecarAudit = sidecar.Diff(cur.view, next.view)
	r.GatewayAudit = unlikeSidecars(sidecar.DiffGateways(cur.view, next.view), r.SidecarAudit)
	r.RouteStatus = sidecar.DiffRouteStatus(cur.view, next.view)
	r.Proposed = proposedFindings(r.Findings, next)
	return nil
}

// entryOf is the row of the ServiceEntry s, decided d by r, with its addresses as ztunnel's
// DNS proxy answers with them.
func entryOf(s inventory.Service, d visibility.Decision, r *visibility.Resolver) entryRow {
	row := entryRow{Namespace: s.Namespace, Name: s.Name, Hosts: s.Hosts, Decision: d, DecidedBy: r.DecidedBy(d)}
	for _, p := range s.AllAddresses() {
		row.Addresses = append(row.Addresses, address(p))
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

// unlikeSidecars returns the gateway changes that are not the change of the same class of
// sidecars for the host — the same service, ports and rule before and after (a gateway has
// no routes) —: those are the ones that say something of gateways.
func unlikeSidecars(gateways, sidecars []sidecar.Change) []sidecar.Change {
	like := map[sidecar.ProxyHost]string{}
	for _, c := range sidecars {
		like[c.Key] = served(c.Before) + served(c.After)
	}
	return slices.DeleteFunc(gateways, func(c sidecar.Change) bool { return like[c.Key] == served(c.Before)+served(c.After) })
}

// served spells the service, ports and rule of an answer ("-" for none).
func served(a *sidecar.Answer) string {
	if a == nil {
		return "-"
	}
	return fmt.Sprintf("%s %s/%s %v %v;", a.Kind, a.Namespace, a.Name, a.Ports, a.Rule)
}

// config is one configuration read — a mesh configuration and an inventory — and its views.
type config struct {
	meshName, invName string
	mesh              *mesh.Config
	inv               *inventory.Inventory // as the views read it: without refused
	refused           []inventory.Refusal  // what the release refuses, left out (an upgrade's dry run)
	resolver          *visibility.Resolver
	index             *ambient.Index
	view              *sidecar.View
	scoper            *scope.Scoper
	applied           []inventory.Applied // the objects -apply applied to make it (the proposed side)
}

// load reads every input: the current mesh configuration and inventory, and the proposed
// side (nil without) — -new-mesh (the sample's new-mesh.yaml), -new-inventory or -apply, and
// -new-istio — each for its release. In an upgrade's dry run each release's view leaves out
// what that release refuses (and lists it); otherwise what the release refuses is an error.
func load(o options) (cur, next *config, err error) {
	m, meshName, err := loadMesh(o.mesh, "mesh.yaml", o.istio, o.compat)
	if err != nil {
		return nil, nil, err
	}
	nm, newMeshName := m, meshName
	if o.sample || o.newMesh != "" || o.newIstio != "" || o.newCompat != "" {
		if nm, newMeshName, err = proposedMesh(o, m); err != nil {
			return nil, nil, err
		}
	}
	// What each inventory is held to: its release's rules, or, across releases, the newest's,
	// each side's view then leaving out (and listing) what its release refuses.
	r, nr := m.Release(), nm.Release()
	if !r.Equal(nr) {
		r, nr = mesh.Release{}, mesh.Release{}
	}
	inv, invName, err := loadInventory(o.inventory, "inventory.yaml", o.clusterDomain, r)
	if err != nil {
		return nil, nil, err
	}
	newInv, newInvName, applied := inv, invName, []inventory.Applied(nil)
	switch {
	case o.newInventory != "":
		newInv, newInvName, err = loadInventory(o.newInventory, "", o.clusterDomain, nr)
	case len(o.apply) > 0:
		newInv, newInvName, applied, err = applyFiles(o, nr)
	}
	if err != nil {
		return nil, nil, err
	}
	if cur, err = views(m, meshName, inv, invName, nil); err != nil || nm == m && newInv == inv {
		return cur, nil, err
	}
	next, err = views(nm, newMeshName, newInv, newInvName, applied)
	return cur, next, err
}

// proposedMesh reads the proposed mesh configuration: -new-mesh (the sample's new-mesh.yaml)
// for -new-istio and -new-compatibility-version, else the current file for those (else for
// -istio and -compatibility-version). A -new-mesh that names no release runs the current
// one, as an upgrade that keeps its tag does.
func proposedMesh(o options, cur *mesh.Config) (*mesh.Config, string, error) {
	if o.newMesh == "" && !o.sample {
		return loadMesh(o.mesh, "mesh.yaml", cmp.Or(o.newIstio, o.istio), cmp.Or(o.newCompat, o.compat))
	}
	m, name, err := loadMesh(o.newMesh, "new-mesh.yaml", o.newIstio, o.newCompat)
	if err == nil && m.Istio == "" && o.newIstio == "" && cur.Istio != "" {
		return loadMesh(o.newMesh, "new-mesh.yaml", cur.Istio, cmp.Or(o.newCompat, m.CompatibilityVersion, cur.CompatibilityVersion))
	}
	return m, name, err
}

// loadMesh reads a mesh configuration file (the sample's when path is "") for release istio
// and compatibilityVersion compat ("": what the file says). A problem the caller's release
// makes is named as the release's (CompatibilityVersion: unknown compatibility version 1.31
// (Helm's words: Istio 1.31 ships profiles for …)).
func loadMesh(path, sampleName, istio, compat string) (*mesh.Config, string, error) {
	data, name, err := cli.ReadFile(sample, path, sampleName)
	if err != nil {
		return nil, name, err
	}
	m, err := mesh.LoadFor(data, istio, compat)
	return m, name, fielderr.In(name, err)
}

// loadInventory reads an inventory file (the sample's when path is "") for release r.
func loadInventory(path, sampleName, domain string, r mesh.Release) (*inventory.Inventory, string, error) {
	data, name, err := cli.ReadFile(sample, path, sampleName)
	if err != nil {
		return nil, name, err
	}
	inv, err := inventory.LoadFor(data, domain, r)
	return inv, name, fielderr.In(name, err)
}

// applyFiles reads -inventory as the cluster would hold it after kubectl apply -f of the
// -apply files (-namespace for kubectl's -n), each object judged for release r.
func applyFiles(o options, r mesh.Release) (*inventory.Inventory, string, []inventory.Applied, error) {
	var files []inventory.File
	var names []string
	for _, path := range append([]string{o.inventory}, o.apply...) { // -apply is never "": only -inventory is the sample's
		data, name, err := cli.ReadFile(sample, path, "inventory.yaml")
		if err != nil {
			return nil, name, nil, err
		}
		files, names = append(files, inventory.File{Name: name, Data: data}), append(names, name)
	}
	data, applied, err := inventory.Apply(files[0], o.namespace, r, files[1:]...)
	if err != nil {
		return nil, names[0], nil, err
	}
	inv, err := inventory.Load(data, o.clusterDomain)
	return inv, strings.Join(names, " + "), applied, fielderr.In(strings.Join(names, " + "), err)
}

// views builds every view of a mesh configuration and an inventory, for the configuration's
// release: of the inventory without what the release refuses, which it lists (none, but in
// an upgrade's dry run: otherwise the inventory was read for the release).
func views(m *mesh.Config, meshName string, inv *inventory.Inventory, invName string, applied []inventory.Applied) (*config, error) {
	c := &config{meshName: meshName, invName: invName, mesh: m, refused: inv.ValidateFor(m.Release()), applied: applied}
	c.inv = inv.Without(c.refused)
	var err [4]error // the first problem is said: each view validates the inventory alike
	c.resolver, err[0] = visibility.Compile(m.AppliedVisibility())
	c.index, err[1] = ambient.New(m, c.inv)
	c.view, err[2] = sidecar.New(m, c.inv)
	c.scoper, err[3] = scope.New(m, c.inv)
	return c, cmp.Or(fielderr.In(meshName, err[0]), fielderr.In(invName, cmp.Or(err[1], err[2], err[3])))
}

// findings lints the configuration: the mesh configuration alone (what the release ignores,
// visibility, scope), then read against the inventory (ambient's view, the sidecar view with
// its Gateway API routes, the gateways' view).
// meshOnly counts the first.
func (c *config) findings() (all []visibility.Finding, meshOnly int) {
	own := slices.Concat(c.mesh.Findings(), c.resolver.Lint(), c.scoper.Lint())
	return slices.Concat([]visibility.Finding{}, own, c.index.Lint(), c.view.Lint(), c.view.LintGateways()), len(own)
}

// proposedFindings lints the proposed configuration as the current one is linted and returns
// the findings the current configuration does not have: what the change introduces. Their
// paths name the proposed file they are about, so that they never read as findings of the
// current files.
func proposedFindings(cur []visibility.Finding, next *config) (out []visibility.Finding) {
	current := make(map[visibility.Finding]bool, len(cur))
	for _, f := range cur {
		current[f] = true
	}
	all, meshOnly := next.findings()
	for i, f := range all {
		if file := next.invName; !current[f] {
			if i < meshOnly {
				file = next.meshName
			}
			f.Path = "proposed " + file + ": " + f.Path
			out = append(out, f)
		}
	}
	return out
}
