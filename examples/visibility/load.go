package main

import (
	"slices"

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
	inv               *inventory.Inventory
	resolver          *visibility.Resolver
	index             *ambient.Index
	view              *sidecar.View
	scoper            *scope.Scoper
}

// loadMesh reads a mesh configuration file (the sample's when path is "").
func loadMesh(path, sampleName string) (*mesh.Config, string, error) {
	data, name, err := cli.ReadFile(sample, path, sampleName)
	if err != nil {
		return nil, name, err
	}
	m, err := mesh.Load(data)
	return m, name, fielderr.In(name, err)
}

// loadInventory reads an inventory file (the sample's when path is "").
func loadInventory(path, sampleName, domain string) (*inventory.Inventory, string, error) {
	data, name, err := cli.ReadFile(sample, path, sampleName)
	if err != nil {
		return nil, name, err
	}
	inv, err := inventory.Load(data, domain)
	return inv, name, fielderr.In(name, err)
}

// views builds every view of a mesh configuration and an inventory.
func views(m *mesh.Config, meshName string, inv *inventory.Inventory, invName string) (*config, error) {
	c := &config{meshName: meshName, invName: invName, mesh: m, inv: inv}
	var err error
	if c.resolver, err = visibility.Compile(m.Visibility); err != nil {
		return nil, fielderr.In(meshName, err)
	}
	if c.index, err = ambient.New(m, inv); err != nil {
		return nil, fielderr.In(invName, err)
	}
	if c.view, err = sidecar.New(m, inv); err != nil {
		return nil, fielderr.In(invName, err)
	}
	if c.scoper, err = scope.New(m, inv); err != nil {
		return nil, fielderr.In(invName, err)
	}
	return c, nil
}

// findings lints the configuration: the mesh configuration alone (visibility, scope), then
// read against the inventory (ambient's view, the sidecar view). meshOnly counts the first.
func (c *config) findings() (all []visibility.Finding, meshOnly int) {
	own := slices.Concat(c.resolver.Lint(), c.scoper.Lint())
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
