package report

// The codes of packages exports, chain and peermeta, each with its level. Those packages
// export them under the same names, with their documentation.

// consulLevel is the level of a code of the Consul half; ok is false for any other code.
func consulLevel(c Code) (l Level, ok bool) {
	switch c {
	}
	return "", false
}
