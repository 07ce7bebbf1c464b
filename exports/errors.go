package exports

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the entry: `entries[1] ("west")`, or the value of a stream read by
// LoadEntries: "value 2"), Field (the path in the entry: "Services[1].Consumers[0]"), Value
// (the value found), Detail (Consul's message where Consul has one — a contract — else
// meshscope's diagnostic, whose wording may change), and Err (one of the sentinels below).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is.
var (
	// ErrDuplicateService: two rules of one entry name the same service in the same namespace
	// (Consul silently lets the later one win).
	ErrDuplicateService = errors.New("duplicate service rule")
	// ErrDuplicateEntry: two entries govern one partition.
	ErrDuplicateEntry = errors.New("duplicate exported-services entry")
	// ErrUnknownSamenessGroup: a consumer names a sameness group that the partition does not
	// define.
	ErrUnknownSamenessGroup = errors.New("unknown sameness group")
)
