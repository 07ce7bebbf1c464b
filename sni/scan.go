package sni

import "github.com/meshscope/meshscope/internal/names"

// parseValid parses name in one pass when every one of its labels, the trust domain's
// included, is a valid label (a-z, 0-9 and '-', starting and ending with a letter or digit,
// at most 63 long) and it has a known shape; ok is false otherwise, and parseSlow then gives
// the error. A valid label is a valid value for every component, so no component is checked
// again.
func parseValid(name, td string) (n Name, ok bool) {
	end := len(name) - len(td) - 1 // the dot before the trust domain
	if len(name) > MaxLength || len(name) < 8 || td == "" || end < 1 || name[end] != '.' || name[end+1:] != td {
		return nil, false
	}
	var dots [7]int // as many labels as any kind of name has before the trust domain
	m, ok := split(&dots, name, end)
	if !ok {
		return nil, false
	}
	var ls labels
	start := 0
	for i, at := range dots[:m] {
		ls.l[i] = name[start:at]
		start = at + 1
	}
	ls.n = m
	k, c := ls.split()
	n, err := nameOf(name, td, k, c)
	if err != nil || k == kindInternalV1 && c[len(c)-2] == names.Default {
		return nil, false
	}
	return n, true
}

// split reports whether name, 8 to 253 bytes long, is made of valid labels, and records in
// dots where the labels before the trust domain end: the offsets of the dots at or before
// end. It returns how many it recorded, and ok false also when there are more than dots
// holds (more labels than any kind of name has).
func split(dots *[7]int, name string, end int) (n int, ok bool) {
	start := 0
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '.' {
			if !names.LabelByte(c) {
				return 0, false
			}
			continue
		}
		if !validLabel(name, start, i) {
			return 0, false
		}
		if n = record(dots, n, i, end); n < 0 {
			return 0, false
		}
		start = i + 1
	}
	return n, validLabel(name, start, len(name))
}

// validLabel reports whether name[start:end], made of label bytes, is a valid label: not
// empty, at most 63 long, starting and ending with a letter or digit.
func validLabel(name string, start, end int) bool {
	return end > start && end-start <= names.MaxLabel && end <= len(name) &&
		names.LabelEnd(name[start]) && names.LabelEnd(name[end-1])
}

// record records the dot at in dots[n] when it is at or before end, the trust domain's, and
// returns the number recorded then, or -1 when there is one more than dots holds.
func record(dots *[7]int, n, at, end int) int {
	if at > end {
		return n
	}
	if n == len(dots) {
		return -1
	}
	dots[n] = at
	return n + 1
}
