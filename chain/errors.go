package chain

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join), so errors.As gives, for
// each problem: Where (the resolver: "Resolvers[2] (default/default/web)", the failover
// being resolved, or the route or split whose target does not resolve: "Routes[2] of
// service-router default/default/web"), Field (the path in the resolver:
// `Failover["*"].Targets[0]`), Value (the value found, when there is one), Detail (Consul's
// message where Consul has one — a contract — else meshscope's diagnostic, whose wording may
// change), and Err (a sentinel of this package where a caller may branch on the problem; see
// below).
type FieldError = fielderr.Error

// Sentinel errors, for errors.Is: the problems a caller may act on apart from the others.
// The rest — an unknown subset, a missing sameness group, a duplicate entry, a circular
// reference through routers and splitters, routing on a protocol that is not HTTP-like, a
// splitter node over 65,536 splits, an incomplete Request, a request ExplainRequest cannot
// follow — are problems with the input that a caller reports as they are: Detail says
// which, in Consul's words where Consul has them. (ErrPeerExport is with CheckPeerExport.)
var (
	// ErrRedirectCycle: resolution came back to a target it had already visited through
	// redirects (Consul's "detected circular resolver redirect").
	ErrRedirectCycle = errors.New("circular resolver redirect")
	// ErrProtocolMismatch: the services a chain touches do not share one protocol (and, in
	// package peermeta, a peer exports a service on a protocol the importing chain cannot
	// use).
	ErrProtocolMismatch = errors.New("inconsistent protocols")
)

// What the other problems wrap, so that the package's own tests tell them apart.
var (
	errUnknownSubset        = errors.New("unknown subset")
	errDuplicate            = errors.New("duplicate entry")
	errMissingSamenessGroup = errors.New("missing sameness group")
	errRequest              = errors.New("incomplete request")
	errCircularReference    = errors.New("circular reference")
	errRoutingProtocol      = errors.New("routing on a protocol that is not HTTP-like")
	errTooManySplits        = errors.New("too many splits")
	errHTTPRequest          = errors.New("not an HTTP request meshscope can explain")
)
