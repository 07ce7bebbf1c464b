package report

// The codes of the findings about the Istio release a mesh runs (package visibility/mesh),
// each with its level. visibility/mesh exports them under the same names, with their
// documentation.
const (
	IgnoredByRelease Code = "IgnoredByRelease"
	FlagNotInRelease Code = "FlagNotInRelease"
	ReleaseNotGiven  Code = "ReleaseNotGiven"
)

// releaseLevel is the level of a code of the release findings; ok is false for any other
// code.
func releaseLevel(c Code) (l Level, ok bool) {
	switch c {
	case ReleaseNotGiven:
		return Note, true
	case IgnoredByRelease, FlagNotInRelease:
		return Warning, true
	}
	return "", false
}
