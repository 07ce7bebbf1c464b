package store

import (
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/report"
)

// FieldError is the error of every problem the store finds: where (the entry), the field,
// its value and what is wrong, in Consul's words where Consul has words for it.
type FieldError = fielderr.Error

// Finding is one thing a reader of the store should know: Path, Code, Level (the code's) and
// Message, the shape of every finding of the Consul half.
type Finding = report.Finding

// EntrySkipped (note): an entry of one of Consul's kinds the store does not model (the
// gateways' entries, jwt-provider, …) was read or written unjudged; its finding names it and
// says why replication does not depend on it.
var EntrySkipped = report.NewCode("EntrySkipped", report.Note)
