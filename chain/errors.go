package chain

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the resolver: "Resolvers[2] (default/default/web)", or the failover
// being resolved), Field (the path in the resolver: `Failover["*"].Targets[0]`), Value (the
// value found, when there is one), Detail (Consul's message where Consul has one — a
// contract — else meshscope's diagnostic, whose wording may change), and Err (one of the
// sentinels below, where a caller may branch).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is.
var (
	// ErrRedirectCycle: resolution came back to a target it had already visited through
	// redirects (Consul's "detected circular resolver redirect").
	ErrRedirectCycle = errors.New("circular resolver redirect")
	// ErrUnknownSubset: a target names a subset its service's resolver does not define.
	ErrUnknownSubset = errors.New("unknown subset")
	// ErrProtocolMismatch: the services a chain touches do not share one protocol.
	ErrProtocolMismatch = errors.New("inconsistent protocols")
	// ErrDuplicateResolver: two entries of one kind (resolvers, routers, splitters) for one
	// service, or two protocols for one service.
	ErrDuplicateResolver = errors.New("duplicate resolver")
	// ErrMissingSamenessGroup: a resolver names a sameness group the requesting partition
	// does not define.
	ErrMissingSamenessGroup = errors.New("missing sameness group")
	// ErrRequest: the request lacks a required field.
	ErrRequest = errors.New("incomplete request")
	// ErrCircularReference: routes and splits lead back to a router or splitter node on
	// their own path (Consul's "detected circular reference").
	ErrCircularReference = errors.New("circular reference")
	// ErrRoutingProtocol: a chain with a router or a splitter whose protocol is not
	// HTTP-like (Consul's "does not permit advanced routing or splitting behavior").
	ErrRoutingProtocol = errors.New("routing on a protocol that is not HTTP-like")
	// ErrTooManySplits: flattening nested splitters gives a splitter node more than
	// 65,536 splits.
	ErrTooManySplits = errors.New("too many splits")
)
