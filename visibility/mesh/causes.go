package mesh

import "strings"

// FormatCauses spells causes as a report lists them, each with the first release that
// behaves its new way (Cause.Since): "DefaultExportToLists (from 1.30.3), SidecarExclusions
// (from 1.31.0)"; "" for none. The causes an upgrade between two releases can change
// anything by are FormatCauses(Differences(a, b)).
func FormatCauses(cs []Cause) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c) + " (from " + c.Since() + ")"
	}
	return strings.Join(out, ", ")
}
