package intentions

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the value of a stream read by LoadEntries: "value 2"), Field (the path:
// "Sources[1].Permissions[0].HTTP.PathExact", "Intentions[3]", "Caller.Peer"), Value (the
// value found), Detail (Consul's message where Consul has one — a contract — else
// meshscope's diagnostic, whose wording may change), and Err (one of the sentinels below).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is.
var (
	// ErrUnknownField: an entry holds keys Consul does not read; the error's Detail is
	// Consul's multi-error message naming every one of them.
	ErrUnknownField = errors.New("invalid config key")
	// ErrL7Protocol: an entry gives permissions to a destination whose discovery chain is not
	// HTTP-like (ProtocolError), the refusal of Consul's store.
	ErrL7Protocol = errors.New("L7 intentions on a non-HTTP service")
	// ErrNotModelled: the input depends on what meshscope does not model — JWT requirements,
	// a source name that Consul's RBAC rules would read as a regular expression beyond '.'.
	ErrNotModelled = errors.New("not modelled by meshscope")
	// ErrUnknownPeer: a caller names a peer the sidecar's inputs do not describe.
	ErrUnknownPeer = errors.New("unknown peer")
)
