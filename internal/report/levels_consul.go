package report

// The codes of packages chain and peermeta, each with its level. Those packages export them
// under the same names, with their documentation.
const (
	// chain
	PeerTargetResolvedLocally Code = "PeerTargetResolvedLocally"
	HeaderMergePanics         Code = "HeaderMergePanics"
	RouteUnreachable          Code = "RouteUnreachable"
	SplitProtocolDiffers      Code = "SplitProtocolDiffers"
	SplitWeightsRounded       Code = "SplitWeightsRounded"

	// peermeta: replication to a peer
	NotReplicated Code = "NotReplicated"
	Excluded      Code = "Excluded"
	UnionDiffers  Code = "UnionDiffers"
	UnknownKind   Code = "UnknownKind"

	// peermeta: the mesh gateways
	NoMeshGateway    Code = "NoMeshGateway"
	GatewaysCritical Code = "GatewaysCritical"

	// peermeta: a dry run
	WriteRefused Code = "WriteRefused"

	// peermeta: reading `consul config read` output
	EntrySkipped Code = "EntrySkipped"

	// peermeta: who may call whom (intentions)
	IntentionNeverMatches Code = "IntentionNeverMatches"
	TrustBundleMissing    Code = "TrustBundleMissing"
	L7OnNetworkFilter     Code = "L7OnNetworkFilter"
	IntentionPeerUnknown  Code = "IntentionPeerUnknown"
	RegexRefused          Code = "RegexRefused"
	SourceShadowed        Code = "SourceShadowed"
	IntentionsUnjudged    Code = "IntentionsUnjudged"
)

// consulLevel is the level of a code of the Consul half; ok is false for any other code.
func consulLevel(c Code) (l Level, ok bool) {
	switch c {
	case EntrySkipped, SplitWeightsRounded, SourceShadowed:
		return Note, true
	case PeerTargetResolvedLocally, RouteUnreachable, SplitProtocolDiffers, Excluded, UnionDiffers, UnknownKind, NoMeshGateway, GatewaysCritical,
		IntentionNeverMatches, TrustBundleMissing, L7OnNetworkFilter, IntentionPeerUnknown, IntentionsUnjudged:
		return Warning, true
	case NotReplicated, WriteRefused, HeaderMergePanics, RegexRefused:
		return Error, true
	}
	return "", false
}
