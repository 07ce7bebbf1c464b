package ambient

import "errors"

// ErrZtunnelReleases is the sentinel of Diff's refusal of two configurations whose releases
// give ztunnel its view otherwise (mesh.Differences holds ZtunnelCanonicalHost,
// ZtunnelRankedAddress or ZtunnelCIDRs): Diff audits a change of serviceEntryVisibility, and
// across such releases answers would change for other reasons too. A caller dry-running an
// upgrade tells it from a problem of the configurations with errors.Is, and says that
// ztunnel's answers are not compared:
//
//	audit, err := ambient.Diff(current, upgraded, inv)
//	if errors.Is(err, ambient.ErrZtunnelReleases) { … run each release alone … }
var ErrZtunnelReleases = errors.New("the releases give ztunnel its view otherwise")
