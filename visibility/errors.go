package visibility

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the document, List item and object: "items[5] (ServiceEntry
// shop/api)", or "Services[3] (ServiceEntry a/x)" for NewIndex), Field (the path as the user
// wrote it: "spec.hosts[0]", "policies[1].matchingRules[0].namespaceSelector"), Value (the
// value found), Detail (for people; a diagnostic whose wording may change), and Err (one of
// the sentinels below, where a caller may branch).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is.
var (
	// ErrNoMeshConfig: LoadConfig was given input holding no mesh configuration at all.
	ErrNoMeshConfig = errors.New("no mesh configuration")
	// ErrNoInventory: LoadInventory was given input holding no Namespace, ServiceEntry or
	// Service.
	ErrNoInventory = errors.New("no inventory")
	// ErrDuplicate: two objects where one is allowed — two Namespaces with one name, two
	// ServiceEntries (or two Services) with one namespace and name, two places configuring
	// serviceEntryVisibility.
	ErrDuplicate = errors.New("duplicate object")
)

// problem is a FieldError at where and field with value.
func problem(where, field string, value any, format string, args ...any) *FieldError {
	return &FieldError{Where: where, Field: field, Value: value, Detail: fmt.Sprintf(format, args...)}
}

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

// fromField converts apimachinery's field error (selector validation) into a FieldError
// with the same text.
func fromField(e *field.Error) *FieldError {
	return &FieldError{Field: e.Field, Value: e.BadValue, Detail: e.ErrorBody()}
}
