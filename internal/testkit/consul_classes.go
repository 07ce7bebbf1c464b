package testkit

// The classes of a replayed write: one for each stage at which meshscope answers a write as
// Consul's server did (AgreeByStage), and WriteEnterprise for a write a Replay leaves out
// because Consul CE refuses a field only Consul Enterprise accepts, which meshscope accepts.
const (
	WriteAccepted   = "write accepted, as by Consul"
	WriteDecode     = "write refused at decode, with Consul's words"
	WriteValidate   = "write refused at validate, with Consul's message"
	WriteStore      = "write refused at store, with Consul's message"
	WritePanic      = "write crashing Consul's server, refused and said so"
	WriteEnterprise = "write Consul CE refuses for an Enterprise field, left out"
)

// AgreeByStage is the Agree of a Replay: the class of a write meshscope answers as Consul did,
// by Consul's stage ("" for an accepted write).
var AgreeByStage = map[string]string{"": WriteAccepted, "decode": WriteDecode, "validate": WriteValidate, "store": WriteStore, "panic": WritePanic}
