package peermeta

import "github.com/meshscope/meshscope/chain/store"

// The config entries replication reads are a Consul server's, held by package store
// (chain/store), with their write path; these names are the store's, kept here for callers of
// this package.

// Config is store.Config: the config entries `consul config read` prints, of which
// replication reads the exported-services entries and the discovery-chain entries.
type Config = store.Config

// WriteOutcome is store.WriteOutcome: how Consul's server answers one write.
type WriteOutcome = store.WriteOutcome

// WriteStage is store.WriteStage: where Consul's server refuses a write.
type WriteStage = store.WriteStage

// The stages of a write (see store.WriteStage).
const (
	StageDecode   = store.StageDecode
	StageValidate = store.StageValidate
	StageStore    = store.StageStore
	StagePanic    = store.StagePanic
)

// LoadConfig is store.Load: it reads `consul config read` output into a new Config.
func LoadConfig(data []byte) (Config, error) { return store.Load(data) }
