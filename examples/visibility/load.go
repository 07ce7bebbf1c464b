package main

import (
	"cmp"
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
}

// inputs are what the report is of: the current configuration and, for a dry run, the
// proposed one (nil without), with the objects -apply applied.
type inputs struct {
	cur, next *config
	across    bool // the two answer for different releases: an upgrade's dry run
	applied   []inventory.Applied
}

// load reads every input: the current mesh configuration and inventory, and the proposed
// side — -new-mesh (the sample's new-mesh.yaml), -new-inventory or -apply, and -new-istio —
// each for its release. In an upgrade's dry run each release's view leaves out what that
// release refuses (and lists it); otherwise what the release refuses is an error.
func load(o options) (in inputs, err error) {
	m, meshName, err := loadMesh(o.mesh, "mesh.yaml", o.istio, o.compat)
	if err != nil {
		return in, err
	}
	nm, newMeshName := m, meshName
	if o.sample || o.newMesh != "" || o.newIstio != "" || o.newCompat != "" {
		if nm, newMeshName, err = proposedMesh(o, m); err != nil {
			return in, err
		}
	}
	// What each inventory is held to: its release's rules, or, across releases, the newest's,
	// each side's view then leaving out (and listing) what its release refuses.
	r, nr := m.Release(), nm.Release()
	if in.across = !r.Equal(nr); in.across {
		r, nr = mesh.Release{}, mesh.Release{}
	}
	inv, invName, err := loadInventory(o.inventory, "inventory.yaml", o.clusterDomain, r)
	if err != nil {
		return in, err
	}
	newInv, newInvName := inv, invName
	switch {
	case o.newInventory != "":
		newInv, newInvName, err = loadInventory(o.newInventory, "", o.clusterDomain, nr)
	case len(o.apply) > 0:
		newInv, newInvName, in.applied, err = applyFiles(o, nr)
	}
	if err != nil {
		return in, err
	}
	if in.cur, err = views(m, meshName, inv, invName); err != nil || nm == m && newInv == inv {
		return in, err
	}
	in.next, err = views(nm, newMeshName, newInv, newInvName)
	return in, err
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
	base, name, err := cli.ReadFile(sample, o.inventory, "inventory.yaml")
	if err != nil {
		return nil, name, nil, err
	}
	files := []inventory.File{}
	for _, path := range o.apply {
		data, _, err := cli.ReadFile(sample, path, "")
		if err != nil {
			return nil, name, nil, err
		}
		files = append(files, inventory.File{Name: path, Data: data})
	}
	data, applied, err := inventory.Apply(inventory.File{Name: name, Data: base}, o.namespace, r, files...)
	if err != nil {
		return nil, name, nil, err
	}
	name = strings.Join(append([]string{name}, o.apply...), " + ")
	inv, err := inventory.Load(data, o.clusterDomain)
	return inv, name, applied, fielderr.In(name, err)
}

// views builds every view of a mesh configuration and an inventory, for the configuration's
// release: of the inventory without what the release refuses, which it lists (none, but in
// an upgrade's dry run: the inventory was read for the release).
func views(m *mesh.Config, meshName string, inv *inventory.Inventory, invName string) (*config, error) {
	c := &config{meshName: meshName, invName: invName, mesh: m, refused: inv.ValidateFor(m.Release())}
	c.inv = inv.Without(c.refused)
	var err error
	if c.resolver, err = visibility.Compile(m.AppliedVisibility()); err != nil {
		return nil, fielderr.In(meshName, err)
	}
	if c.index, err = ambient.New(m, c.inv); err != nil {
		return nil, fielderr.In(invName, err)
	}
	// The sidecar view reads serviceEntryVisibility as written, whatever the release: it is
	// given the block as the release applies it (see sidecarCauses).
	applied := *m
	applied.Visibility = m.AppliedVisibility()
	if c.view, err = sidecar.New(&applied, c.inv); err != nil {
		return nil, fielderr.In(invName, err)
	}
	if c.scoper, err = scope.New(m, c.inv); err != nil {
		return nil, fielderr.In(invName, err)
	}
	return c, nil
}

// findings lints the configuration: the mesh configuration alone (what the release ignores,
// visibility, scope), then read against the inventory (ambient's view, the sidecar view).
// meshOnly counts the first.
func (c *config) findings() (all []visibility.Finding, meshOnly int) {
	own := slices.Concat(c.mesh.Findings(), c.resolver.Lint(), c.scoper.Lint())
	return slices.Concat([]visibility.Finding{}, own, c.index.Lint(), c.view.Lint()), len(own)
}

// proposedFindings lints the proposed configuration as the current one is linted and returns
// the findings the current configuration does not have: what the change introduces. Their
// paths name the proposed file they are about, so that they never read as findings of the
// current files.
func proposedFindings(cur []visibility.Finding, next *config) []visibility.Finding {
	current := make(map[visibility.Finding]bool, len(cur))
	for _, f := range cur {
		current[f] = true
	}
	all, meshOnly := next.findings()
	var out []visibility.Finding
	for i, f := range all {
		if current[f] {
			continue
		}
		file := next.invName
		if i < meshOnly {
			file = next.meshName
		}
		f.Path = "proposed " + file + ": " + f.Path
		out = append(out, f)
	}
	return out
}
