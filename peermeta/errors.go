package peermeta

import (
	"encoding/json"
	"errors"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

// FieldError is the one structured error type of meshscope's packages. Every error this
// package returns is a *FieldError or several joined (errors.Join) — including the errors of
// the chain and exports packages it passes on — so errors.As gives, for each problem: Where,
// Field ("Exporter.TrustDomain", "[1].Service.Port"), Value, Detail (for people; Consul's
// message where Consul has one) and Err (a sentinel of chain or exports, where a caller may
// branch).
type FieldError = fielderr.Error

// errReservedService is what an excluded service's error wraps: its chain reaches the
// reserved consul service. Replication.Excluded holds only such services, so a caller needs
// no sentinel to tell them apart.
var errReservedService = errors.New("reaches the reserved consul service")

// Failure is an exported service that is not replicated, and why: its chain does not compile,
// is not safe to export to a peer, or reaches the reserved consul service. Err keeps the whole error (errors.Is and errors.As
// work on it); in JSON it is the message, as "Error".
type Failure struct {
	Service exports.ServiceName `json:"Service"`
	Err     error               `json:"-"`
}

// MarshalJSON writes the failure with its error as a message.
func (f Failure) MarshalJSON() ([]byte, error) {
	msg := ""
	if f.Err != nil {
		msg = f.Err.Error()
	}
	return json.Marshal(struct {
		Service exports.ServiceName `json:"Service"`
		Error   string              `json:"Error"`
	}{f.Service, msg})
}
