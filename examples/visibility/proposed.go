package main

import (
	"slices"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/visibility"
)

// proposedFindings lints the proposed configuration (-new-mesh, -new-inventory) as the
// current one is linted — its policies, its service scope, the inventory read against it,
// and its sidecar view — and returns the findings the current configuration does not have:
// what the change introduces. Their paths name the proposed file they are about, so that they
// never read as findings of the current files; -fail-on counts them, and -o json lists them
// with the others.
func (r *report) proposedFindings(next mesh, nextInv visibility.Inventory, nextInvName string) error {
	indexed := nextInv
	if next.meshScope != nil {
		indexed.DefaultExportTo = next.meshScope.DefaultServiceExportTo
	}
	ix, err := visibility.NewIndex(next.res, indexed)
	if err != nil {
		return fielderr.In(nextInvName, err)
	}
	v, err := sidecarView(next, nextInv, nextInvName)
	if err != nil {
		return err
	}
	current := make(map[visibility.Finding]bool, len(r.Findings))
	for _, f := range r.Findings {
		current[f] = true
	}
	meshFindings := slices.Concat(next.res.Lint(), next.lint)
	for i, f := range slices.Concat(meshFindings, ix.Lint(), v.Lint()) {
		if current[f] {
			continue
		}
		file := nextInvName
		if i < len(meshFindings) {
			file = next.name
		}
		f.Path = "proposed " + file + ": " + f.Path
		r.Proposed = append(r.Proposed, f)
	}
	return nil
}
