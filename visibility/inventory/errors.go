package inventory

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the document, List item and object: "items[5] (ServiceEntry
// shop/api)", or "Services[3] (ServiceEntry a/x)" for Validate), Field (the path as the user
// wrote it: "spec.hosts[0]", "Hosts[0]"), Value (the value found), Detail (for people; a
// diagnostic whose wording may change), and Err (one of the sentinels below, where a caller
// may branch).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is.
var (
	// ErrNoInventory: Load was given input holding no Namespace, ServiceEntry or Service.
	ErrNoInventory = errors.New("no inventory")
	// ErrDuplicate: two objects where one is allowed — two Namespaces with one name, two
	// ServiceEntries (or two Services, two Sidecars, two VirtualServices, two
	// DestinationRules) with one namespace and name.
	ErrDuplicate = errors.New("duplicate object")
)
