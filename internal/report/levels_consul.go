package report

// The codes of packages exports, chain and peermeta, each with its level. Those packages
// export them under the same names, with their documentation.
const (
	NotReplicated    Code = "NotReplicated"
	UnionDiffers     Code = "UnionDiffers"
	NoMeshGateway    Code = "NoMeshGateway"
	GatewaysCritical Code = "GatewaysCritical"
	WriteRefused     Code = "WriteRefused"
)

// consulLevel is the level of a code of the Consul half; ok is false for any other code.
func consulLevel(c Code) (l Level, ok bool) {
	switch c {
	case UnionDiffers, NoMeshGateway, GatewaysCritical:
		return Warning, true
	case NotReplicated, WriteRefused:
		return Error, true
	}
	return "", false
}
