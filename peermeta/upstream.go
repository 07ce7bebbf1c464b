package peermeta

import (
	"errors"
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/chain"
)

// What Upstream's other errors wrap, for the package's tests: both are about the arguments,
// which a caller checks itself (see Upstream).
var (
	errNotPeerTarget = errors.New("not a peer target of the chain")
	errNoPeerMeta    = errors.New("no peer metadata")
)

// Imported is what an importer's proxy uses for one peer target: the SNI to dial (through
// its own mesh gateway), the SPIFFE IDs to accept from the other end, and the protocol.
type Imported struct {
	SNI       string   `json:"SNI"`
	SpiffeIDs []string `json:"SpiffeIDs"`
	Protocol  string   `json:"Protocol"`
}

// Upstream is the importer's side of a peering: for the chain's peer target targetID (a
// service the peer P exports), given the PeerMeta P sent for that service, it returns the
// primary SNI to dial, exactly the SPIFFE IDs to accept (a copy), and the received protocol.
// Errors (the messages are meshscope's; S is the service's name, or partition/namespace/name
// when either is not default), with the zero Imported:
//
//	target "x" is not a peer target of chain default/default/web
//	no peer metadata from peer "P" for service "S"
//	peer "P" exports "S" with protocol "tcp"; the chain uses "http"
//
// The last is reported when the importing chain is HTTP-like and the received protocol is
// not, or the reverse (an empty received protocol counts as tcp); it wraps
// chain.ErrProtocolMismatch, the one sentinel for services a chain reaches on protocols it
// cannot mix. The first two are about the arguments themselves — a target ID that is not in
// c.Targets or whose Peer is empty, a PeerMeta whose PrimarySNI is "" — which a caller that
// must tell them apart checks before the call.
func Upstream(c *chain.Chain, targetID string, received PeerMeta) (Imported, error) {
	if c == nil {
		return Imported{}, &FieldError{Value: targetID, Detail: fmt.Sprintf("target %q: no chain", targetID), Err: errNotPeerTarget}
	}
	t, ok := c.Targets[targetID]
	if !ok || t.Peer == "" {
		return Imported{}, &FieldError{Value: targetID, Detail: fmt.Sprintf("target %q is not a peer target of chain %s", targetID, c.Service), Err: errNotPeerTarget}
	}
	name := t.Service.Short()
	if received.PrimarySNI() == "" {
		return Imported{}, &FieldError{Value: received, Detail: fmt.Sprintf("no peer metadata from peer %q for service %q", t.Peer, name), Err: errNoPeerMeta}
	}
	protocol := received.Protocol
	if protocol == "" {
		protocol = "tcp"
	}
	if chain.IsHTTPLike(c.Protocol) != chain.IsHTTPLike(protocol) {
		return Imported{}, &FieldError{Value: protocol, Detail: fmt.Sprintf("peer %q exports %q with protocol %q; the chain uses %q", t.Peer, name, protocol, c.Protocol), Err: chain.ErrProtocolMismatch}
	}
	return Imported{SNI: received.PrimarySNI(), SpiffeIDs: slices.Clone(received.SpiffeID), Protocol: protocol}, nil
}
