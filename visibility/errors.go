package visibility

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/meshfile"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the document and List item: "document 2: items[0]"), Field (the path
// as the user wrote it: "spec.meshConfig.serviceEntryVisibility.policies[1].matchingRules[0].namespaceSelector"), Value (the
// value found), Detail (for people; a diagnostic whose wording may change), and Err (one of
// the sentinels below, where a caller may branch).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is.
var (
	// ErrNoMeshConfig: LoadConfig (or mesh.Load) was given input holding no mesh
	// configuration at all.
	ErrNoMeshConfig = meshfile.ErrNoMeshConfig
	// ErrDuplicate: two places in the input configure serviceEntryVisibility (or, for
	// mesh.Load, another field of meshConfig).
	ErrDuplicate = meshfile.ErrDuplicate
)

// joinProblems joins problems with errors.Join; nil when there are none.
func joinProblems(problems []*FieldError) error {
	if len(problems) == 0 {
		return nil
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}
